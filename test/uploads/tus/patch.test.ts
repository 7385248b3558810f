// PATCH, HEAD and GET of a tus upload (extensions.md § 1): chunks of any size, offsets, checksums, completion
// through finalize, and who may touch an upload.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, verifiedUser, type TestUser } from "../../support/api";
import { SMALL_PNG, fileRow, makePng, objectExists, sha256, storage, uploadRow } from "../helpers";
import { MiB, TUS, create, head, patch, pathOf, sendChunks, sha1Base64, status } from "./support";

let owner: TestUser;
let stranger: TestUser;
let uploadKey: string;
let readKey: string;
let revokedKey: string;
// A real PNG of about 6.5 MB: one 5 MiB part and a remainder.
let PNG: Uint8Array;

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await verifiedUser();
  uploadKey = (await createKey(owner, { permissions: ["upload"] })).key;
  readKey = (await createKey(owner, { permissions: ["read"] })).key;
  const revoked = await createKey(owner, { permissions: ["upload"] });
  await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access });
  revokedKey = revoked.key;
  PNG = makePng(1000, 2200, 3);
});

const me = () => ({ token: owner.access });
const idOf = (path: string) => path.split("/").pop()!;

async function started(length = PNG.length, fields: Record<string, string> = { filename: "big.png" }) {
  const res = await create(me(), length, fields);
  expect(res.status, res.text).toBe(201);
  return pathOf(res);
}

