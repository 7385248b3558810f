// The five flows that create a file (extensions.md § 8), each taking the file's metadata its own way: JSON fields
// (presign, multipart init, POST /upload/url), form fields and Upload-Metadata keys (tags comma-separated, numbers
// as text). `start` makes the upload; `finish` sends what is left and answers the file's id.
import { call, type Reply } from "../support/api";
import { finalize, putDirect, randomIp, sha256 } from "./helpers";
import { fakeRemote, image, uploadUrl } from "./remote";
import { create as tusCreate } from "./tus/support";

export type Caller = { token?: string; ip?: string };
export type Meta = Record<string, unknown>;
export type Flow = {
  name: string;
  start(caller: Caller, meta: Meta, bytes: Uint8Array): Promise<Reply>;
  /** After a 201 start: the rest of the flow, as the creator; the file's id. */
  finish(caller: Caller, started: Reply, bytes: Uint8Array): Promise<string>;
};

/** Every URL the upload-from-a-link flow fetched: refused creations must fetch nothing. */
export const fetchedUrls: string[] = [];

const asText = (v: unknown) => (Array.isArray(v) ? v.join(",") : String(v));
const textFields = (meta: Meta) => Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, asText(v)]));
/** Anonymous callers go on with the token the start answered. */
const tokenOf = (caller: Caller, started: Reply) => caller.token ?? started.body.uploadToken;
const ipOf = (caller: Caller) => caller.ip ?? (caller.token ? undefined : randomIp());

function ok(res: Reply, what: string): Reply {
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

const presign: Flow = {
  name: "presign",
  start: async (caller, meta, bytes) =>
    call("/upload/presign", { token: caller.token, ip: ipOf(caller), body: { filename: "p.png", mime: "image/png", bytes: bytes.length, sha256: await sha256(bytes), ...meta } }),
  async finish(caller, started, bytes) {
    const token = tokenOf(caller, started);
    const put = ok(await putDirect(started.body.fileId, bytes, token), "PUT");
    ok(await finalize(started.body, put.headers.get("etag")!, token), "finalize");
    return started.body.fileId;
  },
};

const multipart: Flow = {
  name: "multipart",
  start: (caller, meta, bytes) => call("/upload/multipart/init", { token: caller.token, ip: ipOf(caller), body: { filename: "m.png", mime: "image/png", totalBytes: bytes.length, ...meta } }),
  async finish(caller, started, bytes) {
    const token = tokenOf(caller, started);
    const part = ok(await call(started.body.parts[0].url, { method: "PUT", raw: bytes, token, headers: { "content-type": "application/octet-stream" } }), "part");
    const { uploadId, fileId, storeKey } = started.body;
    const done = ok(await call("/upload/multipart/complete", { token, body: { uploadId, fileId, storeKey, parts: [part.body] } }), "complete");
    ok(await finalize(started.body, done.body.storeEtag, token), "finalize");
    return fileId;
  },
};

const form: Flow = {
  name: "form",
  async start(caller, meta, bytes) {
    const f = new FormData();
    f.set("file", new File([bytes], "f.png", { type: "image/png" }));
    for (const [k, v] of Object.entries(textFields(meta))) f.set(k, v);
    // Serialised first, so the request carries a Content-Length as ShareX and curl send it.
    const req = new Request("http://x/", { method: "POST", body: f });
    const raw = new Uint8Array(await req.arrayBuffer());
    const headers = { "content-type": req.headers.get("content-type")!, "content-length": String(raw.byteLength) };
    return call("/upload/form", { method: "POST", raw, token: caller.token, ip: ipOf(caller) ?? randomIp(), headers });
  },
  finish: async (_caller, started) => started.body.fileId,
};

const url: Flow = {
  name: "url",
  async start(caller, meta, bytes) {
    const remote = fakeRemote(() => image(bytes));
    try {
      return await uploadUrl({ url: "https://example.com/u.png", ...meta }, caller.token);
    } finally {
      fetchedUrls.push(...remote.fetched);
      remote.restore();
    }
  },
  finish: async (_caller, started) => started.body.fileId,
};

const tus: Flow = {
  name: "tus",
  // creation-with-upload: the whole file is the first chunk, so the creation also finalizes.
  start: (caller, meta, bytes) => tusCreate({ token: caller.token, ip: ipOf(caller) }, bytes.length, { filename: "t.png", ...textFields(meta) }, { body: bytes }),
  finish: async (_caller, started) => started.headers.get("upload-file-id")!,
};

export const FLOWS: Flow[] = [presign, multipart, form, url, tus];
