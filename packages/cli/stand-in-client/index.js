// STAND-IN for the real @imghost/client (packages/client), so the CLI can be written and tested against a real
// server before the library lands. Delete this folder at the merge (and its entry in the root `workspaces`).
// It keeps to the agreed surface with the least code: every upload goes presign -> PUT -> finalize with the
// whole file in memory (no tus, no resume), tags and album are set after finalize, and retries are simple.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";

const MIME_BY_EXTENSION = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", avif: "image/avif", bmp: "image/bmp" };
const PUT_CHUNK = 64 * 1024;

export class ImghostError extends Error {
  constructor({ message, status, code, requestId, details = {}, body = null }) {
    super(message);
    this.name = "ImghostError";
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.details = details;
    this.body = body;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function errorFrom(res) {
  const text = await res.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {}
  const details = body && typeof body.details === "object" && body.details ? body.details : {};
  const code = res.status === 429 ? "rate_limited" : typeof details.code === "string" ? details.code : `http_${res.status}`;
  const message = body?.message ?? body?.error ?? (text.slice(0, 200) || res.statusText);
  return new ImghostError({ message, status: res.status, code, requestId: res.headers.get("x-request-id"), details, body });
}

export function createClient({ baseUrl, apiKey, accessToken, fetch: doFetch = globalThis.fetch, retry = {} }) {
  const base = baseUrl.replace(/\/+$/, "");
  const token = apiKey ?? accessToken;
  const { attempts = 5, baseDelayMs = 500, maxDelayMs = 30_000 } = retry;

  /** One API call with the agreed retries (none with `once`). */
  async function call(method, url, { json, body, headers = {}, once = false } = {}) {
    // A stream body is made afresh for each try (`body` is a function then); a JSON body is a string.
    const init = () => ({
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      ...(json !== undefined ? { body: JSON.stringify(json) } : body ? { body: body(), duplex: "half" } : {}),
    });
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        res = await doFetch(url.startsWith("http") ? url : base + url, init());
      } catch (err) {
        if (once || attempt >= attempts) throw new ImghostError({ message: `network error: ${err.message}`, status: 0, code: "network_error", requestId: null });
        await sleep(Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1) * (1 + Math.random())));
        continue;
      }
      if (res.ok) return res;
      const retriable = res.status === 429 || res.status >= 500;
      if (once || !retriable || attempt >= attempts) throw await errorFrom(res);
      const after = Number(res.headers.get("retry-after"));
      await res.body?.cancel();
      await sleep(Math.min(maxDelayMs, res.status === 429 && after > 0 ? after * 1000 : baseDelayMs * 2 ** (attempt - 1) * (1 + Math.random())));
    }
  }
  const getJson = async (method, url, opts) => (await call(method, url, opts)).json();

  async function bytesOf(input) {
    if (typeof input === "string") return { bytes: new Uint8Array(await readFile(input)), name: path.basename(input) };
    if (input instanceof Uint8Array) return { bytes: input };
    if (input instanceof ArrayBuffer) return { bytes: new Uint8Array(input) };
    if (input instanceof Blob) return { bytes: new Uint8Array(await input.arrayBuffer()), name: "name" in input ? String(input.name) : undefined };
    const parts = [];
    for await (const part of input) parts.push(part);
    return { bytes: new Uint8Array(Buffer.concat(parts)) };
  }

  /** The PUT body as a stream, so progress follows what fetch has taken of it. */
  const putBody = (bytes, onProgress) => () => {
    let at = 0;
    return new ReadableStream({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        const end = Math.min(bytes.length, at + PUT_CHUNK);
        controller.enqueue(bytes.subarray(at, end));
        at = end;
        onProgress?.({ sentBytes: at, totalBytes: bytes.length });
      },
    });
  };

  async function upload(input, options = {}) {
    const { bytes, name } = await bytesOf(input);
    const filename = options.filename ?? name;
    if (!filename) throw new TypeError("upload: give options.filename for an input without a name");
    const mime = options.mime ?? MIME_BY_EXTENSION[path.extname(filename).slice(1).toLowerCase()] ?? "application/octet-stream";
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const { title, description, visibility, expiresIn } = options;
    const presign = await getJson("POST", "/upload/presign", { json: { filename, mime, bytes: bytes.length, sha256, title, description, visibility, expiresIn } });
    options.onProgress?.({ sentBytes: 0, totalBytes: bytes.length });
    const put = await call("PUT", presign.uploadUrl, { body: putBody(bytes, options.onProgress), headers: { "content-type": mime }, once: true });
    const storeEtag = put.headers.get("etag") ?? (await put.json()).etag;
    const finalized = await getJson("POST", "/upload/finalize", { json: { uploadId: presign.uploadId, fileId: presign.fileId, storeKey: presign.storeKey, storeEtag } });
    if (options.tags?.length) await call("PATCH", `/files/${presign.fileId}`, { json: { tags: options.tags } });
    if (options.albumId) await call("POST", `/albums/${encodeURIComponent(options.albumId)}/files`, { json: { fileIds: [presign.fileId] } });
    return finalized;
  }

  /** Every page of a { <key>: [...], pagination: { hasMore } } list. */
  async function* pages(url, key, query = {}) {
    const limit = query.limit ?? 100;
    for (let offset = 0; ; offset += limit) {
      const params = new URLSearchParams(Object.entries({ ...query, limit, offset }).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
      const page = await getJson("GET", `${url}?${params}`);
      yield* page[key];
      if (!page.pagination?.hasMore || page[key].length === 0) return;
    }
  }

  return {
    upload,
    files: {
      list: (query = {}) => pages("/files", "files", query),
      get: (id) => getJson("GET", `/files/${encodeURIComponent(id)}`),
      update: async (id, patch) => (await getJson("PATCH", `/files/${encodeURIComponent(id)}`, { json: patch })).file,
      delete: async (id) => void (await call("DELETE", `/files/${encodeURIComponent(id)}`)),
    },
    albums: {
      create: (body) => getJson("POST", "/albums", { json: body }),
      addFiles: (albumId, fileIds) => getJson("POST", `/albums/${encodeURIComponent(albumId)}/files`, { json: { fileIds } }),
      list: () => pages("/albums", "albums"),
    },
  };
}
