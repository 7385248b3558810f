// Request and response shapes of /upload/* (api-v1.md § Upload, decisions.md § Uploads).
import { z } from "@hono/zod-openapi";
import { UPLOADS } from "../config/uploads";
import { VISIBILITIES } from "../db/schema";
import { Alt, Description, Duplicate, PlaceholderFields, Tags, Title } from "../files/schemas";

/** A request body of raw image bytes (the direct PUT, a multipart part): the declared image type, or
 *  application/octet-stream (another image type is 415 content_type_mismatch). */
export const binaryBody = (description: string) => ({
  required: true,
  description,
  content: Object.fromEntries([...UPLOADS.mimeTypes, "application/octet-stream"].map((m) => [m, { schema: z.string().openapi({ format: "binary" }) }])),
});

const Sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex digits")
  .openapi({ description: "Hex SHA-256 of the whole file (any case; stored lower-case)", example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" });
const Filename = z.string().min(1).max(1024).openapi({ description: "The client's file name; sanitised into storeKey", example: "holiday photo.jpg" });
const Mime = z.string().min(1).max(255).openapi({ description: `One of ${UPLOADS.mimeTypes.join(", ")} (others: 415)`, example: "image/jpeg" });
const Visibility = z.enum(VISIBILITIES);
const ExpiresIn = z
  .number()
  .int()
  .min(UPLOADS.fileExpiresInSeconds.min)
  .max(UPLOADS.fileExpiresInSeconds.max)
  .openapi({ description: "File lifetime in seconds; omitted: the file does not expire" });
const AlbumId = z.string().min(1).max(64).openapi({
  description: "One of your albums: the file joins it at finalize. Anyone else's album, or none: 404 album_not_found (anonymous uploads take none)",
  example: "alb_V1StGXR8_Z5jdHi6B-myT",
});

/**
 * The file's metadata, given when the upload is made (extensions.md § 8): the `upload` permission alone sets it,
 * and the file carries it from finalize on. Title, description and tags follow PATCH /files/:id's rules.
 */
const UploadMetadata = {
  title: Title.optional().openapi({ description: "Default: the file name without its extension" }),
  description: Description.optional(),
  alt: Alt.optional().openapi({ description: "Alt text, at most 1,000 characters; default: none (the title stands in)" }),
  visibility: Visibility.optional().openapi({ description: "Default public; anonymous uploads cannot be private" }),
  tags: Tags.optional().openapi({ description: "As PATCH /files/:id takes them: at most 30, 1-50 characters each, repeats dropped" }),
  albumId: AlbumId.optional(),
  expiresIn: ExpiresIn.optional(),
};

/** `a, b,,c` -> the Tags of ["a", "b", "c"]: how forms and tus metadata, which carry text, give tags. */
export const CommaTags = z
  .string()
  .transform((list) => list.split(",").map((t) => t.trim()).filter(Boolean))
  .pipe(Tags);

const UploadId = z.string().min(1).max(64).openapi({ example: "upl_V1StGXR8_Z5jdHi6B-myT" });
const FileId = z.string().min(1).max(64).openapi({ example: "file_V1StGXR8_Z5jdHi6B-myT" });
const StoreKey = z.string().min(1).max(1024).openapi({ example: "uploads/2026-01-31/file_V1StGXR8_Z5jdHi6B-myT/holiday_photo.jpg" });
const Etag = z.string().min(1).max(200);

const AnonymousTokens = {
  uploadToken: z.string().optional().openapi({ description: "Anonymous callers only: Bearer token for this file's PUT/parts/finalize (1 hour)" }),
  deleteToken: z.string().optional().openapi({ description: "Anonymous callers only, shown once: send as X-Delete-Token to DELETE /files/:id" }),
};

export const PresignRequest = z
  .object({
    filename: Filename,
    mime: Mime,
    bytes: z.number().int().positive().openapi({ description: "Exact size of the file in bytes" }),
    sha256: Sha256,
    ...UploadMetadata,
  })
  .strict()
  .openapi("PresignRequest");

export const PresignResponse = z
  .object({
    uploadId: UploadId,
    uploadUrl: z.string().openapi({ description: "{base_url}/upload/direct/<file_id>: PUT the bytes here" }),
    fileId: FileId,
    storeKey: StoreKey,
    message: z.string(),
    ...AnonymousTokens,
  })
  .openapi("PresignResponse");

export const DirectUploadResponse = z
  .object({
    fileId: FileId,
    url: z.string(),
    mime: z.string(),
    bytes: z.number().int(),
    status: z.literal("ready"),
  })
  .openapi("DirectUploadResponse");

export const FinalizeRequest = z
  .object({
    uploadId: UploadId,
    fileId: FileId,
    storeKey: StoreKey,
    storeEtag: Etag.openapi({ description: "The ETag answered by the PUT (or storeEtag of multipart complete); quotes optional" }),
    width: z.number().int().min(1).max(1_000_000).optional().openapi({ description: "Hint until the analysis job measures the image" }),
    height: z.number().int().min(1).max(1_000_000).optional(),
    phash: z.string().regex(/^[0-9a-fA-F]{16}$/, "must be 16 hex digits").optional().openapi({ description: "Client's perceptual-hash hint" }),
    nsfwScore: z.number().min(0).max(1).optional().openapi({ description: "Client's hint; never lowers the server's score" }),
  })
  .strict()
  .openapi("FinalizeRequest");


export const FinalizeResponse = z
  .object({
    fileId: FileId,
    url: z.string(),
    cdnUrl: z.string(),
    mime: z.string(),
    bytes: z.number().int(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    nsfwScore: z.number().nullable().openapi({ description: "Null until known (the client's hint, then the analysis job's score)" }),
    ageRestricted: z.boolean(),
    visibility: Visibility,
    expiresAt: z.string().nullable(),
    phash: z.string().nullable(),
    duplicates: z.array(Duplicate),
    analysis: z.enum(["pending", "done", "failed"]).openapi({
      description: "The server's analysis: `done` when it landed within FINALIZE_WAIT_MS (its phash, nsfwScore, size and duplicates are in this answer), `pending` past the wait (poll GET /files/:id), `failed` when the image was refused",
    }),
    analysisError: z.string().nullable().openapi({ description: "Why the analysis failed, or which optional step of a done analysis did not run" }),
    ...PlaceholderFields,
  })
  .openapi("FinalizeResponse");

export const MultipartInitRequest = z
  .object({
    filename: Filename,
    mime: Mime,
    totalBytes: z.number().int().positive(),
    partSize: z
      .number()
      .int()
      .min(UPLOADS.multipartPartBytes.min)
      .max(UPLOADS.multipartPartBytes.max)
      .optional()
      .openapi({ description: `Bytes per part (5 MiB to 100 MiB; default ${UPLOADS.multipartPartBytes.default})` }),
    sha256: Sha256.optional().openapi({ description: "When given, the assembled file is verified against it at complete" }),
    ...UploadMetadata,
  })
  .strict()
  .openapi("MultipartInitRequest");

export const MultipartInitResponse = z
  .object({
    uploadId: UploadId,
    fileId: FileId,
    storeKey: StoreKey,
    partSize: z.number().int(),
    partCount: z.number().int(),
    parts: z.array(z.object({ partNumber: z.number().int(), url: z.string() })),
    expiresAt: z.string(),
    ...AnonymousTokens,
  })
  .openapi("MultipartInitResponse");

export const PartResponse = z.object({ partNumber: z.number().int(), etag: z.string() }).openapi("MultipartPart");

export const MultipartStatus = z
  .object({
    uploadId: UploadId,
    fileId: FileId,
    storeKey: StoreKey,
    state: z.enum(["pending", "uploaded", "finalized", "aborted", "failed", "expired"]),
    totalBytes: z.number().int(),
    partSize: z.number().int(),
    partCount: z.number().int(),
    expiresAt: z.string(),
    parts: z.array(z.object({ partNumber: z.number().int(), etag: z.string(), bytes: z.number().int() })).openapi({ description: "Parts received so far (while pending)" }),
  })
  .openapi("MultipartUploadStatus");

export const MultipartCompleteRequest = z
  .object({
    uploadId: UploadId,
    fileId: FileId,
    storeKey: StoreKey,
    parts: z
      .array(z.object({ partNumber: z.number().int().min(1).max(UPLOADS.maxParts), etag: Etag }).strict())
      .min(1)
      .max(UPLOADS.maxParts),
  })
  .strict()
  .openapi("MultipartCompleteRequest");

export const MultipartCompleteResponse = z
  .object({ fileId: FileId, storeEtag: z.string(), bytes: z.number().int(), status: z.literal("ready") })
  .openapi("MultipartCompleteResponse");

export const FileIdParam = z.object({ fileId: FileId });
export const UploadIdParam = z.object({ uploadId: UploadId });
export const PartParam = z.object({ uploadId: UploadId, partNumber: z.string().regex(/^\d{1,5}$/).openapi({ example: "1" }) });

/** The text fields of POST /upload/form (form values are strings: tags comma-separated, expiresIn coerced). */
export const FormUploadFields = z.object({
  ...UploadMetadata,
  tags: CommaTags.optional(),
  expiresIn: z.coerce.number().pipe(ExpiresIn).optional(),
});
export const FORM_TEXT_FIELDS = Object.keys(FormUploadFields.shape);

export const FormUploadResponse = FinalizeResponse.extend({
  deleteToken: z.string().optional().openapi({ description: "Anonymous callers only, shown once: send as X-Delete-Token to DELETE /files/:id" }),
}).openapi("FormUploadResponse");

/** POST /upload/url (extensions.md § 2). */
export const UrlUploadRequest = z
  .object({
    url: z.string().min(1).max(2048).openapi({
      description: "The image's http or https URL, on the default port, without credentials, not naming an internal address (400 invalid_url)",
      example: "https://example.com/photos/sunset.jpg",
    }),
    ...UploadMetadata,
    title: Title.optional().openapi({ description: "Default: the URL's file name" }),
  })
  .strict()
  .openapi("UrlUploadRequest");
