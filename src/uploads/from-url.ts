// POST /upload/url (extensions.md § 2): the worker fetches the image and runs the same three steps as every upload,
// in-process, as POST /upload/form does (startUpload, the direct flow's verified store, finalizeUpload); only the
// source of the bytes differs (remote-fetch.ts, remote-body.ts). Why a body without Content-Length is buffered (and
// bounded) while one with it streams, the address rules and the failures: docs/uploads.md (POST /upload/url).
import { PLAN_LIMITS, type PlanOrAnonymous } from "../config";
import { UPLOADS, URL_UPLOADS } from "../config/uploads";
import type { Visibility } from "../db/schema";
import type { DirectoryAndShard, ShardDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import type { Uploader } from "./access";
import { assertUploadAlbum, type UploadAlbum } from "./album";
import { startUpload, type Started } from "./start";
import { receiveDirectUpload } from "./direct";
import { finalizeUpload } from "./finalize";
import type { FinalizeResponse } from "./finalize-answer";
import { endFailedUpload } from "./lifecycle";
import { findUploadByFileId } from "./records";
import { SNIFF_BYTES, sniffMime } from "./magic";
import { Deadline, fetchFailed, fetchFollowingRedirects, timedOut } from "./remote-fetch";
import { RemoteBody } from "./remote-body";
import type { Head } from "./streams";

export type UrlUploadInput = {
  url: string;
  title?: string;
  description?: string;
  alt?: string;
  visibility?: Visibility;
  expiresIn?: number;
  tags?: string[];
  /** One of the caller's albums: the file joins it at finalize, as in every flow (extensions.md § 8). */
  album?: UploadAlbum;
};

type WaitUntil = Pick<ExecutionContext, "waitUntil">;
type Limits = { plan: PlanOrAnonymous; limit: number };
type Stored = { started: Started; continuing: Uploader; etag: string };

export async function uploadFromUrl(
  env: Env,
  ctx: WaitUntil,
  dbs: DirectoryAndShard,
  uploader: Uploader,
  input: UrlUploadInput,
): Promise<FinalizeResponse & { deleteToken?: string }> {
  const plan: PlanOrAnonymous = uploader.kind === "user" ? uploader.user.plan : "anonymous";
  // Checked before anything is fetched, so a refused album costs the remote nothing (and again at the start, which
  // every flow's album goes through: it may have gone while the image was fetched).
  if (input.album) await assertUploadAlbum(uploader, input.album);

  const deadline = new Deadline(URL_UPLOADS.timeoutMs);
  let stored: Stored;
  try {
    stored = await fetchAndStore(env, dbs.shard, uploader, input, { plan, limit: PLAN_LIMITS[plan].maxFileBytes }, deadline);
  } finally {
    deadline.clear();
  }
  const { started, continuing, etag } = stored;
  // The metadata went on the records at the start; finalize puts the file in the album too.
  const body = await finalizeUpload(env, ctx, dbs, continuing, { uploadId: started.uploadId, fileId: started.fileId, storeKey: started.storeKey, storeEtag: etag });
  return started.deleteToken ? { ...body, deleteToken: started.deleteToken } : body;
}

async function fetchAndStore(env: Env, db: ShardDb, uploader: Uploader, input: UrlUploadInput, limits: Limits, deadline: Deadline): Promise<Stored> {
  const { response, url } = await fetchFollowingRedirects(env, input.url, deadline);
  const declared = declaredLength(response);
  if (declared !== null && declared > limits.limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(limits, limits.limit);
  }
  // The plan's limit bounds a streamed body whatever it announced (more than announced, under the limit, is the
  // store's size_mismatch); a buffered one is bounded by what memory allows too.
  const cap = declared === null ? Math.min(limits.limit, URL_UPLOADS.maxBufferedBytes) : limits.limit;
  const source = new RemoteBody(response.body ?? new Blob([]).stream(), cap, deadline);
  const stopped = () => bodyError(source, limits, cap, response.status);
  const orStopped = <T>(reading: Promise<T>) =>
    reading.catch(() => {
      throw stopped();
    });

  let head: Head = await orStopped(source.head(SNIFF_BYTES));
  const mime = sniffMime(head.bytes);
  if (!mime) {
    source.release();
    throw new ApiError("unsupported_media_type", `The URL's bytes are not an image of a supported type (${UPLOADS.mimeTypes.join(", ")})`, {
      allowed: [...UPLOADS.mimeTypes],
    });
  }
  if (declared === null) head = await orStopped(source.readToEnd(head));

  const { title, description, alt, visibility, expiresIn, tags, album } = input;
  const start = { filename: filenameOf(url), mime, bytes: declared ?? source.received, title, description, alt, visibility, expiresIn, tags, album };
  let started: Started;
  try {
    started = await startUpload(env, db, uploader, start, { kind: "direct", fetched: true });
  } catch (err) {
    source.release();
    throw err;
  }
  // Anonymous callers continue as the holder of the new file's upload token, as in the three-step flow.
  const continuing: Uploader = uploader.kind === "anonymous" ? { kind: "token", fileId: started.fileId } : uploader;
  // No Content-Length on this request: the store counts the bytes itself and hashes them on the way.
  const request = new Request("https://upload.internal/", { method: "PUT", headers: { "content-type": mime }, body: source.stream(head) });
  try {
    const put = await receiveDirectUpload(env, db, continuing, started.fileId, request);
    return { started, continuing, etag: put.etag };
  } catch (err) {
    // Whatever stopped it, nobody will send these bytes again: the upload ends here (a no-op when the direct flow
    // already ended it), so no object, live record or reservation stays.
    const record = await findUploadByFileId(db, started.fileId);
    if (record) await endFailedUpload(env, db, record, "upload from a URL");
    if (source.failure) throw stopped();
    if (err instanceof ApiError && err.code === "size_mismatch") {
      const received = err.details.received;
      throw fetchFailed(`The remote sent another length than the ${declared} bytes it announced`, { status: response.status, expectedBytes: declared, receivedBytes: received });
    }
    throw err;
  }
}

/** The announced length, when it describes the bytes we will read (a compressed body is decoded by fetch). */
function declaredLength(response: Response): number | null {
  const encoding = response.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") return null;
  const raw = response.headers.get("content-length")?.trim();
  return raw && /^\d{1,16}$/.test(raw) ? Number(raw) : null;
}

function tooLarge({ plan, limit }: Limits, cap: number): ApiError {
  if (cap < limit) {
    return new ApiError("file_too_large", `The remote sent no Content-Length: such images are read into memory, up to ${cap} bytes`, { limit: cap, plan });
  }
  return new ApiError("file_too_large", `The ${plan} plan allows files up to ${limit} bytes`, { limit, plan });
}

/** The contract's answer for a body that stopped before its end. */
function bodyError(source: RemoteBody, limits: Limits, cap: number, status: number): ApiError {
  if (source.failure === "too_large") return tooLarge(limits, cap);
  if (source.failure === "timeout") return timedOut(status);
  return fetchFailed("The remote broke off while sending the image", { status, reason: "broken" });
}

/** The name the URL gives the image (its last path segment), for the title and the stored key. */
function filenameOf(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).pop() ?? "";
  try {
    return decodeURIComponent(last) || "image";
  } catch {
    return last || "image";
  }
}
