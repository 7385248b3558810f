// Links in the wild keep working (issue 26): ids from before shards live on shard 0 (database DB, the database
// of the single-database service). Most fail the check and are read on shard 0 at once; one in 4,096 passes it
// by chance and names a shard: a miss there is followed by a read on shard 0 (platform/data/moved-ids.ts).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, signup } from "../support/api";
import { IMAGE, fetchRaw } from "../support/files";
import { shardOfId, shardedId } from "../../src/platform/data/shard-ids";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

/** A file row as the service before shards left it: on database DB, under `id`. */
async function oldFile(id: string, ownerId: string) {
  const storeKey = `uploads/2025-12-01/${id}/old.png`;
  await env.BUCKET.put(storeKey, PNG, { httpMetadata: { contentType: "image/png" } });
  const now = Date.now();
  await env.DB.prepare(
    `INSERT INTO files (id, user_id, title, filename, mime, bytes, width, height, sha256, store_key, store_etag, visibility, state, analysis, finalized_at, created_at, updated_at)
     VALUES (?, ?, 'Old', 'old.png', 'image/png', ?, 1, 1, ?, ?, 'etag', 'public', 'finalized', 'done', ?, ?, ?)`,
  )
    .bind(id, ownerId, PNG.byteLength, "0".repeat(64), storeKey, now, now, now)
    .run();
}

describe("ids from before shards", () => {
  it("one that fails the check is read on shard 0", async () => {
    const owner = await signup();
    const id = "file_oldoldoldoldoldoldold".slice(0, 26);
    expect(shardOfId("file", id)?.legacy).toBe(true);
    await oldFile(id, owner.id);
    expect((await call(`/files/${id}`)).status).toBe(200);
    expect((await fetchRaw(`${IMAGE}/${id}`)).status).toBe(200);
  });

  it("one that passes the check by chance and names shard 1 is found on shard 0 after the miss there", async () => {
    const owner = await signup();
    const id = shardedId("file", 1, "legacyByChance0000");
    expect(shardOfId("file", id)).toEqual({ shard: 1, legacy: false });
    await oldFile(id, owner.id);
    const read = await call(`/files/${id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.title).toBe("Old");
    const bytes = await fetchRaw(`${IMAGE}/${id}`);
    expect(bytes.status).toBe(200);
    expect(bytes.bytes).toEqual(PNG);
  });

  it("an id that is nowhere is still 404", async () => {
    expect((await call(`/files/${shardedId("file", 1, "nowhere00000000000")}`)).status).toBe(404);
    expect((await fetchRaw(`${IMAGE}/${shardedId("file", 1, "nowhere00000000001")}`)).status).toBe(404);
  });
});
