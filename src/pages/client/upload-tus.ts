// Large files (BROWSER_UPLOADS.tusFromBytes and more) go over tus (extensions.md § 1) with tus-js-client: the
// hashed asset tus.js, loaded with import() when the first large file is sent. tus-js-client keeps each upload's
// address in localStorage under the file's fingerprint (name, type, size, last modified, endpoint), so the same
// file picked again after a reload asks the server for its offset (HEAD) and sends only the rest. The Bearer
// token is this page's (GET /app/token; the API reads no cookie). The result is the upload's JSON status, whose
// `file` is finalize's answer: the row shows it as it shows the direct flow's.
import type { DetailedError, PreviousUpload } from "tus-js-client";
import { BROWSER_UPLOADS } from "../../config/uploads";
import { API_BASE, ENDPOINTS, endpointPath } from "../../platform/api-endpoints";
import { ApiError, getToken, type Finalized } from "./upload-api";
import type { Job, UploadMeta } from "./upload-flows";

type Library = typeof import("tus-js-client");
/** GET {uploadUrl}: where the upload stands; `file` once it is complete. */
type TusStatus = { state: "receiving" | "complete" | "failed"; file: Finalized | null };

let library: Promise<Library> | null = null;

function load(url: string): Promise<Library> {
  library ??= (import(url) as Promise<Library>).catch((err: unknown) => {
    library = null; // a failed fetch of the script is tried again with the next file
    throw new ApiError(0, { message: `The upload script did not load (${err instanceof Error ? err.message : String(err)})` });
  });
  return library;
}

/** Upload addresses this page is sending to now: the same file queued twice must not resume one upload twice. */
const inFlight = new Set<string>();

/** Statuses worth another try: no answer, a timeout, an offset or lock race with a cut-off request, a rate limit
 *  (5xx too, below). */
const RETRY_STATUSES = new Set([0, 408, 409, 423, 429]);

/** The API's error for a failed tus request: its status and JSON body (tus-js-client's message is for developers). */
function apiErrorOf(err: Error | DetailedError): ApiError {
  if (err instanceof ApiError) return err;
  const res = "originalResponse" in err ? err.originalResponse : null;
  if (!res) {
    // A request that never left (the token could not be had) carries our own Error; a lost connection an event.
    const cause = "causingError" in err ? err.causingError : null;
    return new ApiError(0, { message: cause instanceof Error ? cause.message : "Network error: pick the file again to resume" });
  }
  let body: ConstructorParameters<typeof ApiError>[1] = {};
  try {
    body = JSON.parse(res.getBody()) as typeof body;
  } catch {
    /* not JSON: the status says enough */
  }
  return new ApiError(res.getStatus(), body);
}

/** Upload-Metadata: the form's fields as the server reads them (uploads/tus/metadata.ts). */
function metadataOf(file: File, meta: UploadMeta, tags: string[]): Record<string, string> {
  const m: Record<string, string> = { filename: file.name, filetype: file.type, visibility: meta.visibility };
  if (meta.title) m.title = meta.title;
  if (meta.description) m.description = meta.description;
  if (meta.expiresIn !== undefined) m.expiresIn = String(meta.expiresIn);
  if (tags.length) m.tags = tags.join(",");
  return m;
}

/** The newest stored upload of this file that this page is not already sending. */
function latest(previous: PreviousUpload[]): PreviousUpload | undefined {
  return previous
    .filter((p) => p.uploadUrl && !inFlight.has(p.uploadUrl))
    .sort((a, b) => Date.parse(b.creationTime) - Date.parse(a.creationTime))[0];
}

/** The finalize answer of a complete upload (GET {uploadUrl}), or why there is none. */
async function finalizedAt(uploadUrl: string, token: string): Promise<Finalized> {
  const r = await fetch(uploadUrl, { headers: { Authorization: `Bearer ${token}` } });
  const body = (await r.json().catch(() => ({}))) as Partial<TusStatus> & ConstructorParameters<typeof ApiError>[1];
  if (!r.ok) throw new ApiError(r.status, body);
  if (body.state === "complete" && body.file) return body.file;
  throw new ApiError(0, { message: body.state === "failed" ? "The server refused the file once it arrived" : "The upload did not complete: pick the file again to resume" });
}

/** GET /app/token; a failure is seen by the request that awaits it, not reported as unhandled before. */
function freshToken(): Promise<string> {
  const token = getToken();
  token.catch(() => undefined);
  return token;
}

/** Sends the job's file over tus, resuming a stored upload of the same file; answers finalize's body. */
export async function sendOverTus(job: Job, meta: UploadMeta, tags: string[], libraryUrl: string): Promise<Finalized> {
  const tus = await load(libraryUrl);
  let token = freshToken();
  let renewedToken = false;
  const claimed: string[] = [];
  const claim = (url: string | null) => {
    if (url && !inFlight.has(url)) {
      claimed.push(url);
      inFlight.add(url);
    }
  };
  try {
    const uploadUrl = await new Promise<string | null>((resolve, reject) => {
      const upload = new tus.Upload(job.file, {
        endpoint: location.origin + API_BASE + endpointPath(ENDPOINTS.tusCreate),
        chunkSize: BROWSER_UPLOADS.tusChunkBytes,
        retryDelays: BROWSER_UPLOADS.tusRetryDelaysMs,
        metadata: metadataOf(job.file, meta, tags),
        // A finished upload is forgotten: the same file picked later is a new upload, not this one's result.
        removeFingerprintOnSuccess: true,
        onBeforeRequest: async (req) => req.setHeader("Authorization", `Bearer ${await token}`),
        onUploadUrlAvailable: () => claim(upload.url),
        onProgress: (sent, total) => {
          job.bar.value = Math.round((sent / total) * 100);
        },
        onShouldRetry: (err, attempt) => {
          if (err.causingError instanceof Error) return false; // ours (no token), not the network's
          const status = err.originalResponse?.getStatus() ?? 0;
          // An access token lives minutes: a long upload gets a fresh one, once.
          const renew = status === 401 && !renewedToken;
          if (renew) {
            renewedToken = true;
            token = freshToken();
          }
          if (!renew && !RETRY_STATUSES.has(status) && status < 500) return false;
          job.status.textContent = `retrying (${attempt + 1} of ${BROWSER_UPLOADS.tusRetryDelaysMs.length})`;
          return true;
        },
        onSuccess: () => resolve(upload.url),
        onError: (err) => reject(apiErrorOf(err)),
      });
      upload
        .findPreviousUploads()
        .then((previous) => {
          const stored = latest(previous);
          if (stored) {
            claim(stored.uploadUrl);
            upload.resumeFromPreviousUpload(stored);
          }
          job.status.textContent = stored ? "resuming" : "uploading";
          upload.start();
        })
        .catch(reject);
    });
    job.status.textContent = "finalizing";
    if (!uploadUrl) throw new ApiError(0, { message: "The server named no upload address" });
    return await finalizedAt(uploadUrl, await token);
  } finally {
    for (const url of claimed) inFlight.delete(url);
  }
}
