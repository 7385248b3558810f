// Shared by the client's tests: a `wrangler dev` of the app (the repository's helpers, as the browser tests use
// them), verified users with API keys, small and large PNGs, and a fetch that records every request the client
// sends and can misbehave on purpose (a connection dropped mid-PATCH, a 429 of its own) in front of the real one.
import { createHash } from "node:crypto";
import { appVars, startWorker, within } from "../../../bench/lib/index.mjs";
import { makePng, pngOfSize } from "../../../bench/lib/png.mjs";
import { benchUser } from "../../../bench/lib/users.mjs";
import { suitePort } from "../../../test/browser/support.mjs";

export { makePng, pngOfSize, within };
export const MiB = 1024 * 1024;
export const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * `wrangler dev` on the suite's port (test/browser/support.mjs suitePort; the packages' suites take offsets 30 and
 * up: client uploads 30, client API 31, the README example 32), with fresh local state. Finalize answers without waiting for the analysis.
 */
export async function startServer(offset, vars = {}) {
  const port = suitePort(offset);
  const worker = await startWorker({ config: "wrangler.toml", port, vars: { ...appVars(port), ENVIRONMENT: "development", FINALIZE_WAIT_MS: "0", ...vars } });
  return { worker, baseUrl: `${worker.url}/api/v1` };
}

/** A verified user with an API key of `permissions`; `{ access, key, userId }`. */
export function newUser(server, permissions = ["read", "upload", "manage"]) {
  return within("signing up a user with an API key", benchUser(server.worker, permissions), 60_000);
}

/** A request as the recorder saw it, and its answer. */
function describe(input, init) {
  const request = input instanceof Request ? input : null;
  const url = String(request ? request.url : input);
  const headers = new Headers(init?.headers ?? request?.headers);
  return {
    method: (init?.method ?? request?.method ?? "GET").toUpperCase(),
    url,
    path: new URL(url).pathname.replace(/^\/api\/v1/, ""),
    offset: headers.get("upload-offset") === null ? null : Number(headers.get("upload-offset")),
    authorization: headers.get("authorization"),
    at: Date.now(),
  };
}

/**
 * A fetch for createClient({ fetch }) that records each request (`requests`: method, path, offset, at, then status,
 * answeredOffset, retryAfter, requestId or error) and asks `intercept(entry, input, init)` first: an answer of its own, or null
 * to pass the request on to the real fetch.
 */
export function recordingFetch(intercept = async () => null) {
  const requests = [];
  const fetchFn = async (input, init) => {
    const entry = describe(input, init);
    requests.push(entry);
    try {
      const res = (await intercept(entry, input, init)) ?? (await fetch(input, init));
      entry.status = res.status;
      entry.answeredOffset = res.headers.get("upload-offset") === null ? null : Number(res.headers.get("upload-offset"));
      entry.retryAfter = res.headers.get("retry-after");
      entry.requestId = res.headers.get("x-request-id");
      return res;
    } catch (err) {
      entry.error = err.message;
      throw err;
    }
  };
  return { fetch: fetchFn, requests };
}

/**
 * An intercept that drops the connection once, in the middle of the first PATCH at `fromOffset` or later: half of the
 * chunk goes out, then the body breaks off and the request fails as fetch fails when a connection is lost
 * (TypeError "fetch failed"). `dropped` tells where. With `awaitKept`, the failure is reported only once the server
 * has kept part of the cut chunk (HEAD past the chunk's start; polled, bounded), so the client resumes mid-chunk.
 * The cut request goes out as a stream; the client's own chunks have a Content-Length.
 */
export function dropOncePatch(fromOffset, { awaitKept = false } = {}) {
  const state = { dropped: null };
  state.intercept = async (entry, input, init) => {
    if (state.dropped || entry.method !== "PATCH" || entry.offset < fromOffset) return null;
    const body = init.body;
    const half = body.subarray(0, Math.floor(body.byteLength / 2));
    state.dropped = { offset: entry.offset, sent: half.byteLength, chunk: body.byteLength };
    // The body hands over half the chunk and then never ends; the request is aborted a moment later, which closes
    // the connection with the rest of the chunk still owed (as a lost connection does).
    const abort = new AbortController();
    let handedOver = false;
    const stream = new ReadableStream({
      pull(controller) {
        if (handedOver) return new Promise(() => setTimeout(() => abort.abort(), 300));
        handedOver = true;
        controller.enqueue(half);
      },
    });
    let res;
    try {
      // Sent as a stream (no Content-Length): the server reads such a body piece by piece and keeps what arrives of
      // it, where a sized chunk of up to 16 MiB is read whole and kept all or nothing (src/uploads/tus/service.ts).
      res = await fetch(entry.url, { ...init, body: stream, duplex: "half", signal: abort.signal });
    } catch (err) {
      if (awaitKept) state.dropped.kept = await keptPast(entry.url, init.headers, entry.offset);
      throw new TypeError("fetch failed", { cause: err });
    }
    throw new Error(`the cut PATCH was answered ${res.status}`);
  };
  return state;
}

/** HEAD's Upload-Offset once it is past `start` (the server has seen the body break and kept what came), bounded. */
async function keptPast(url, requestHeaders, start) {
  const headers = new Headers(requestHeaders);
  for (const name of ["upload-offset", "content-type", "upload-checksum"]) headers.delete(name);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(url, { method: "HEAD", headers, signal: AbortSignal.timeout(10_000) });
    const offset = Number(res.headers.get("upload-offset"));
    if (offset > start) return offset;
    if (Date.now() > deadline) throw new Error(`HEAD ${url} still at ${offset} 20 s after the cut at ${start}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The stored bytes of a file, as its owner downloads them. */
export async function download(baseUrl, key, fileId) {
  const res = await within(`downloading ${fileId}`, fetch(`${baseUrl}/files/${fileId}/download`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({ status: r.status, bytes: Buffer.from(await r.arrayBuffer()) })), 60_000);
  if (res.status !== 200) throw new Error(`download of ${fileId}: ${res.status}`);
  return res.bytes;
}

/**
 * An age-restricted file of the key's account: presign, PUT and finalize with a client NSFW hint of 0.99, which the
 * server keeps (a client's score only ever raises the server's: decisions.md § Uploads). The file's id.
 */
export async function uploadFlagged(baseUrl, key, bytes, filename = "flagged.png") {
  const json = async (p, body) => {
    const res = await fetch(`${baseUrl}${p}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const pre = await json("/upload/presign", { filename, mime: "image/png", bytes: bytes.length, sha256: sha256(bytes), title: "Flagged" });
  const put = await fetch(pre.uploadUrl, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "image/png" }, body: bytes });
  if (!put.ok) throw new Error(`PUT: ${put.status} ${await put.text()}`);
  const fin = await json("/upload/finalize", { uploadId: pre.uploadId, fileId: pre.fileId, storeKey: pre.storeKey, storeEtag: put.headers.get("etag"), nsfwScore: 0.99 });
  if (!fin.ageRestricted) throw new Error(`the file was not age-restricted: ${JSON.stringify(fin)}`);
  return fin.fileId;
}
