// Upload-Metadata's keys (extensions.md § 1 and § 8) as an upload's start: the metadata every flow takes when the
// upload is made, with the same bounds as presign. Values arrive as text, so numbers and lists are read from text.
import { z } from "@hono/zod-openapi";
import { UPLOADS } from "../../config/uploads";
import { VISIBILITIES } from "../../db/schema";
import { Alt, Description, Title } from "../../files/schemas";
import { typeOfName } from "../../platform/formats/image-types";
import { validationError } from "../../platform/http/validation";
import { CommaTags } from "../schemas";
import type { StartInput } from "../start";

const TusMetadata = z
  .object({
    filename: z.string().min(1).max(1024),
    filetype: z.string().max(255).optional(),
    title: Title.optional(),
    description: Description.optional(),
    alt: Alt.optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    tags: CommaTags.optional(),
    albumId: z.string().min(1).max(64).optional(),
    expiresIn: z
      .string()
      .regex(/^\d{1,12}$/, "must be a whole number of seconds")
      .transform(Number)
      .pipe(z.number().int().min(UPLOADS.fileExpiresInSeconds.min).max(UPLOADS.fileExpiresInSeconds.max))
      .optional(),
  })
  // Clients add keys of their own (Uppy sends `name`, `type`, `relativePath`): ignored, not refused.
  .passthrough();

export type TusStart = { input: Omit<StartInput, "bytes" | "album">; albumId: string | null };

/** The upload's start from its metadata; the type is `filetype`, else what the file name's extension says. */
export function startFromMetadata(metadata: Map<string, string>): TusStart {
  const parsed = TusMetadata.safeParse(Object.fromEntries(metadata));
  if (!parsed.success) throw validationError(parsed.error.issues);
  const m = parsed.data;
  const mime = m.filetype?.trim() || typeOfName(m.filename) || "application/octet-stream";
  return {
    input: { filename: m.filename, mime, title: m.title, description: m.description, alt: m.alt, visibility: m.visibility, expiresIn: m.expiresIn, tags: m.tags },
    albumId: m.albumId ?? null,
  };
}
