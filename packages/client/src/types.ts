// The public types of the client, the API's shapes taken from the generated schema (schema.gen.ts).
import type { Client } from "openapi-fetch";
import type { RetryOptions } from "./retry.js";
import type { UploadInput } from "./source.js";
import type { components, paths } from "./schema.gen.js";

export type { components, operations, paths } from "./schema.gen.js";
export type { RetryOptions } from "./retry.js";
export type { UploadInput } from "./source.js";

type Schemas = components["schemas"];

export type ClientOptions = {
  /** The API's {base_url}, e.g. "http://localhost:8787/api/v1" (a trailing slash is fine). */
  baseUrl: string;
  /** Sent as Authorization: Bearer <apiKey>. */
  apiKey?: string;
  /** A session access token, sent the same way (apiKey wins when both are given). */
  accessToken?: string;
  /** Default: globalThis.fetch at the time of each request. */
  fetch?: typeof fetch;
  /** Defaults: 5 attempts, 500 ms base delay, 30 s at most between two tries. */
  retry?: RetryOptions;
};

export type Visibility = "public" | "unlisted" | "private";

export type UploadProgress = { sentBytes: number; totalBytes: number };

export type UploadOptions = {
  /** Needed for inputs without a name (a path, a File or a fs.ReadStream have one); else `upload.<ext>` of the sniffed type. */
  filename?: string;
  /** Else the Blob's type, else from the file name's extension, else sniffed from the first bytes. */
  mime?: string;
  title?: string;
  description?: string;
  /** Alt text (at most 1,000 characters); pages and embed codes fall back to the title. */
  alt?: string;
  visibility?: Visibility;
  /** Sent with the upload (presign or tus metadata): an API key needs `upload` alone. */
  tags?: string[];
  /** One of your albums: the file is in it from finalize on (another's, or anonymous: 404 album_not_found). */
  albumId?: string;
  /** The file's lifetime in seconds (at least 60). */
  expiresIn?: number;
  /** A stream's size when known: it is then sent as it is read. Without it a stream is buffered (up to the plan's file size limit). */
  size?: number;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  /** At or above this size the upload goes over tus, else direct (presign, PUT, finalize). Default 5_000_000. */
  tusFromBytes?: number;
  /** The tus chunk size. Default 5 MiB. */
  chunkBytes?: number;
  /**
   * Remember an unfinished tus upload in `store`, so that the same file sent again (after a reload or a crash) goes
   * on from the server's offset with the metadata it was created with. A File's key defaults to its name, type,
   * size and last-modified time; other inputs resume only with a `key` you give. A finished or refused upload is
   * forgotten. Not for anonymous uploads (their upload token is not kept).
   */
  resume?: { store: ResumeStore; key?: string };
  /** Called before a failed tus chunk is tried again: `attempt` 1 is the first retry, of `of` at most. */
  onRetry?: (retry: { attempt: number; of: number; status: number }) => void;
};

/** Where unfinished uploads are remembered (localStorageResumeStore() in a browser, or your own, e.g. a file). */
export type ResumeStore = {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, uploadUrl: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
};

/** POST /upload/finalize's body (and a finished tus upload's `file`). */
export type FinalizeResponse = NonNullable<Schemas["FinalizeResponse"]>;
/** POST /upload/form's body: finalize's, and for anonymous callers the file's delete token. */
export type FormUploadResponse = Schemas["FormUploadResponse"];
/** A file as GET /files lists it. */
export type FileResource = Schemas["FileListItem"];
/** A file as GET /files/:id answers it: everything FileResource has, and more. */
export type FileDetail = Schemas["File"];
export type Album = Schemas["Album"];
export type Pagination = Schemas["Pagination"];
export type FilePatch = { title?: string; description?: string; alt?: string; visibility?: string; tags?: string[] };
export type FileListQuery = {
  limit?: number;
  /** Words matched as GET /search matches them. */
  q?: string;
  /** `#rrggbb`: nearest dominant colour first (not with sort). */
  color?: string;
  /** `relevance` needs q. */
  sort?: "created" | "views" | "size" | "relevance";
  tag?: string;
  visibility?: string;
  albumId?: string;
  /**
   * Leave out age-restricted files. Default false: the list is your own files, and safe mode protects other
   * people's eyes, not you from your own (the API's own default, for GET /files as the contract has it, is true).
   */
  excludeNsfw?: boolean;
};
/** GET /search's answer: your files (each with `snippet`) and albums, marks in \u0002…\u0003. */
export type SearchResults = Schemas["SearchResults"];
export type SearchOptions = { type?: "files" | "albums" | "all"; limit?: number; offset?: number };
/** An item of GET /files/:id/similar: a listed file and its `distance`. */
export type SimilarFile = Schemas["SimilarFile"];
export type AddFilesResult = { message: string; added: number; requested: number };
/** GET /account/whoami: the account (and API key) the client's credential belongs to. */
export type Whoami = Schemas["Whoami"];
/** GET /files/{id}/stats and GET /account/stats: days (UTC dates, oldest first), top referring hosts, totals or top files. */
export type FileStats = Schemas["FileStats"];
export type AccountStats = Schemas["AccountStats"];
/** Inclusive UTC dates (YYYY-MM-DD) within the last 90 days; by default the last 30, today included. */
export type StatsRange = { from?: string; to?: string };

export interface ImghostClient {
  upload(input: UploadInput, options?: UploadOptions): Promise<FinalizeResponse>;
  /**
   * POST /upload/form: one multipart request, the image in the field `file` and the metadata as text fields (what
   * ShareX-like tools send). It is read whole on the server, so prefer upload() for anything large.
   */
  uploadForm(form: FormData): Promise<FormUploadResponse>;
  /** Your account's days, top files and referrers; with a file id, that file's days, referrers and totals. */
  stats(range?: StatsRange): Promise<AccountStats>;
  stats(fileId: string, range?: StatsRange): Promise<FileStats>;
  files: {
    /** Every file of yours, 18+ ones included (`ageRestricted`), page after page (`limit`: the page size, default 100). With albumId, the album's files. */
    list(query?: FileListQuery): AsyncIterable<FileResource>;
    get(id: string): Promise<FileDetail>;
    update(id: string, patch: FilePatch): Promise<FileDetail>;
    delete(id: string): Promise<void>;
  };
  account: {
    /** Whose credential this is (username, email, plan) and, for an API key, its name and permissions. */
    whoami(): Promise<Whoami>;
  };
  /** GET /search: your files and albums matching every word (the last also as a prefix), best first. One page. */
  search(q: string, options?: SearchOptions): Promise<SearchResults>;
  /** GET /files/:id/similar: your files nearest to this one, nearest first (at most 50). */
  similar(id: string): Promise<SimilarFile[]>;
  albums: {
    create(body: { title: string; description?: string; visibility?: string }): Promise<Album>;
    addFiles(albumId: string, fileIds: string[]): Promise<AddFilesResult>;
    list(): AsyncIterable<Album>;
  };
  /** The typed openapi-fetch client, with the same credentials and retries. */
  raw: Client<paths>;
}
