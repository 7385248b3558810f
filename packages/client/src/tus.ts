// A file at or above the tus threshold, over tus 1.0.0 with fetch (extensions.md § 1): POST /upload/tus creates the
// upload, PATCHes send it chunk by chunk, and after a chunk that got no answer (or a 5xx, 408, 409, 423, 429, 460) a HEAD
// says where the server stands and the upload goes on from there. At the end GET {uploadUrl} gives the finalize body.
// With options.resume the upload's address is remembered, and the same file sent again later goes on from the
// server's offset (resume.ts).
import { errorFromResponse, ImghostError, networkError } from "./errors.js";
import { backoffMs, isAbort, retryAfterMs, sleep } from "./retry.js";
import { base64, type Transport } from "./transport.js";
import type { components } from "./schema.gen.js";
import type { FinalizeResponse } from "./types.js";
import type { UploadJob } from "./job.js";
import { inFlight, storeKey } from "./resume.js";

type TusUploadStatus = components["schemas"]["TusUploadStatus"];

const TUS_VERSION = "1.0.0";
export const DEFAULT_CHUNK_BYTES = 5 * 1024 * 1024;
/** Answers to a PATCH after which a HEAD and another try may succeed. */
const RESUMABLE = new Set([408, 409, 423, 429, 460]);

const encoder = new TextEncoder();

function metadataOf(job: UploadJob): string {
  const o = job.options;
  const pairs: [string, string | undefined][] = [
    ["filename", job.filename],
    ["filetype", job.mime],
    ["title", o.title],
    ["description", o.description],
    ["alt", o.alt],
    ["visibility", o.visibility],
    ["tags", o.tags?.length ? o.tags.join(",") : undefined],
    ["albumId", o.albumId],
    ["expiresIn", o.expiresIn === undefined ? undefined : String(o.expiresIn)],
  ];
  return pairs
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([k, v]) => `${k} ${base64(encoder.encode(v))}`)
    .join(",");
}

/** A new upload: POST /upload/tus with the length and the metadata. Its address, offset and the token to go on with. */
async function create(t: Transport, job: UploadJob, endpoint: string): Promise<Started> {
  const created = await t.send(
    "POST /upload/tus",
    endpoint,
    () => ({ method: "POST", headers: t.headers({ "tus-resumable": TUS_VERSION, "upload-length": String(job.source.size), "upload-metadata": metadataOf(job) }) }),
    job.signal,
  );
  if (created.status !== 201) throw await errorFromResponse(created);
  await created.arrayBuffer();
  const location = created.headers.get("location");
  if (!location) throw new ImghostError({ status: created.status, code: "missing_location", message: "POST /upload/tus answered 201 without a Location", requestId: created.headers.get("x-request-id") });
  // Anonymous callers continue with the upload's own token.
  const uploadToken = created.headers.get("upload-token");
  return { url: new URL(location, endpoint).href, offset: Number(created.headers.get("upload-offset") ?? 0), token: uploadToken ?? t.token, anonymous: uploadToken !== null };
}

type Started = { url: string; offset: number; token: string | undefined; anonymous: boolean };

/** The remembered upload of this file, where the server still has it for this caller (HEAD), else null. */
async function remembered(t: Transport, job: UploadJob, key: string): Promise<Started | null> {
  const store = job.options.resume!.store;
  const url = await store.get(key);
  if (!url || inFlight.has(url)) return null;
  const res = await t.send("HEAD {uploadUrl}", url, () => ({ method: "HEAD", headers: t.headers({ "tus-resumable": TUS_VERSION }) }), job.signal);
  await res.arrayBuffer().catch(() => undefined);
  if (res.status >= 500) throw await errorFromResponse(res);
  if (res.ok && Number(res.headers.get("upload-length")) === job.source.size) return { url, offset: offsetOf(res, "HEAD"), token: t.token, anonymous: false };
  // Expired, ended or another account's: a new upload instead.
  await store.remove(key);
  return null;
}

