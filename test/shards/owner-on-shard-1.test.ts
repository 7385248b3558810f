// An owner whose shard is 1 (SHARD_1): every request finds the data on that database alone, from the ids it
// names or the principal's shard. docs/sharding.md § Status of step 2b.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, signup, type TestUser } from "../support/api";
import { directUpload, presign, putDirect, finalize, SMALL_PNG } from "../uploads/helpers";
import { IMAGE, SITE, fetchRaw } from "../support/files";
import { shardOfId } from "../../src/platform/data/shard-ids";

async function ownerOnShard1(): Promise<TestUser> {
  const user = await signup();
  await env.DB.prepare("UPDATE users SET shard = 1 WHERE id = ?").bind(user.id).run();
  return user;
}

const countOn = async (db: D1Database, table: string, id: string) =>
  (await db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE id = ?`).bind(id).first<{ n: number }>())!.n;

describe("an owner on shard 1", () => {
  it("uploads there: the ids carry shard 1, the rows are on SHARD_1 and none on DB", async () => {
    const user = await ownerOnShard1();
    const { pre, fin } = await directUpload(user.access);
    expect(shardOfId("file", pre.body.fileId)).toEqual({ shard: 1, legacy: false });
    expect(shardOfId("upl", pre.body.uploadId)).toEqual({ shard: 1, legacy: false });
    expect(fin.body.fileId).toBe(pre.body.fileId);
    expect(await countOn(env.SHARD_1, "files", pre.body.fileId)).toBe(1);
    expect(await countOn(env.SHARD_1, "uploads", pre.body.uploadId)).toBe(1);
    expect(await countOn(env.DB, "files", pre.body.fileId)).toBe(0);
    // The quota is on the owner's shard.
    const owner = await env.SHARD_1.prepare("SELECT storage_used FROM owners WHERE user_id = ?").bind(user.id).first<{ storage_used: number }>();
    expect(owner!.storage_used).toBe(SMALL_PNG.byteLength);
    expect((await call("/account/limits", { token: user.access })).body.quota.used).toBe(SMALL_PNG.byteLength);
  });

  it("reads, lists, changes and serves it from there", async () => {
    const user = await ownerOnShard1();
    const { pre } = await directUpload(user.access);
    const id = pre.body.fileId;
    expect((await call(`/files/${id}`, { token: user.access })).status).toBe(200);
    expect((await call(`/files/${id}`)).status).toBe(200); // public: anonymous too
    const list = await call("/files", { token: user.access });
    expect(list.body.files.map((f: { id: string }) => f.id)).toEqual([id]);
    const patched = await call(`/files/${id}`, { method: "PATCH", token: user.access, body: { title: "On shard one" } });
    expect(patched.status).toBe(200);
    const bytes = await fetchRaw(`${IMAGE}/${id}`);
    expect(bytes.status).toBe(200);
    expect(bytes.bytes).toEqual(SMALL_PNG);
    expect((await fetchRaw(`${SITE}/f/${id}`)).status).toBe(200);
    expect((await call(`/files/${id}`, { method: "DELETE", token: user.access })).status).toBe(200);
    expect((await call(`/files/${id}`)).status).toBe(410);
  });

  it("another user reaches none of it; a private file is 404 to them", async () => {
    const user = await ownerOnShard1();
    const stranger = await signup();
    const pre = await presign({ token: user.access, extra: { visibility: "private" } });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    expect((await finalize(pre.body, put.headers.get("etag")!, user.access)).status).toBe(200);
    expect((await call(`/files/${pre.body.fileId}`, { token: stranger.access })).status).toBe(404);
    expect((await call(`/files/${pre.body.fileId}`)).status).toBe(404);
    expect((await call("/files", { token: stranger.access })).body.files).toEqual([]);
  });

  it("albums live there too", async () => {
    const user = await ownerOnShard1();
    const { pre } = await directUpload(user.access);
    const album = await call("/albums", { token: user.access, body: { title: "Shard one", visibility: "public", fileIds: [pre.body.fileId] } });
    expect(album.status).toBe(201);
    expect(shardOfId("alb", album.body.id)?.shard).toBe(1);
    expect(await countOn(env.SHARD_1, "albums", album.body.id)).toBe(1);
    const shown = await call(`/albums/${album.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.files.map((f: { id: string }) => f.id)).toEqual([pre.body.fileId]);
    expect((await call("/albums", { token: user.access })).body.albums.map((a: { id: string }) => a.id)).toEqual([album.body.id]);
  });

  it("x-d1-bookmark names shard 1 after a write there", async () => {
    const user = await ownerOnShard1();
    const pre = await presign({ token: user.access });
    expect(pre.headers.get("x-d1-bookmark")).toMatch(/(^|,)1:[0-9a-f-]+/);
  });
});
