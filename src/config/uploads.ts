// The upload flows' numbers: presign, direct and multipart, tus, from a URL, and the site's upload script.
// Per-plan size limits and quotas are PLAN_LIMITS (./index.ts).
import { MB, MiB } from "./units";

/** Uploads (decisions.md § Uploads). Per-plan size limits and quotas are in PLAN_LIMITS. */
export const UPLOADS = {
  /** The mime allow-list; anything else is 415. */
  mimeTypes: ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/bmp"] as const,
  /** Workers accept request bodies up to 100 MB, so bigger files must use multipart. */
  maxDirectBytes: 100 * MB,
  multipartPartBytes: { min: 5 * MiB, max: 100 * MiB, default: 8 * MiB },
  /** R2's limit on parts per multipart upload. */
  maxParts: 10_000,
  /** How long a presigned direct upload may wait for its PUT and finalize (matches the upload token). */
  directTtlSeconds: 3600,
  /** How long a multipart upload may stay open before cleanup aborts it. */
  multipartTtlSeconds: 24 * 3600,
  /** Bounds of `expiresIn` (file lifetime) at presign / init. */
  fileExpiresInSeconds: { min: 60, max: 10 * 365 * 24 * 3600 },
  filenameMaxBytes: 100,
  titleMaxChars: 200,
  descriptionMaxChars: 5_000,
  /** Exact duplicates returned by finalize, at most. */
  duplicatesLimit: 20,
  /** Rows handled per cleanup step and cron run (each row costs a few subrequests). */
  cleanupBatchSize: 100,
  /** Records of failed / aborted / expired uploads are deleted this long after their storage was removed. */
  endedRecordsRetentionSeconds: 7 * 24 * 3600,
};
export type UploadMime = (typeof UPLOADS.mimeTypes)[number];

/** tus 1.0 resumable uploads (uploads/tus/, extensions.md § 1), assembled into R2 multipart parts. */
export const TUS = {
  /** The part size chunks are assembled into: R2's smallest, so the bytes held back between chunks stay few. */
  partBytes: UPLOADS.multipartPartBytes.min,
  /** Held-back bytes are stored in rows of this size (a Durable Object's SQLite row holds at most 2 MB). */
  heldRowBytes: MiB,
  /**
   * Chunks up to this size are read whole by the worker and passed on as bytes (one copy, no stream to the object);
   * larger ones stream. Above a 5 MiB part, so the usual chunk takes the fast way, and small beside the isolate's
   * 128 MB, since a request waiting for the upload's lock holds its chunk meanwhile.
   */
  wholeChunkBytes: 8 * MiB,
  /** How long a PATCH waits for another PATCH of the same upload to end before it answers 423. */
  lockWaitMs: 3_000,
  /**
   * Upload-Metadata's longest header (extensions.md § 1): every HEAD echoes it, and a client's HTTP stack refuses
   * large answer headers (Node's fetch: 16 KB in all), after which the upload could no longer be resumed.
   */
  metadataMaxBytes: 4096,
  /** An upload's object keeps its state this long past the upload's expiry, then deletes itself (alarm). */
  stateGraceSeconds: 24 * 3600,
};

/** Upload from a URL (extensions.md § 2; uploads/from-url.ts). The plan's size limit applies as for every upload. */
export const URL_UPLOADS = {
  /** The whole fetch, redirects and body included; past it the upload is 422 url_fetch_failed and keeps nothing. */
  timeoutMs: 15_000,
  /** Redirects followed by hand, each hop checked by the outbound address rules again. */
  maxRedirects: 3,
  /**
   * A remote that sends no Content-Length is read into memory first (the reservation and the R2 put need the size),
   * so such bodies are capped below the plan's limit: the isolate has 128 MB. With a Content-Length the body streams
   * into R2 and only the plan's limit applies.
   */
  maxBufferedBytes: 50 * MB,
};

/** How the site's upload script (src/pages/client/, bundled with these numbers inlined) sends files. */
export const BROWSER_UPLOADS = {
  /** Files of this size and more go over tus (resumable across reloads, extensions.md § 1); smaller ones in one
   *  direct PUT. Decimal, like every size the pages show (the upload page and docs say "5 MB"). */
  tusFromBytes: 5 * MB,
  /** Bytes per PATCH: the server's part size, so each chunk fills one R2 part and nothing is held back between
   *  chunks; a chunk cut off by a reload still keeps what arrived (uploads/tus/assembly.ts). */
  tusChunkBytes: TUS.partBytes,
  /** @imghost/client's retry policy for the page's uploads: a failed request (no answer, 5xx, a 429 that asks
   *  for at most maxDelayMs; for a tus chunk also 409, 423 and 460) is tried again after a backoff from baseDelayMs
   *  up to maxDelayMs, `attempts` tries in all; then the file fails, and picking it again resumes a tus upload. */
  uploadRetry: { attempts: 5, baseDelayMs: 1_000, maxDelayMs: 5_000 },
  /** Files uploaded at once. */
  parallelFiles: 2,
};