export async function tusUpload(t: Transport, job: UploadJob): Promise<FinalizeResponse> {
  const { source, signal } = job;
  const size = source.size;
  const chunkBytes = Math.max(1, Math.floor(job.options.chunkBytes ?? DEFAULT_CHUNK_BYTES));
  const endpoint = t.url("/upload/tus");
  const store = job.options.resume?.store;
  const key = store && job.resumeKey ? storeKey(endpoint, job.resumeKey) : undefined;
  const started = (key ? await remembered(t, job, key) : null) ?? (await create(t, job, endpoint));
  const { url, token } = started;
  if (key && !started.anonymous) await store!.set(key, url);
  inFlight.add(url);
  const tus = (extra: Record<string, string> = {}) => t.headers({ "tus-resumable": TUS_VERSION, ...extra }, token);

  const headOffset = async (): Promise<number> => {
    const res = await t.send("HEAD {uploadUrl}", url, () => ({ method: "HEAD", headers: tus() }), signal);
    if (!res.ok) throw await errorFromResponse(res);
    return offsetOf(res, "HEAD");
  };
  let failures = 0;
  let offset = 0;
  /** After a failed chunk: where the server stands. Bytes it kept of that chunk count as progress. */
  const resume = async () => {
    const before = offset;
    offset = await headOffset();
    if (offset > before) {
      failures = 0;
      job.progress(offset);
    }
  };
  const retrying = (status: number) => job.options.onRetry?.({ attempt: failures, of: t.policy.attempts - 1, status });

  try {
    offset = started.offset;
    job.progress(offset);
    while (offset < size) {
      const chunk = await source.read(offset, Math.min(size, offset + chunkBytes));
      // No Upload-Checksum: with one the server must keep none of a chunk cut off midway, without one it keeps what
      // came, and the transport (TCP, TLS) already guards the bytes on the way.
      const headers = tus({ "upload-offset": String(offset), "content-type": "application/offset+octet-stream" });
      let res: Response;
      try {
        res = await t.fetch(url, { method: "PATCH", headers, body: chunk as Uint8Array<ArrayBuffer>, signal });
      } catch (err) {
        if (isAbort(signal)) throw err;
        if (++failures >= t.policy.attempts) throw networkError(err, `PATCH ${url} at ${offset}`);
        retrying(0);
        await sleep(backoffMs(failures, t.policy), signal);
        await resume();
        continue;
      }
      if (res.status === 204) {
        offset = offsetOf(res, "PATCH");
        failures = 0;
        job.progress(offset);
        continue;
      }
      if (!(RESUMABLE.has(res.status) || res.status >= 500) || ++failures >= t.policy.attempts) throw await errorFromResponse(res);
      const asked = retryAfterMs(res);
      if (res.status === 429 && asked !== null && asked > t.policy.maxDelayMs) throw await errorFromResponse(res);
      await res.arrayBuffer().catch(() => undefined);
      retrying(res.status);
      await sleep(asked !== null && asked <= t.policy.maxDelayMs ? asked : backoffMs(failures, t.policy), signal);
      await resume();
    }
    const file = await finishedFile(t, url, tus, job);
    if (key) await store!.remove(key);
    return file;
  } catch (err) {
    // An upload the caller stopped is ended on the server too, which frees its reservation at once.
    if (isAbort(signal)) await t.fetch(url, { method: "DELETE", headers: tus(), signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    // A refusal is final: sending the file again starts over. Without an answer it is kept, to resume.
    if (key && (isAbort(signal) || (err instanceof ImghostError && err.status !== 0))) await Promise.resolve(store!.remove(key)).catch(() => undefined);
    throw err;
  } finally {
    inFlight.delete(url);
  }
}

function offsetOf(res: Response, what: string): number {
  const offset = Number(res.headers.get("upload-offset"));
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new ImghostError({ status: res.status, code: "missing_offset", message: `${what} answered without a valid Upload-Offset`, requestId: res.headers.get("x-request-id") });
  }
  return offset;
}

/** GET {uploadUrl} once every byte is in: the finalize body. The last PATCH has finalized by the time it answered. */
async function finishedFile(t: Transport, url: string, tus: () => Headers, job: UploadJob): Promise<FinalizeResponse> {
  for (let tries = 1; ; tries++) {
    const status = await t.json<TusUploadStatus>("GET {uploadUrl}", url, () => ({ method: "GET", headers: tus() }), job.signal);
    if (status.state === "complete" && status.file) return status.file;
    if (status.state === "failed") {
      throw new ImghostError({ status: 422, code: "upload_failed", message: `The upload was refused at completion (GET ${url} says failed)`, details: { uploadId: status.uploadId }, body: status });
    }
    // The last chunk's answer was lost while the server was still finalizing: ask again a little later.
    if (tries >= t.policy.attempts) {
      throw new ImghostError({ status: 0, code: "upload_incomplete", message: `Every byte was sent but the upload is still ${status.state} at ${status.offset} of ${status.length}`, body: status });
    }
    await sleep(backoffMs(tries, t.policy), job.signal);
  }
}
