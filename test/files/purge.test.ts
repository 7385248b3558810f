// The purge job: objects of deleted and expired files leave R2 only after the retention window; quota is
// released once; runs are idempotent. Time moves by passing `now`, never by sleeping.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, signup } from "../support/api";
import { setStorage, storage } from "../support/owners";
import { bandRowsOf, fileRow, indexBands, pngLikeBytes, seedFile } from "../support/files";
import { shardDb } from "../../src/platform/data/db";
import { purgeCandidateQueries, type PurgeResult } from "../../src/jobs/purge";
import { runScheduled, scheduledTasks } from "../../src/jobs/scheduled";
import { PURGE } from "../../src/config";

const db = shardDb(env, 0); // for the query plans (the same schema on every shard)
/** The purge as the cron runs it: on every shard, the counts summed. */
const purge = (now: number) => scheduledTasks.purgeGoneFiles(env, now) as Promise<PurgeResult>;
const RETENTION = PURGE.retentionSeconds * 1000;

// The counters are the owner's row on its shard (test/support/owners.ts).
const storageUsed = async (userId: string) => (await storage(userId)).used;
const setStorageUsed = (userId: string, n: number) => setStorage(userId, n);

async function exists(key: string) {
  return (await env.BUCKET.head(key)) !== null;
}

