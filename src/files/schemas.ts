// Request and response schemas of the files API (OpenAPI-described).
import { z } from "@hono/zod-openapi";
import { VISIBILITIES } from "../db/schema";
import { FILE_METADATA } from "../config";
import { PageQuery, Pagination } from "../platform/http/pagination";

export const Visibility = z.enum(VISIBILITIES);
export const HotlinkPolicy = z.enum(["allow", "whitelist", "block"]);

// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
// eslint-disable-next-line no-control-regex
const NO_CONTROL_EXCEPT_NEWLINES = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;

export const Title = z.string().trim().max(FILE_METADATA.titleMaxLength).regex(NO_CONTROL, "Control characters are not allowed");
export const Description = z
  .string()
  .max(FILE_METADATA.descriptionMaxLength)
  .regex(NO_CONTROL_EXCEPT_NEWLINES, "Control characters other than line breaks are not allowed");

/** Alt text for pages and embed codes (extensions.md § 9); empty: the title stands in. */
export const Alt = z.string().trim().max(FILE_METADATA.altMaxLength).regex(NO_CONTROL, "Control characters are not allowed");

/** Tags: trimmed, 1..50 characters each, at most 30, duplicates (case-insensitive) removed. */
export const Tags = z
  .array(z.string().trim().min(1).max(FILE_METADATA.tagMaxLength).regex(NO_CONTROL, "Control characters are not allowed"))
  .max(FILE_METADATA.maxTags)
  .transform((tags) => {
    const seen = new Set<string>();
    return tags.filter((t) => {
      const k = t.toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  });

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
export const Hostname = z
  .string()
  .trim()
  .toLowerCase()
  .regex(HOSTNAME, "Give a host name such as example.com (no scheme, port or path)");

export const FileIdParam = z.object({ id: z.string().max(64).openapi({ example: "file_V1StGXR8_Z5jdHi6B-myT" }) });

const BoolString = z.enum(["true", "false", "1", "0"]);

export const ListFilesQuery = PageQuery.extend({
  sort: z.enum(["created", "views", "size", "relevance"]).optional().openapi({ description: "Default created; relevance only with q" }),
  order: z.enum(["asc", "desc"]).default("desc"),
  visibility: Visibility.optional(),
  excludeNsfw: BoolString.default("true").openapi({ description: "Leave out age-restricted files (default true)" }),
  q: z.string().max(200).optional().openapi({
    description: "Only files matching every word (title, description, tags, filename, alt text, album titles); the last word also as a prefix, \"quoted phrases\" as phrases",
  }),
  tag: z.string().max(50).optional().openapi({ description: "Only files with this tag" }),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "must be #RRGGBB")
    .optional()
    .openapi({ description: "#RRGGBB: files whose dominant colour is nearest first (ΔE in CIELAB); not with sort", example: "#3366cc" }),
}).superRefine((v, ctx) => {
  if (v.sort === "relevance" && v.q === undefined) ctx.addIssue({ code: "custom", path: ["sort"], message: "sort=relevance needs q" });
  if (v.color !== undefined && v.sort !== undefined) ctx.addIssue({ code: "custom", path: ["color"], message: "color cannot be combined with sort" });
});

export const PatchFileRequest = z
  .object({
    title: Title.optional(),
    description: Description.optional(),
    alt: Alt.optional(),
    visibility: Visibility.optional(),
    hotlinkPolicy: HotlinkPolicy.optional(),
    hotlinkDomains: z.array(Hostname).max(FILE_METADATA.maxHotlinkDomains).optional().openapi({
      description: "Hosts allowed to embed the file when hotlinkPolicy is whitelist",
    }),
    tags: Tags.optional(),
    expiresIn: z.number().int().positive().max(FILE_METADATA.maxExpiresInSeconds).nullable().optional().openapi({
      description: "Whole seconds from now until the file expires; null removes the expiry",
    }),
  })
  .strict()
  .openapi("PatchFileRequest");

/** An item of `duplicates` (analysis/duplicates.ts); finalize answers the same items. */
export const Duplicate = z
  .object({
    fileId: z.string(),
    url: z.string(),
    distance: z.number().int().openapi({ description: "0 for `exact`; for `similar`, the distance of the signal that matched (see `signal`)" }),
    match: z.enum(["exact", "similar"]).openapi({ description: "`exact`: the same bytes (SHA-256); `similar`: a near copy" }),
    signal: z.enum(["phash", "embedding"]).optional().openapi({
      description:
        "`similar` only: which signal found it. `phash`: the perceptual hashes are within PHASH_DISTANCE (resized, recompressed, brightened, watermarked copies); `embedding`: phash is not, but the image model's features are (crops, small rotations)",
    }),
    distances: z
      .object({
        phash: z.number().int().nullable().openapi({ description: "Hamming distance of the two 64-bit phashes" }),
        embedding: z.number().int().nullable().openapi({ description: "Cosine distance of the two images' model features, in thousandths (0-2000); null when a file was analysed before features were stored" }),
      })
      .optional()
      .openapi({ description: "`similar` only: each signal's distance" }),
  })
  .openapi("Duplicate");

/** Painted while the image loads (analysis/placeholder.ts); null until the analysis made them. */
export const PlaceholderFields = {
  placeholder: z.string().nullable().openapi({
    description: "Base64 ThumbHash (https://evanw.github.io/thumbhash/) of the picture; decode with the `thumbhash` package's thumbHashToDataURL. Null until analysis is done",
    example: "1QcSHQRnh493V4dIh4eXh1h4kJUI",
  }),
  dominantColor: z.string().nullable().openapi({ description: "The picture's most common colour, `#rrggbb`; null until analysis is done", example: "#6b8e4e" }),
};

export const VariantLink = z
  .object({
    width: z.number().int().nullable().openapi({ description: "The ladder step; the last entry is the original (its width, null if unknown)" }),
    url: z.string().openapi({ description: "{image_url}/<id>?w=<step>: AVIF or WebP by Accept (or ?format=), never wider than the original" }),
  })
  .openapi("VariantLink");

export const FileSchema = z
  .object({
    id: z.string().openapi({ example: "file_V1StGXR8_Z5jdHi6B-myT" }),
    url: z.string(),
    cdnUrl: z.string(),
    thumbnailUrl: z.string(),
    title: z.string(),
    description: z.string(),
    alt: z.string().openapi({ description: "Alt text (at most 1,000 characters); empty: the title stands in" }),
    mime: z.string(),
    bytes: z.number().int(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    visibility: Visibility,
    viewCount: z.number().int(),
    downloadCount: z.number().int(),
    nsfwScore: z.number().nullable(),
    ageRestricted: z.boolean(),
    tags: z.array(z.string()),
    hotlinkPolicy: HotlinkPolicy,
    hotlinkDomains: z.array(z.string()).optional().openapi({ description: "Shown to the owner only" }),
    phash: z.string().nullable(),
    duplicates: z.array(Duplicate),
    analysis: z.enum(["pending", "done", "failed"]),
    ...PlaceholderFields,
    variants: z.array(VariantLink).openapi({ description: "The width ladder's URLs (srcset), smallest first; widths at or above the original's are left out" }),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
  })
  .openapi("File");

export const FileListItemSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    thumbnailUrl: z.string(),
    title: z.string(),
    mime: z.string(),
    bytes: z.number().int(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    viewCount: z.number().int(),
    visibility: Visibility,
    ...PlaceholderFields,
    ageRestricted: z.boolean().openapi({ description: "Shown blurred in safe mode" }),
    createdAt: z.string(),
  })
  .openapi("FileListItem");

/** Answers of GET /files and PATCH /files/:id (routes.ts), named so the pages type their calls with them. */
export const FileList = z.object({ files: z.array(FileListItemSchema), pagination: Pagination });
export const FileUpdated = z.object({ message: z.string(), file: FileSchema });
