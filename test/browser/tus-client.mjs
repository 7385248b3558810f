// tus-js-client (from npm, its Node build) driven the way the end-to-end tests need it: one run of an Upload as a
// promise that ends in success, an error, or a stop the test asked for (upload.abort() from inside a callback),
// with every request it sent recorded. Every wait is bounded and names its step.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { DefaultHttpStack, FileUrlStorage, Upload } from "tus-js-client";
import { fetchWithin, within } from "../../bench/lib/index.mjs";

export const MiB = 1024 * 1024;
export const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** A tus-js-client URL store in `dir` (what a page's localStorage is to the browser build). */
export function urlStore(dir) {
  const file = path.join(dir, "tus-urls.json");
  writeFileSync(file, "{}");
  return new FileUrlStorage(file);
}

/**
 * tus-js-client's own Node HTTP stack, except that the first PATCH at `from` or later sends half its chunk and
 * then calls `onCut` (which aborts the upload) instead of the rest: a connection lost in the middle of a chunk,
 * at a known place. tus-js-client reports progress at most every 100 ms, too seldom to abort mid-chunk from it.
 */
class CuttingStack extends DefaultHttpStack {
  constructor(from, onCut) {
    super();
    this.from = from;
    this.onCut = onCut;
  }

  createRequest(method, url) {
    const req = super.createRequest(method, url);
    const send = req.send.bind(req);
    req.send = (body) => {
      if (method !== "PATCH" || this.from === null || !(body instanceof Uint8Array) || Number(req.getHeader("Upload-Offset")) < this.from) return send(body);
      this.from = null;
      const half = Math.floor(body.length / 2);
      let given = 0;
      const stream = new Readable({
        read: () => {
          if (given >= half) return this.onCut(Number(req.getHeader("Upload-Offset")), given); // and never ends
          const piece = body.subarray(given, Math.min(half, given + 64 * 1024));
          given += piece.length;
          stream.push(piece);
        },
      });
      return send(stream);
    };
    return req;
  }
}

/**
 * One run of a tus-js-client Upload of `file` to `endpoint` as the holder of `token`, resumed from the upload in
 * `storage` when there is one (findPreviousUploads, resumeFromPreviousUpload). Stops (upload.abort()) between two
 * chunks once `stopAtAccepted` bytes are answered, or, with `cutChunkFrom`, halfway through the first chunk at that
 * offset or later (CuttingStack).
 * Answers { outcome: "success" | "stopped", requests, accepted, url, resumedFrom }, and `lastResponse` on success or
 * `sent` (bytes sent when it stopped) and `chunkStart` (where the chunk being sent began) on a stop.
 */
export async function runTus(step, { endpoint, token, file, storage, chunkSize = 3 * MiB, filename = "big.png", stopAtAccepted = Infinity, cutChunkFrom = null, timeoutMs = 150_000 }) {
  const requests = [];
  let upload;
  let accepted = 0;
  const ended = new Promise((resolve, reject) => {
    const stop = (sent, chunkStart) => {
      upload.abort();
      resolve({ outcome: "stopped", sent, chunkStart });
    };
    upload = new Upload(file, {
      endpoint,
      httpStack: new CuttingStack(cutChunkFrom, (start, given) => stop(start + given, start)),
      chunkSize,
      headers: { Authorization: `Bearer ${token}` },
      metadata: { filename, filetype: "image/png" },
      urlStorage: storage,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      // A 409 or 423 (another PATCH still being received) is retried after a HEAD, as tus-js-client does by default.
      retryDelays: [0, 500, 1000, 2000],
      onBeforeRequest: (req) => {
        requests.push({ method: req.getMethod(), offset: req.getHeader("Upload-Offset") ?? null });
      },
      onAfterResponse: (req, res) => {
        const last = requests.findLast((r) => r.method === req.getMethod());
        if (last) Object.assign(last, { status: res.getStatus(), answeredOffset: res.getHeader("Upload-Offset") ?? null });
      },
      onChunkComplete: (chunk, acceptedNow) => {
        accepted = acceptedNow;
        // Aborted here, tus-js-client sends no further PATCH (it checks before each one).
        if (acceptedNow < file.length && acceptedNow >= stopAtAccepted) stop(acceptedNow, acceptedNow - chunk);
      },
      onSuccess: ({ lastResponse }) => resolve({ outcome: "success", lastResponse }),
      onError: reject,
    });
  });
  const previous = await within(`${step}: findPreviousUploads`, upload.findPreviousUploads(), 10_000);
  if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
  upload.start();
  try {
    const result = await within(step, ended, timeoutMs, () => upload.abort());
    return { ...result, requests, accepted, url: upload.url, resumedFrom: previous[0]?.uploadUrl ?? null };
  } catch (err) {
    throw new Error(`${step}: ${err.message} (requests: ${JSON.stringify(requests)})`);
  }
}

/** tus HEAD of `url`: the server's offset and length. */
export async function headOffset(url, token) {
  const { res } = await fetchWithin(url, { method: "HEAD", headers: { authorization: `Bearer ${token}`, "tus-resumable": "1.0.0" } }, 30_000);
  if (res.status !== 200) throw new Error(`HEAD ${url}: ${res.status}`);
  return { offset: Number(res.headers.get("upload-offset")), length: Number(res.headers.get("upload-length")) };
}

/** GET `url` as the holder of `token`: the status and the body (JSON when it parses, else its bytes). */
export async function getWithin(url, token) {
  const { res, body } = await fetchWithin(url, { headers: { authorization: `Bearer ${token}` } }, 60_000);
  const bytes = Buffer.from(body);
  let json = null;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    /* bytes */
  }
  return { status: res.status, json, bytes, headers: res.headers };
}