describe("PATCH /upload/tus/:id", () => {
  it("chunks of odd sizes, across part boundaries, end in a finalized file with the same bytes", async () => {
    const path = await started();
    const sizes = [1, 700_000, 3 * MiB, 2 * MiB + 5, 17];
    let at = 0;
    for (const n of sizes) {
      const res = await patch(me(), path, at, PNG.subarray(at, at + n));
      expect(res.status, res.text).toBe(204);
      at += n;
      expect(res.headers.get("upload-offset")).toBe(String(at));
      expect(res.headers.get("upload-expires")).toBeTruthy();
      expect(res.headers.get("upload-file-id")).toBeNull();
    }
    const last = await sendChunks(me(), path, PNG, 4 * MiB, at);
    expect(last.status, last.text).toBe(204);
    expect(last.headers.get("upload-offset")).toBe(String(PNG.length));
    const fileId = last.headers.get("upload-file-id")!;
    expect(last.headers.get("upload-file-url")).toBe(`http://localhost:8787/i/${fileId}`);

    const s = await status(me(), path);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ uploadId: idOf(path), offset: PNG.length, length: PNG.length, state: "complete", file: { fileId, bytes: PNG.length, mime: "image/png" } });
    const file = (await fileRow(fileId))!;
    expect(file).toMatchObject({ state: "finalized", sha256: await sha256(PNG) });
    const stored = await env.BUCKET.get(file.store_key);
    expect(await sha256(new Uint8Array(await stored!.arrayBuffer()))).toBe(await sha256(PNG));
    expect(await storage(owner.id)).toMatchObject({ reserved: 0 });
    expect(((await uploadRow(idOf(path)))!).state).toBe("finalized");
  });

  it("the same bytes again find the first file as an exact duplicate", async () => {
    const png = makePng(40, 40, 99);
    const first = await sendChunks(me(), await started(png.length), png, 1000);
    const secondPath = await started(png.length);
    expect((await sendChunks(me(), secondPath, png, 1000)).status).toBe(204);
    const s = await status(me(), secondPath);
    expect(s.body.file.duplicates).toEqual(expect.arrayContaining([expect.objectContaining({ fileId: first.headers.get("upload-file-id"), match: "exact" })]));
  });

  it("409 when Upload-Offset is not the server's, with the offset to resume from", async () => {
    const path = await started();
    expect((await patch(me(), path, 0, PNG.subarray(0, 1000))).status).toBe(204);
    for (const offset of [0, 999, 1001]) {
      const res = await patch(me(), path, offset, PNG.subarray(offset, offset + 10));
      expect(res.status).toBe(409);
      expect(res.body.details).toMatchObject({ code: "offset_mismatch", offset: 1000 });
    }
    expect((await head(me(), path)).headers.get("upload-offset")).toBe("1000");
  });

  it("415 unless the body is application/offset+octet-stream; 400 without Upload-Offset; 412 without Tus-Resumable", async () => {
    const path = await started();
    const wrongType = await patch(me(), path, 0, PNG.subarray(0, 10), { "content-type": "application/octet-stream" });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body).toMatchObject({ error: "Unsupported Media Type", details: { code: "offset_octet_stream_required" } });
    const noOffset = await call(path, { method: "PATCH", token: owner.access, headers: { ...TUS, "content-type": "application/offset+octet-stream" }, raw: PNG.subarray(0, 10) });
    expect(noOffset.body.details).toMatchObject({ code: "invalid_tus_header", header: "Upload-Offset" });
    const noVersion = await call(path, { method: "PATCH", token: owner.access, headers: { "content-type": "application/offset+octet-stream", "upload-offset": "0" }, raw: PNG.subarray(0, 10) });
    expect(noVersion.status).toBe(412);
    expect((await head(me(), path)).headers.get("upload-offset")).toBe("0");
  });

  it("460 on an Upload-Checksum mismatch keeps none of the chunk; a matching sha1 or sha256 is kept", async () => {
    const path = await started();
    const chunk = PNG.subarray(0, 6 * MiB); // crosses a part boundary: the part uploaded to R2 is not kept either
    const wrong = await patch(me(), path, 0, chunk, { "upload-checksum": `sha1 ${await sha1Base64(PNG.subarray(1, 11))}` });
    expect(wrong.status).toBe(460);
    expect(wrong.body).toMatchObject({ error: "Checksum Mismatch", details: { code: "checksum_mismatch" } });
    expect((await head(me(), path)).headers.get("upload-offset")).toBe("0");
    const sha1 = await patch(me(), path, 0, chunk, { "upload-checksum": `sha1 ${await sha1Base64(chunk)}` });
    expect(sha1.status).toBe(204);
    const rest = PNG.subarray(6 * MiB);
    const digest = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", rest))));
    const last = await patch(me(), path, 6 * MiB, rest, { "upload-checksum": `sha256 ${digest}` });
    expect(last.status, last.text).toBe(204);
    const file = (await fileRow(last.headers.get("upload-file-id")!))!;
    expect(file.sha256).toBe(await sha256(PNG));
    expect((await patch(me(), await started(), 0, chunk, { "upload-checksum": "md5 AAAA" })).body.details).toMatchObject({ code: "invalid_tus_header", header: "Upload-Checksum" });
  });

  it("413 for a chunk that would end past Upload-Length", async () => {
    const path = await started(1000);
    const res = await patch(me(), path, 0, PNG.subarray(0, 1001));
    expect(res.status).toBe(413);
    expect(res.body.details).toMatchObject({ code: "upload_length_exceeded", length: 1000 });
  });

  it("bytes past Upload-Length on a completed upload: 413 upload_length_exceeded as on an open one, none kept", async () => {
    const path = await started(SMALL_PNG.length, { filename: "small.png" });
    const done = await patch(me(), path, 0, SMALL_PNG);
    expect(done.status).toBe(204);
    const extra = new Uint8Array(10).fill(1);
    for (const body of [extra, new Blob([extra]).stream()]) {
      const res = await patch(me(), path, SMALL_PNG.length, body);
      expect(res.status, res.text).toBe(413);
      expect(res.body.details).toMatchObject({ code: "upload_length_exceeded", length: SMALL_PNG.length });
    }
    const file = (await fileRow(done.headers.get("upload-file-id")!))!;
    expect(file.bytes).toBe(SMALL_PNG.length);
    expect((await env.BUCKET.head(file.store_key))!.size).toBe(SMALL_PNG.length);
    expect((await status(me(), path)).body).toMatchObject({ state: "complete", offset: SMALL_PNG.length });
    // An empty PATCH at the end is still a retried last chunk: the file again.
    expect((await patch(me(), path, SMALL_PNG.length, new Uint8Array())).headers.get("upload-file-id")).toBe(done.headers.get("upload-file-id"));
  });

  it("a completion whose bytes are not the declared type fails: 415, GET says failed, nothing kept, reservation freed", async () => {
    const before = await storage(owner.id);
    const notPng = new Uint8Array(6 * MiB).fill(7);
    const path = await started(notPng.length);
    const mid = await patch(me(), path, 0, notPng.subarray(0, 5 * MiB + 1));
    expect(mid.status).toBe(204);
    const last = await patch(me(), path, 5 * MiB + 1, notPng.subarray(5 * MiB + 1));
    expect(last.status).toBe(415);
    expect(last.body.details.code).toBe("magic_mismatch");
    const s = await status(me(), path);
    expect(s.body).toMatchObject({ state: "failed", file: null });
    const row = (await uploadRow(idOf(path)))!;
    expect(row.state).toBe("failed");
    const file = (await fileRow(row.file_id))!;
    expect(await objectExists(file.store_key)).toBe(false);
    expect(await storage(owner.id)).toEqual(before);
  });

  it("a retried last PATCH (its answer lost) answers the file again", async () => {
    const path = await started(SMALL_PNG.length, { filename: "small.png" });
    const first = await patch(me(), path, 0, SMALL_PNG);
    expect(first.status).toBe(204);
    const retry = await patch(me(), path, SMALL_PNG.length, new Uint8Array());
    expect(retry.status).toBe(204);
    expect(retry.headers.get("upload-file-id")).toBe(first.headers.get("upload-file-id"));
    expect((await patch(me(), path, 0, SMALL_PNG)).status).toBe(409);
  });

  it("a second PATCH waits for the first, then finds the offset moved (409)", async () => {
    const path = await started();
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const slow = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
    const first = patch(me(), path, 0, slow, { "content-length": "2000" });
    feed.enqueue(PNG.subarray(0, 1000));
    const second = patch(me(), path, 0, PNG.subarray(0, 10));
    feed.enqueue(PNG.subarray(1000, 2000));
    feed.close();
    expect((await first).status).toBe(204);
    const res = await second;
    expect(res.status).toBe(409);
    expect(res.body.details.offset).toBe(2000);
  });
});

