// createClient's body, shared by the browser/Workers entry (index.ts) and the Node entry (node.ts, which adds
// file paths as upload input).
import createFetchClient from "openapi-fetch";
import { errorFromBody } from "./errors.js";
import { retryingFetch, retryPolicy } from "./retry.js";
import { Transport } from "./transport.js";
import { upload } from "./upload.js";
import type { PathOpener } from "./source.js";
import type { paths } from "./schema.gen.js";
import type { AccountStats, Album, ClientOptions, FileListQuery, FileResource, FileStats, ImghostClient, Pagination, StatsRange } from "./types.js";

type Visibility = "public" | "unlisted" | "private";
const DEFAULT_PAGE_SIZE = 100;

/** openapi-fetch's answer as data, or its ImghostError. */
function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.error !== undefined || !r.response.ok) throw errorFromBody(r.response, r.error);
  return r.data as T;
}

/** Every item of a list answered in limit/offset pages, each once (an upload meanwhile shifts the pages). */
async function* everyPage<T extends { id: string }>(page: (offset: number) => Promise<{ items: T[]; pagination: Pagination }>): AsyncGenerator<T> {
  const seen = new Set<string>();
  for (let offset = 0; ; ) {
    const { items, pagination } = await page(offset);
    for (const item of items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      yield item;
    }
    if (!pagination.hasMore || items.length === 0) return;
    offset += items.length;
  }
}

export function createClientWith(options: ClientOptions, openPath?: PathOpener): ImghostClient {
  if (!options?.baseUrl) throw new TypeError("createClient(): baseUrl is required, e.g. http://localhost:8787/api/v1");
  const policy = retryPolicy(options.retry);
  const token = options.apiKey ?? options.accessToken;
  const transport = new Transport(options.baseUrl, token, options.fetch, policy);
  const baseFetch: typeof fetch = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);
  const raw = createFetchClient<paths>({
    baseUrl: transport.baseUrl,
    fetch: retryingFetch(baseFetch, policy),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

  function listFiles(query: FileListQuery = {}): AsyncIterable<FileResource> {
    const { albumId, limit = DEFAULT_PAGE_SIZE, q, tag, visibility, color, sort, excludeNsfw = false } = query;
    if (albumId !== undefined) {
      // The album's owner sees its 18+ files there already; others see what their safe mode lets them.
      if (q !== undefined || tag !== undefined || visibility !== undefined || color !== undefined || sort !== undefined || query.excludeNsfw !== undefined) {
        throw new TypeError("files.list(): albumId lists an album's files and takes no q, tag, visibility or excludeNsfw");
      }
      return everyPage(async (offset) => {
        const album = unwrap(await raw.GET("/albums/{id}", { params: { path: { id: albumId }, query: { limit, offset } } }));
        return { items: album.files, pagination: album.pagination };
      });
    }
    return everyPage(async (offset) => {
      // Sent always: the API leaves 18+ files out by default (excludeNsfw=true, api-v1.md), and this is the caller's own list.
      const filters = { q, tag, color, sort, visibility: visibility as Visibility | undefined, excludeNsfw: excludeNsfw ? ("true" as const) : ("false" as const) };
      const page = unwrap(await raw.GET("/files", { params: { query: { limit, offset, ...filters } } }));
      return { items: page.files, pagination: page.pagination };
    });
  }

  async function stats(fileIdOrRange?: string | StatsRange, range: StatsRange = {}): Promise<AccountStats | FileStats> {
    if (typeof fileIdOrRange === "string") {
      return unwrap(await raw.GET("/files/{id}/stats", { params: { path: { id: fileIdOrRange }, query: range } }));
    }
    return unwrap(await raw.GET("/account/stats", { params: { query: fileIdOrRange ?? {} } }));
  }

  return {
    stats: stats as ImghostClient["stats"],
    upload: (input, uploadOptions = {}) => upload(transport, input, uploadOptions, openPath),
    // The document describes no body for this operation (the route reads the form itself): the FormData goes as it is,
    // and fetch frames it with its boundary.
    uploadForm: async (form) => unwrap(await raw.POST("/upload/form", { body: form as never, bodySerializer: (body: unknown) => body as FormData })),
    files: {
      list: listFiles,
      get: async (id) => unwrap(await raw.GET("/files/{id}", { params: { path: { id } } })),
      update: async (id, patch) => {
        const body = { ...patch, visibility: patch.visibility as Visibility | undefined };
        return unwrap(await raw.PATCH("/files/{id}", { params: { path: { id } }, body })).file;
      },
      delete: async (id) => {
        unwrap(await raw.DELETE("/files/{id}", { params: { path: { id } } }));
      },
    },
    search: async (q, options = {}) => unwrap(await raw.GET("/search", { params: { query: { q, ...options } } })),
    similar: async (id) => unwrap(await raw.GET("/files/{id}/similar", { params: { path: { id } } })).files,
    account: {
      whoami: async () => unwrap(await raw.GET("/account/whoami")),
    },
    albums: {
      create: async (body) => unwrap(await raw.POST("/albums", { body: { ...body, visibility: body.visibility as Visibility | undefined } })),
      addFiles: async (albumId, fileIds) => unwrap(await raw.POST("/albums/{id}/files", { params: { path: { id: albumId } }, body: { fileIds } })),
      list: () =>
        everyPage<Album>(async (offset) => {
          const page = unwrap(await raw.GET("/albums", { params: { query: { limit: DEFAULT_PAGE_SIZE, offset } } }));
          return { items: page.albums, pagination: page.pagination };
        }),
    },
    raw,
  };
}
