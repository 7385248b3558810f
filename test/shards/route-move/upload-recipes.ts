// The twin writes of the upload routes that take an album (extensions.md § 8): presign, multipart init and the form,
// each naming its twin's album. A started upload is finished after its answer as its client would finish it (the
// move waits for uploads in flight), and the file must then be in that album: an album id from before the move
// still files uploads after it.
import { call } from "../../support/api";
import { makePng, sha256 } from "../../uploads/helpers";
import type { Fixture, Twin } from "./fixture";
import type { Answer, Req } from "./harness";

type Flow = "presign" | "multipart" | "form";
const PNG: Record<Flow, Record<Twin["side"], Uint8Array>> = {
  presign: { a: makePng(8, 8, 381), b: makePng(8, 8, 382) },
  multipart: { a: makePng(8, 8, 383), b: makePng(8, 8, 384) },
  form: { a: makePng(8, 8, 385), b: makePng(8, 8, 386) },
};
// Presign needs the digest in its (synchronously built) request.
const PRESIGN_SHA = { a: await sha256(PNG.presign.a), b: await sha256(PNG.presign.b) };

const json = (path: string, body: unknown): Req => ({ method: "POST", url: `http://localhost:8787/api/v1${path}`, body });

export const presignRequest = (t: Twin): Req =>
  json("/upload/presign", { filename: "presign.png", mime: "image/png", bytes: PNG.presign[t.side].length, sha256: PRESIGN_SHA[t.side], albumId: t.presignAlbum });

export const multipartRequest = (t: Twin): Req =>
  json("/upload/multipart/init", { filename: "multipart.png", mime: "image/png", totalBytes: PNG.multipart[t.side].length, tags: ["moved"], albumId: t.multipartAlbum });

/** multipart/form-data written out by hand (the recipe's request is built synchronously). */
export function formRequest(t: Twin): Req {
  const boundary = "route-move-form-boundary";
  const enc = new TextEncoder();
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="albumId"\r\n\r\n${t.formAlbum}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="tags"\r\n\r\nmoved,form\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="form.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  const png = PNG.form[t.side];
  const raw = new Uint8Array(head.length + png.length + tail.length);
  raw.set(head);
  raw.set(png, head.length);
  raw.set(tail, head.length + png.length);
  return { method: "POST", url: "http://localhost:8787/api/v1/upload/form", raw, headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(raw.length) } };
}

async function ok(what: string, reply: Promise<{ status: number; text: string; body: any; headers: Headers }>) {
  const res = await reply;
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

async function expectInAlbum(fx: Fixture, albumId: string, fileId: string) {
  const album = await ok("album read", call(`/albums/${albumId}`, { token: fx.owner.access }));
  if (!album.body.files.some((f: { id: string }) => f.id === fileId)) throw new Error(`the upload's file ${fileId} is not in its album ${albumId}`);
}

export async function finishPresign(answer: Answer, fx: Fixture, t: Twin) {
  const token = fx.owner.access;
  const pre = answer.body as { uploadId: string; fileId: string; storeKey: string };
  const put = await ok("PUT", call(`/upload/direct/${pre.fileId}`, { method: "PUT", token, raw: PNG.presign[t.side], headers: { "content-type": "image/png" } }));
  const { uploadId, fileId, storeKey } = pre;
  await ok("finalize", call("/upload/finalize", { token, body: { uploadId, fileId, storeKey, storeEtag: put.headers.get("etag") } }));
  await expectInAlbum(fx, t.presignAlbum, pre.fileId);
}

export async function finishMultipart(answer: Answer, fx: Fixture, t: Twin) {
  const token = fx.owner.access;
  const init = answer.body as { uploadId: string; fileId: string; storeKey: string };
  const part = await ok("part", call(`/upload/multipart/${init.uploadId}/parts/1`, { method: "PUT", token, raw: PNG.multipart[t.side], headers: { "content-type": "application/octet-stream" } }));
  const { uploadId, fileId, storeKey } = init;
  const done = await ok("complete", call("/upload/multipart/complete", { token, body: { uploadId, fileId, storeKey, parts: [part.body] } }));
  await ok("finalize", call("/upload/finalize", { token, body: { uploadId, fileId, storeKey, storeEtag: done.body.storeEtag } }));
  await expectInAlbum(fx, t.multipartAlbum, fileId);
}

export async function formInAlbum(answer: Answer, fx: Fixture, t: Twin) {
  await expectInAlbum(fx, t.formAlbum, (answer.body as { fileId: string }).fileId);
}