describe("who may touch a tus upload", () => {
  it("the owner by session or `upload` key; anyone else 404; a key without `upload` 403; a revoked key 401", async () => {
    const path = await started();
    expect((await patch({ token: uploadKey }, path, 0, PNG.subarray(0, 100))).status).toBe(204);
    expect((await head({ token: uploadKey }, path)).headers.get("upload-offset")).toBe("100");
    for (const caller of [{ token: stranger.access }, {}]) {
      expect((await head(caller, path)).status).toBe(404);
      expect((await patch(caller, path, 100, PNG.subarray(100, 200))).status).toBe(404);
      const s = await status(caller, path);
      expect(s.status).toBe(404);
      expect(s.body.details.code).toBe("upload_not_found");
      expect((await call(path, { method: "DELETE", token: caller.token, headers: TUS })).status).toBe(404);
    }
    expect((await patch({ token: readKey }, path, 100, PNG.subarray(100, 200))).status).toBe(403);
    expect((await head({ token: revokedKey }, path)).status).toBe(401);
    expect((await head(me(), "/upload/tus/upl_nosuchupload000000000")).status).toBe(404);
    expect((await head(me(), path)).headers.get("upload-offset")).toBe("100");
  });

  it("an anonymous creator continues with its Upload-Token; another upload's token gets 404", async () => {
    const a = await create({}, SMALL_PNG.length, { filename: "a.png" });
    const b = await create({}, SMALL_PNG.length, { filename: "b.png" });
    const tokenA = a.headers.get("upload-token")!;
    const tokenB = b.headers.get("upload-token")!;
    expect((await patch({ token: tokenB }, pathOf(a), 0, SMALL_PNG)).status).toBe(404);
    const done = await patch({ token: tokenA }, pathOf(a), 0, SMALL_PNG);
    expect(done.status, done.text).toBe(204);
    expect(done.headers.get("upload-file-id")).toMatch(/^file_/);
    expect((await status({ token: tokenA }, pathOf(a))).body.state).toBe("complete");
  });
});
