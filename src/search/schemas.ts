// Request and response schemas of GET /search and GET /files/:id/similar (extensions.md § 9).
import { z } from "@hono/zod-openapi";
import { FileListItemSchema } from "../files/schemas";
import { Pagination } from "../platform/http/pagination";

const SNIPPET = "Plain text (never HTML) with each matching word wrapped in \\u0002…\\u0003, which clients turn into highlights";

export const SearchQuery = z.object({
  q: z.string().min(1).max(200).openapi({
    description: 'Every word must match (title, description, tags, filename, alt text, album titles); the last also as a prefix; "quoted phrases" as phrases. No other syntax',
    example: "beach sun",
  }),
  type: z.enum(["files", "albums", "all"]).default("all"),
  limit: z.coerce.number().int().min(1).max(50).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

export const SearchFileHit = FileListItemSchema.extend({ snippet: z.string().openapi({ description: SNIPPET }) }).openapi("SearchFileHit");

export const SearchAlbumHit = z
  .object({ id: z.string(), title: z.string(), snippet: z.string().openapi({ description: SNIPPET }), fileCount: z.number().int() })
  .openapi("SearchAlbumHit");

export const SearchResults = z
  .object({
    files: z.array(SearchFileHit),
    albums: z.array(SearchAlbumHit),
    pagination: Pagination.openapi({ description: "limit and offset apply to each list; total counts both; hasMore: either has more" }),
  })
  .openapi("SearchResults");

export const SimilarFile = FileListItemSchema.extend({
  distance: z.number().openapi({ description: "The nearer signal's distance over its near-copy bound: up to 1 a near copy (as in duplicates), above it alike" }),
}).openapi("SimilarFile");

export const SimilarFiles = z.object({ files: z.array(SimilarFile) }).openapi("SimilarFiles");