describe("purgeGoneFiles", () => {
  it("keeps a deleted file's objects until the retention has passed, then removes them and frees the quota", async () => {
    const u = await signup();
    const f = await seedFile(u.id, { content: pngLikeBytes(4000), thumb: pngLikeBytes(100) });
    await setStorageUsed(u.id, 10_000);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: u.access })).status).toBe(200);
    const deletedAt = (await fileRow(f.id))!.deletedAt!.getTime();

    for (const now of [deletedAt, deletedAt + RETENTION - 1000, deletedAt + RETENTION - 1]) {
      await purge(now);
      expect(await exists(f.storeKey), `not purged at +${now - deletedAt}ms`).toBe(true);
      expect((await fileRow(f.id))!.purgedAt).toBeNull();
    }
    expect(await storageUsed(u.id)).toBe(10_000);

    const result = await purge(deletedAt + RETENTION + 1000);
    expect(result.purged).toBeGreaterThanOrEqual(1);
    expect(await exists(f.storeKey)).toBe(false);
    expect(await exists(f.thumbKey!)).toBe(false);
    const row = (await fileRow(f.id))!;
    expect(row.purgedAt!.getTime()).toBe(deletedAt + RETENTION + 1000);
    expect(await storageUsed(u.id)).toBe(10_000 - 4000);
    // Still 410, never 404 or 500.
    expect((await call(`/files/${f.id}`)).status).toBe(410);
  });

  it("purges expired files after the same retention, counted from the expiry", async () => {
    const u = await signup();
    const expiresAt = Date.now() - 60_000;
    const f = await seedFile(u.id, { expiresAt: new Date(expiresAt), content: pngLikeBytes(1234) });
    await setStorageUsed(u.id, 5000);
    await purge(expiresAt + RETENTION - 1);
    expect(await exists(f.storeKey)).toBe(true);
    await purge(expiresAt + RETENTION);
    expect(await exists(f.storeKey)).toBe(false);
    expect(await storageUsed(u.id)).toBe(5000 - 1234);
  });

  it("is idempotent: repeated and concurrent runs free the quota once", async () => {
    const u = await signup();
    const deletedAt = Date.now() - RETENTION - 60_000;
    const files = await Promise.all([1, 2, 3].map((i) => seedFile(u.id, { deletedAt: new Date(deletedAt), content: pngLikeBytes(1000 * i) })));
    await setStorageUsed(u.id, 100_000);
    const now = Date.now();
    await Promise.all([purge(now), purge(now)]);
    await purge(now + 1000);
    expect(await storageUsed(u.id)).toBe(100_000 - 6000);
    for (const f of files) {
      expect(await exists(f.storeKey)).toBe(false);
      expect((await fileRow(f.id))!.purgedAt).not.toBeNull();
    }
  });

  it("never touches live files or files expiring later; anonymous uploads purge without a quota", async () => {
    const u = await signup();
    const live = await seedFile(u.id);
    const later = await seedFile(u.id, { expiresAt: new Date(Date.now() + 3_600_000) });
    const anon = await seedFile(null, { deletedAt: new Date(Date.now() - RETENTION - 1) });
    await purge(Date.now());
    expect(await exists(live.storeKey)).toBe(true);
    expect(await exists(later.storeKey)).toBe(true);
    expect(await exists(anon.storeKey)).toBe(false);
    expect((await fileRow(anon.id))!.purgedAt).not.toBeNull();
    expect((await call(`/files/${live.id}`)).status).toBe(200);
  });

  it("takes expired files out of albums at once, keeping album counts true", async () => {
    const u = await signup();
    const keep = await seedFile(u.id);
    const soon = await seedFile(u.id, { expiresAt: new Date(Date.now() + 5_000) });
    const album = await call("/albums", { token: u.access, body: { title: "a", fileIds: [keep.id, soon.id] } });
    expect(album.body.fileCount).toBe(2);
    await call(`/albums/${album.body.id}`, { method: "PATCH", token: u.access, body: { coverImageId: soon.id } });
    const result = await purge(Date.now() + 10_000);
    expect(result.detached).toBeGreaterThanOrEqual(1);
    const after = await call(`/albums/${album.body.id}`, { token: u.access });
    expect(after.body.fileCount).toBe(1);
    expect(after.body.coverImageId).toBeNull();
    expect(await exists(soon.storeKey)).toBe(true); // objects wait for the retention
  });

  it("removes purged files from the near-duplicate indexes, by their keys, and only them", async () => {
    const u = await signup();
    const code = "0123456789abcdef".repeat(4);
    const gone = await seedFile(u.id, { deletedAt: new Date(Date.now() - RETENTION - 1), phash: "0f0f0f0f0f0f0f0f", embeddingCode: code });
    // The same hash and code: rows that differ from the purged file's only by the file.
    const kept = await seedFile(u.id, { phash: "0f0f0f0f0f0f0f0f", embeddingCode: code });
    await indexBands(gone, kept);
    const rows = async (fileId: string) => [...(await bandRowsOf("phash_bands", fileId)), ...(await bandRowsOf("embedding_bands", fileId))].length;
    expect([await rows(gone.id), await rows(kept.id)]).toEqual([3 + 16, 3 + 16]);
    await purge(Date.now());
    expect((await fileRow(gone.id))!.purgedAt).toBeInstanceOf(Date);
    expect([await rows(gone.id), await rows(kept.id)]).toEqual([0, 3 + 16]);
    await purge(Date.now()); // a repeat finds nothing to delete
    expect(await rows(kept.id)).toBe(3 + 16);
  });

  it("finds its candidates by walking the partial indexes of deleted and expiring files", async () => {
    const [deleted, expiring] = await Promise.all(
      purgeCandidateQueries(db, Date.now(), 10).map(async (query) => {
        const { sql, params } = query.toSQL();
        return (await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>()).results.map((r) => r.detail).join(" | ");
      }),
    );
    expect(deleted).toMatch(/SEARCH files USING INDEX files_deleted \(deleted_at>\? AND deleted_at<\?\)/);
    expect(expiring).toMatch(/SEARCH files USING INDEX files_expires \(expires_at>\? AND expires_at<\?\)/);
  });

  it("is registered as a scheduled task", async () => {
    expect(scheduledTasks).toHaveProperty("purgeGoneFiles");
    const results = await runScheduled(env, Date.now());
    expect(results.purgeGoneFiles).toMatchObject({ purged: expect.any(Number) });
  });
});
