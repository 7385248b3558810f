// Request and response schemas of the albums API.
import { z } from "@hono/zod-openapi";
import { ALBUMS } from "../config";
import { PASSWORD_LENGTH } from "../config/auth";
import { Description, FileListItemSchema, Tags, Title, Visibility } from "../files/schemas";
import { Pagination, PageQuery } from "../platform/http/pagination";

const FileId = z.string().max(64).openapi({ example: "file_V1StGXR8_Z5jdHi6B-myT" });
const FileIds = z.array(FileId).max(ALBUMS.maxFileIdsPerRequest);
const AlbumPassword = z.string().min(ALBUMS.passwordMinLength).max(PASSWORD_LENGTH.max).openapi({
  description: "Write-only. Viewers then send it in X-Album-Password.",
});

export const AlbumIdParam = z.object({ id: z.string().max(64).openapi({ example: "alb_V1StGXR8_Z5jdHi6B-myT" }) });
export const AlbumFileParams = z.object({ id: z.string().max(64), fileId: z.string().max(64) });

export const CreateAlbumRequest = z
  .object({
    title: Title.pipe(z.string().min(1, "Give the album a title")),
    description: Description.optional(),
    fileIds: FileIds.optional().openapi({ description: "Your own live files to put in the album; others are skipped" }),
    visibility: Visibility.default("public"),
    password: AlbumPassword.optional(),
    tags: Tags.optional(),
  })
  .strict()
  .openapi("CreateAlbumRequest");

export const PatchAlbumRequest = z
  .object({
    title: Title.pipe(z.string().min(1, "Give the album a title")).optional(),
    description: Description.optional(),
    visibility: Visibility.optional(),
    password: AlbumPassword.nullable().optional().openapi({ description: "A new password, or null to remove it" }),
    tags: Tags.optional(),
    coverImageId: FileId.nullable().optional().openapi({ description: "A file in the album, or null" }),
  })
  .strict()
  .openapi("PatchAlbumRequest");

export const AddFilesRequest = z
  .object({ fileIds: FileIds.min(1) })
  .strict()
  .openapi("AddAlbumFilesRequest");

export const AlbumSchema = z
  .object({
    id: z.string().openapi({ example: "alb_V1StGXR8_Z5jdHi6B-myT" }),
    title: z.string(),
    description: z.string(),
    visibility: Visibility,
    tags: z.array(z.string()),
    url: z.string(),
    coverImageId: z.string().nullable(),
    passwordProtected: z.boolean(),
    viewCount: z.number().int(),
    fileCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Album");

export const AlbumDetailSchema = AlbumSchema.extend({
  files: z.array(FileListItemSchema),
  pagination: Pagination.openapi({ description: "Paging of `files` (query limit/offset)" }),
}).openapi("AlbumDetail");

export const AlbumFilesQuery = PageQuery;

/** Answers of GET /albums, PATCH /albums/:id and POST /albums/:id/files (routes.ts), named for the pages too. */
export const AlbumList = z.object({ albums: z.array(AlbumSchema), pagination: Pagination });
export const AlbumUpdated = z.object({ message: z.string(), album: AlbumSchema });
export const AlbumFilesAdded = z.object({ message: z.string(), added: z.number().int(), requested: z.number().int() });
