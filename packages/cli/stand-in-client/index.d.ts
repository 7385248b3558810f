// STAND-IN for the real @imghost/client (packages/client), written by the CLI's author while the library is being
// written in parallel. It declares the agreed surface (the shared client-api note) and nothing the CLI does not
// need of it; the real package's generated types replace these. Delete this folder at the merge.

export type ClientOptions = {
  baseUrl: string;
  apiKey?: string;
  accessToken?: string;
  fetch?: typeof fetch;
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
};

export type UploadInput = string | Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export type UploadOptions = {
  filename?: string;
  mime?: string;
  title?: string;
  description?: string;
  visibility?: "public" | "unlisted" | "private";
  tags?: string[];
  albumId?: string;
  expiresIn?: number;
  size?: number;
  onProgress?: (p: { sentBytes: number; totalBytes: number }) => void;
  signal?: AbortSignal;
  tusFromBytes?: number;
  chunkBytes?: number;
};

export type Duplicate = { fileId: string; url: string; distance: number; match: "exact" | "similar" };

/** POST /upload/finalize's answer (src/uploads/schemas.ts FinalizeResponse). */
export type FinalizeResponse = {
  fileId: string;
  url: string;
  cdnUrl: string;
  mime: string;
  bytes: number;
  width: number | null;
  height: number | null;
  nsfwScore: number | null;
  ageRestricted: boolean;
  visibility: "public" | "unlisted" | "private";
  expiresAt: string | null;
  phash: string | null;
  duplicates: Duplicate[];
  analysis: "pending" | "done" | "failed";
  analysisError: string | null;
  placeholder: string | null;
  dominantColor: string | null;
};

/** An item of GET /files (and GET /files/:id, which has more). */
export type FileResource = {
  id: string;
  url: string;
  thumbnailUrl?: string;
  title: string;
  mime: string;
  bytes: number;
  width: number | null;
  height: number | null;
  visibility?: "public" | "unlisted" | "private";
  viewCount: number;
  createdAt: string;
  [k: string]: unknown;
};

export interface ImghostClient {
  upload(input: UploadInput, options?: UploadOptions): Promise<FinalizeResponse>;
  files: {
    list(query?: { limit?: number; q?: string; tag?: string; visibility?: string; albumId?: string }): AsyncIterable<FileResource>;
    get(id: string): Promise<FileResource>;
    update(id: string, patch: { title?: string; description?: string; visibility?: string; tags?: string[] }): Promise<FileResource>;
    delete(id: string): Promise<void>;
  };
  albums: {
    create(body: { title: string; description?: string; visibility?: string }): Promise<{ id: string; [k: string]: unknown }>;
    addFiles(albumId: string, fileIds: string[]): Promise<unknown>;
    list(): AsyncIterable<{ id: string; title: string; [k: string]: unknown }>;
  };
}

export declare function createClient(options: ClientOptions): ImghostClient;

export declare class ImghostError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: Record<string, unknown>;
  readonly body: unknown;
  constructor(init: { message: string; status: number; code: string; requestId: string | null; details?: Record<string, unknown>; body?: unknown });
}
