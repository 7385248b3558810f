// The ends of a tus upload: termination, expiry through the cleanup cron, a completion finished by a later
// request, and what the metadata asks of the file (tags, album).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduled } from "../../../src/jobs/scheduled";
import { tusState } from "../../../src/uploads/tus/upload-state";
import { call, verifiedUser, type TestUser } from "../../support/api";
import { SMALL_PNG, fileRow, makePng, objectExists, storage, uploadRow } from "../helpers";
import { MiB, create, head, patch, pathOf, status, terminate } from "./support";

let owner: TestUser;
let PNG: Uint8Array;
beforeAll(async () => {
  owner = await verifiedUser();
  PNG = makePng(800, 2400, 8); // ~5.8 MB: one part and a remainder
});

const me = () => ({ token: owner.access });
const idOf = (path: string) => path.split("/").pop()!;
const HOUR = 3600_000;

/** Polls `check` until it holds, for at most 5 s (this file's step named in the failure). */
async function waitFor(check: () => Promise<boolean>, what = "lifecycle.test.ts: the PATCH to start") {
  const until = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await scheduler.wait(10);
  }
}

async function partway() {
  const res = await create(me(), PNG.length, { filename: "big.png" });
  const path = pathOf(res);
  expect((await patch(me(), path, 0, PNG.subarray(0, 5 * MiB + 100))).status).toBe(204);
  const row = (await uploadRow(idOf(path)))!;
  return { path, row, file: (await fileRow(row.file_id))! };
}

/** Whether R2 still has the multipart upload open (an aborted one refuses new parts). */
async function multipartOpen(storeKey: string, r2UploadId: string) {
  return env.BUCKET.resumeMultipartUpload(storeKey, r2UploadId)
    .uploadPart(1, new Uint8Array(10))
    .then(() => true, () => false);
}

describe("termination (DELETE)", () => {
  it("204; the parts are aborted, the held bytes and the reservation released; then 404", async () => {
    const before = await storage(owner.id);
    const { path, row, file } = await partway();
    expect((await storage(owner.id)).reserved).toBe(before.reserved + PNG.length);
    expect(await multipartOpen(file.store_key, row.r2_upload_id)).toBe(true);
    const res = await terminate(me(), path);
    expect(res.status).toBe(204);
    expect(res.headers.get("tus-resumable")).toBe("1.0.0");
    expect(await storage(owner.id)).toEqual(before);
    expect(await multipartOpen(file.store_key, row.r2_upload_id)).toBe(false);
    expect(await tusState(env, row.file_id).status()).toBeNull();
    expect((await head(me(), path)).status).toBe(404);
    expect((await patch(me(), path, 5 * MiB + 100, PNG.subarray(5 * MiB + 100))).status).toBe(404);
    expect((await terminate(me(), path)).status).toBe(404);
  });

  it("a finished upload is a file: DELETE is 409, the file stays", async () => {
    const res = await create(me(), SMALL_PNG.length, { filename: "a.png" }, { body: SMALL_PNG });
    expect(res.headers.get("upload-file-id")).toBeTruthy();
    const del = await terminate(me(), pathOf(res));
    expect(del.status).toBe(409);
    expect(del.body.details.code).toBe("already_finalized");
    expect((await call(`/files/${res.headers.get("upload-file-id")}`, { token: owner.access })).status).toBe(200);
  });

  it("a DELETE while a chunk is arriving: the chunk's PATCH answers 404, not 500", async () => {
    const res = await create(me(), PNG.length, { filename: "big.png" });
    const path = pathOf(res);
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const slow = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
    const arriving = patch(me(), path, 0, slow); // no Content-Length: the chunk streams into the object
    feed.enqueue(PNG.subarray(0, MiB));
    await waitFor(async () => (await uploadRow(idOf(path)))?.state === "pending"); // the PATCH is under way
    expect((await terminate(me(), path)).status).toBe(204);
    feed.enqueue(PNG.subarray(MiB, 6 * MiB));
    feed.close();
    const answered = await arriving;
    expect(answered.status).toBe(404);
    expect(answered.body.details.code).toBe("upload_not_found");
  });
});

describe("expiration", () => {
  it("the cleanup cron expires an unfinished upload: reservation and parts freed, state gone, then 404", async () => {
    const before = await storage(owner.id);
    const { path, row, file } = await partway();
    const h = await head(me(), path);
    expect(Date.parse(h.headers.get("upload-expires")!)).toBe(Math.floor(row.expires_at / 1000) * 1000);
    await runScheduled(env, Date.now() + 25 * HOUR);
    expect(((await uploadRow(idOf(path)))!).state).toBe("expired");
    expect(await storage(owner.id)).toEqual(before);
    expect(await multipartOpen(file.store_key, row.r2_upload_id)).toBe(false);
    expect(await tusState(env, row.file_id).status()).toBeNull();
    expect((await head(me(), path)).status).toBe(404);
    expect((await status(me(), path)).status).toBe(404);
  });
});

describe("completion", () => {
  it("every byte kept but the request failed before finalize: the next HEAD finishes it", async () => {
    const res = await create(me(), PNG.length, { filename: "big.png" });
    const path = pathOf(res);
    const row = (await uploadRow(idOf(path)))!;
    // The bytes reach the upload's object, as a PATCH would bring them, but no worker finalizes them.
    const appended = await tusState(env, row.file_id).append(0, new Blob([PNG]).stream(), { declaredBytes: PNG.length, checksum: null });
    expect(appended.kind).toBe("complete");
    expect(((await uploadRow(idOf(path)))!).state).toBe("pending");
    const h = await head(me(), path);
    expect(h.headers.get("upload-offset")).toBe(String(PNG.length));
    const s = await status(me(), path);
    expect(s.body).toMatchObject({ state: "complete", file: { fileId: row.file_id } });
    expect(((await fileRow(row.file_id))!).state).toBe("finalized");
  });

  it("tags, title and albumId from the metadata reach the file", async () => {
    const album = await call("/albums", { token: owner.access, body: { title: "Trip" } });
    const res = await create(me(), SMALL_PNG.length, { filename: "a.png", title: "Beach", tags: "sea,sun", albumId: album.body.id, visibility: "unlisted" }, { body: SMALL_PNG });
    expect(res.status, res.text).toBe(201);
    const fileId = res.headers.get("upload-file-id")!;
    const file = await call(`/files/${fileId}`, { token: owner.access });
    expect(file.body).toMatchObject({ title: "Beach", tags: ["sea", "sun"], visibility: "unlisted" });
    const inAlbum = await call(`/albums/${album.body.id}`, { token: owner.access });
    expect(inAlbum.body.files.map((f: { id: string }) => f.id)).toContain(fileId);
  });

  it("an object that lost its state (its alarm ran, or it was never opened) answers 404, not 500", async () => {
    const { path, row } = await partway();
    await tusState(env, row.file_id).destroy();
    const res = await patch(me(), path, 5 * MiB + 100, PNG.subarray(5 * MiB + 100));
    expect(res.status).toBe(404);
  });
});
