// @imghost/client's upload() against `wrangler dev` (issue 28, extensions.md § 6): every kind of input, direct below
// the tus threshold and tus above it, and a tus upload whose connection drops mid-chunk and resumes. Each stored
// file is downloaded again and must hash like its source.
import { createReadStream, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@imghost/client";
import { scratchDir } from "../../../test/browser/support.mjs";
import { MiB, download, dropOncePatch, makePng, newUser, pngOfSize, recordingFetch, sha256, startServer, within } from "./support.mjs";

let server;
let user;

beforeAll(async () => {
  server = await startServer(30);
  user = await newUser(server);
});

afterAll(async () => {
  await server?.worker.stop();
});

/** A client as `user`, its requests recorded; retries quick so a resumed upload does not wait long. */
function client(intercept) {
  const recorder = recordingFetch(intercept);
  const c = createClient({ baseUrl: server.baseUrl, apiKey: user.key, fetch: recorder.fetch, retry: { attempts: 6, baseDelayMs: 200, maxDelayMs: 5_000 } });
  return { c, requests: recorder.requests };
}

const flow = (requests) => requests.map((r) => `${r.method} ${r.path.replace(/\/(file|upl)_[\w-]+/, "/:id")}`);

async function expectStored(result, source, mime = "image/png") {
  expect(result).toMatchObject({ fileId: expect.stringMatching(/^file_/), bytes: source.length, mime });
  expect(sha256(await download(server.baseUrl, user.key, result.fileId))).toBe(sha256(source));
}

describe("direct uploads (below 5 MB): presign, PUT, finalize", () => {
  it("a file path: its name (the title without extension) and type come from the path; progress reaches the size", async () => {
    const source = makePng(40, 30, 1);
    const file = path.join(scratchDir("client-path-"), "from disk.png");
    writeFileSync(file, source);
    const { c, requests } = client();
    const progress = [];
    const result = await within("upload by path", c.upload(file, { title: "From disk", onProgress: (p) => progress.push(p) }), 60_000);
    await expectStored(result, source);
    expect(flow(requests)).toEqual(["POST /upload/presign", "PUT /upload/direct/:id", "POST /upload/finalize"]);
    expect(progress.at(-1)).toEqual({ sentBytes: source.length, totalBytes: source.length });
    expect((await c.files.get(result.fileId)).title).toBe("From disk");
  });

  it("a Buffer, a Uint8Array and an ArrayBuffer (the type sniffed from the bytes)", async () => {
    const { c } = client();
    const buffer = makePng(20, 20, 2);
    await expectStored(await within("upload a Buffer", c.upload(buffer, { filename: "buffer.png" }), 60_000), buffer);
    const bytes = new Uint8Array(makePng(21, 20, 3));
    await expectStored(await within("upload a Uint8Array without a name", c.upload(bytes), 60_000), Buffer.from(bytes));
    const copy = makePng(22, 20, 4);
    const arrayBuffer = copy.buffer.slice(copy.byteOffset, copy.byteOffset + copy.byteLength);
    await expectStored(await within("upload an ArrayBuffer", c.upload(arrayBuffer, { filename: "ab.png" }), 60_000), copy);
  });

  it("streams: a Node Readable (fs.ReadStream, its name from its path; and one of unknown size) and a web stream", async () => {
    const { c } = client();
    const fromFile = makePng(23, 20, 5);
    const file = path.join(scratchDir("client-stream-"), "streamed.png");
    writeFileSync(file, fromFile);
    const viaReadStream = await within("upload a fs.ReadStream", c.upload(createReadStream(file, { highWaterMark: 256 }), { size: fromFile.length }), 60_000);
    await expectStored(viaReadStream, fromFile);
    expect((await c.files.get(viaReadStream.fileId)).title).toBe("streamed");

    const unknownSize = makePng(24, 20, 6);
    const pieces = [unknownSize.subarray(0, 100), unknownSize.subarray(100, 1000), unknownSize.subarray(1000)];
    await expectStored(await within("upload a Readable of unknown size", c.upload(Readable.from(pieces), { filename: "unknown.png" }), 60_000), unknownSize);

    const web = makePng(25, 20, 7);
    const webStream = new ReadableStream({
      start(controller) {
        for (let at = 0; at < web.length; at += 333) controller.enqueue(new Uint8Array(web.subarray(at, at + 333)));
        controller.close();
      },
    });
    await expectStored(await within("upload a web ReadableStream", c.upload(webStream, { filename: "web.png", size: web.length }), 60_000), web);
  });

  it("a File (its name and type) and a Blob; tags and an album sent with presign, no call after finalize", async () => {
    const { c, requests } = client();
    const album = await c.albums.create({ title: "Client album" });
    const png = makePng(26, 20, 8);
    const file = new File([png], "a file.png", { type: "image/png" });
    const result = await within("upload a File", c.upload(file, { tags: ["client", "blob"], albumId: album.id, visibility: "unlisted" }), 60_000);
    await expectStored(result, png);
    expect(result.visibility).toBe("unlisted");
    const detail = await c.files.get(result.fileId);
    expect(detail).toMatchObject({ title: "a file", tags: expect.arrayContaining(["client", "blob"]) });
    const inAlbum = [];
    for await (const f of c.files.list({ albumId: album.id })) inAlbum.push(f.id);
    expect(inAlbum).toEqual([result.fileId]);
    expect(flow(requests).slice(1, 5)).toEqual(["POST /upload/presign", "PUT /upload/direct/:id", "POST /upload/finalize", "GET /files/:id"]);

    const jpegLike = makePng(27, 20, 9);
    await expectStored(await within("upload a Blob", c.upload(new Blob([jpegLike]), { filename: "blob.png" }), 60_000), jpegLike);
  });
});

describe("tus uploads (from 5 MB): resumed after a dropped connection", () => {
  it("a 12 MiB file path in 5 MiB chunks: the connection drops mid-chunk, HEAD says where to go on, the bytes arrive whole", async () => {
    const source = pngOfSize(12 * MiB, 2000, 21);
    const file = path.join(scratchDir("client-tus-"), "big.png");
    writeFileSync(file, source);
    const drop = dropOncePatch(5 * MiB);
    const { c, requests } = client(drop.intercept);
    const progress = [];
    const result = await within("tus upload with a drop", c.upload(file, { onProgress: (p) => progress.push(p.sentBytes) }), 150_000);
    await expectStored(result, source);

    expect(drop.dropped).toMatchObject({ offset: 5 * MiB, chunk: 5 * MiB });
    expect(requests.filter((r) => r.method === "POST").map((r) => r.path)).toEqual(["/upload/tus"]);
    const cut = requests.findIndex((r) => r.error);
    expect(requests[cut]).toMatchObject({ method: "PATCH", offset: 5 * MiB });
    // After the drop: a HEAD, and the next PATCH starts where the last HEAD said, never before the cut chunk.
    const after = requests.slice(cut + 1);
    expect(after[0]).toMatchObject({ method: "HEAD", status: 200 });
    const resumed = after.find((r) => r.method === "PATCH" && r.status === 204);
    const lastHead = after.slice(0, after.indexOf(resumed)).filter((r) => r.method === "HEAD").at(-1);
    expect(resumed.offset).toBe(lastHead.answeredOffset);
    expect(resumed.offset).toBeGreaterThanOrEqual(5 * MiB);
    expect(requests.at(-1)).toMatchObject({ method: "GET", status: 200 });
    // Progress never goes back and ends at the size.
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(source.length);
  });

  it("a 7 MiB Node stream of known size: the server kept part of the cut chunk, and the rest comes from the bytes the stream source still holds", async () => {
    const source = pngOfSize(7 * MiB, 2000, 22);
    const drop = dropOncePatch(3 * MiB, { awaitKept: true });
    const { c, requests } = client(drop.intercept);
    const pieces = [];
    for (let at = 0; at < source.length; at += 64 * 1024) pieces.push(source.subarray(at, at + 64 * 1024));
    const result = await within("tus upload of a stream with a drop", c.upload(Readable.from(pieces), { filename: "stream.png", size: source.length, chunkBytes: 3 * MiB }), 150_000);
    await expectStored(result, source);
    // The server kept part of the cut chunk: the client went on from inside it, from the bytes it still held.
    expect(drop.dropped).toMatchObject({ offset: 3 * MiB, chunk: 3 * MiB, kept: expect.any(Number) });
    expect(drop.dropped.kept).toBeGreaterThan(3 * MiB);
    expect(drop.dropped.kept).toBeLessThan(6 * MiB);
    const resumed = requests.find((r) => r.method === "PATCH" && r.status === 204 && r.offset > 3 * MiB);
    expect(resumed.offset).toBe(drop.dropped.kept);
  });

  it("a small file over tus (tusFromBytes lowered): title, tags and album travel in Upload-Metadata", async () => {
    const { c, requests } = client();
    const album = await c.albums.create({ title: "tus album" });
    const source = makePng(200, 150, 23);
    const result = await within("small tus upload", c.upload(source, { filename: "meta.png", title: "Über tus", tags: ["tus", "meta"], albumId: album.id, tusFromBytes: 1, chunkBytes: 40_000 }), 60_000);
    await expectStored(result, source);
    expect(flow(requests).filter((f) => !f.startsWith("PATCH"))).toEqual(["POST /albums", "POST /upload/tus", "GET /upload/tus/:id"]);
    expect(requests.filter((r) => r.method === "PATCH")).toHaveLength(Math.ceil(source.length / 40_000));
    expect(await c.files.get(result.fileId)).toMatchObject({ title: "Über tus", tags: expect.arrayContaining(["tus", "meta"]) });
    const albums = [];
    for await (const a of c.albums.list()) albums.push(a);
    expect(albums.find((a) => a.id === album.id)).toMatchObject({ title: "tus album", fileCount: 1 });
  });

  it("resume: a File remembered in a store goes on from the server's offset when sent again by a fresh client (a reload)", async () => {
    const source = pngOfSize(600_000, 1000, 25); // 3 chunks of 200 KB and a bit
    const file = new File([source], "resume.png", { type: "image/png", lastModified: 1_700_000_000_000 });
    const kept = new Map();
    const store = { get: (k) => kept.get(k), set: (k, v) => void kept.set(k, v), remove: (k) => void kept.delete(k) };
    let patches = 0;
    // The first client loses its connection for good after one chunk (a reload); each retry is reported first.
    const lost = recordingFetch(async (entry) => {
      if (entry.method === "PATCH" && ++patches > 1) throw new TypeError("fetch failed");
      return null;
    });
    const first = createClient({ baseUrl: server.baseUrl, apiKey: user.key, fetch: lost.fetch, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 50 } });
    const retries = [];
    const options = { tusFromBytes: 1, chunkBytes: 200_000, resume: { store } };
    const failed = await within("the lost upload", first.upload(file, { ...options, onRetry: (r) => retries.push(r) }).catch((err) => err), 60_000);
    expect(failed).toMatchObject({ name: "ImghostError", code: "network_error" });
    expect(retries).toEqual([{ attempt: 1, of: 1, status: 0 }]);
    expect([...kept.keys()]).toEqual([`tus::${server.baseUrl}/upload/tus::resume.png|image/png|${source.length}|1700000000000`]);

    const { c, requests } = client();
    const result = await within("the resumed upload", c.upload(file, options), 60_000);
    await expectStored(result, source);
    expect(flow(requests).slice(0, 2)).toEqual(["HEAD /upload/tus/:id", "PATCH /upload/tus/:id"]);
    expect(requests.filter((r) => r.method === "POST")).toEqual([]);
    expect(requests.find((r) => r.method === "PATCH").offset).toBe(200_000);
    expect(kept.size).toBe(0); // finished: the same file sent again is a new upload
  });

  it("an aborted tus upload rejects with the abort reason and is ended on the server (DELETE, then 404)", async () => {
    const { c, requests } = client();
    const source = makePng(300, 200, 24);
    const abort = new AbortController();
    const reason = new Error("stopped by the test");
    const onProgress = (p) => p.sentBytes > 0 && abort.abort(reason);
    const outcome = await within("aborted tus upload", c.upload(source, { filename: "aborted.png", tusFromBytes: 1, chunkBytes: 50_000, signal: abort.signal, onProgress }).catch((err) => err), 60_000);
    expect(outcome).toBe(reason);
    const ended = requests.find((r) => r.method === "DELETE");
    expect(ended).toMatchObject({ status: 204 });
    const head = await fetch(ended.url, { method: "HEAD", headers: { authorization: `Bearer ${user.key}`, "tus-resumable": "1.0.0" } });
    expect(head.status).toBe(404);
  });
});
