// The scheduled clean-up, driven through the cron entry point with an advanced `now` (no sleeping).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runScheduled } from "../../src/jobs/scheduled";
import { endedRecordsQuery, staleUploadsQuery } from "../../src/uploads/cleanup";
import { shardDb } from "../../src/platform/data/db";
import { call, signup } from "../support/api";
import { SMALL_PNG, directUpload, fileRow, objectExists, presign, putDirect, randomIp, sha256, storage, uploadRow } from "./helpers";
import { ownerDb } from "../support/shard-db";

const HOUR = 3600_000;
const DAY = 24 * HOUR;

async function multipartWithOnePart(token?: string) {
  const init = await call("/upload/multipart/init", {
    token,
    ip: token ? undefined : randomIp(),
    body: { filename: "m.png", mime: "image/png", totalBytes: SMALL_PNG.length, sha256: await sha256(SMALL_PNG) },
  });
  expect(init.status).toBe(201);
  const part = await call(init.body.parts[0].url, { method: "PUT", raw: SMALL_PNG, token: token ?? init.body.uploadToken });
  expect(part.status).toBe(200);
  return init.body;
}

async function multipartOpen(storeKey: string, r2UploadId: string) {
  return env.BUCKET.resumeMultipartUpload(storeKey, r2UploadId)
    .uploadPart(1, new Uint8Array(10))
    .then(() => true)
    .catch(() => false);
}

describe("scheduled upload clean-up", () => {
  it("expires stale uploads, releases their reservations, removes their storage, then their records", async () => {
    const user = await signup();
    const size = SMALL_PNG.byteLength;
    const neverPut = await presign({ token: user.access });
    const putNotFinalized = await presign({ token: user.access });
    const put = await putDirect(putNotFinalized.body.fileId, SMALL_PNG, user.access);
    expect(put.status).toBe(200);
    const multipart = await multipartWithOnePart(user.access);
    const anonymous = await presign();
    const done = await directUpload(user.access);
    expect(await storage(user.id)).toEqual({ used: size, reserved: 3 * size });
    const r2UploadId = (await uploadRow(multipart.uploadId))!.r2_upload_id as string;
    expect(await multipartOpen(multipart.storeKey, r2UploadId)).toBe(true);
    expect(await objectExists(putNotFinalized.body.storeKey)).toBe(true);

    // within their lifetime nothing happens
    const early = await runScheduled(env, Date.now() + 10 * 60_000);
    expect(early.uploads).toEqual({ expired: 0, purged: 0, deleted: 0, errors: 0 });

    // direct uploads live an hour, multipart uploads a day
    const later = Date.now() + 2 * HOUR;
    const first = await runScheduled(env, later);
    expect(first.uploads).toEqual({ expired: 3, purged: 3, deleted: 0, errors: 0 });
    for (const p of [neverPut.body, putNotFinalized.body, anonymous.body]) {
      expect(await uploadRow(p.uploadId)).toMatchObject({ state: "expired", reserved_bytes: 0 });
      expect(await fileRow(p.fileId)).toMatchObject({ state: "failed", purged_at: later });
      expect(await objectExists(p.storeKey)).toBe(false);
    }
    expect(await storage(user.id)).toEqual({ used: size, reserved: size }); // the multipart one is still open
    expect((await uploadRow(multipart.uploadId))!.state).toBe("pending");
    expect((await putDirect(neverPut.body.fileId, SMALL_PNG, user.access)).status).toBe(410);

    const nextDay = Date.now() + 25 * HOUR;
    const second = await runScheduled(env, nextDay);
    expect(second.uploads).toEqual({ expired: 1, purged: 1, deleted: 0, errors: 0 });
    expect(await uploadRow(multipart.uploadId)).toMatchObject({ state: "expired", reserved_bytes: 0 });
    expect(await multipartOpen(multipart.storeKey, r2UploadId)).toBe(false);
    expect((await ownerDb.prepare("SELECT COUNT(*) AS n FROM upload_parts WHERE upload_id = ?").bind(multipart.uploadId).first<{ n: number }>())!.n).toBe(0);
    expect(await storage(user.id)).toEqual({ used: size, reserved: 0 });

    // the finalized upload is untouched
    expect(await uploadRow(done.pre.body.uploadId)).toMatchObject({ state: "finalized" });
    expect(await fileRow(done.pre.body.fileId)).toMatchObject({ state: "finalized", purged_at: null });
    expect(await objectExists(done.pre.body.storeKey)).toBe(true);

    // a week after their storage went, the ended records are deleted
    const third = await runScheduled(env, nextDay + 8 * DAY);
    expect(third.uploads).toMatchObject({ deleted: 4, errors: 0 });
    for (const p of [neverPut.body, putNotFinalized.body, anonymous.body, multipart]) {
      expect(await uploadRow(p.uploadId)).toBeNull();
      expect(await fileRow(p.fileId)).toBeNull();
    }
    expect(await fileRow(done.pre.body.fileId)).not.toBeNull();
  });

  it("retries storage removal for failed files whose in-request removal did not happen", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    expect((await putDirect(pre.body.fileId, SMALL_PNG, user.access)).status).toBe(200);
    // as if a request failed the upload but crashed before deleting the object
    await ownerDb.prepare("UPDATE uploads SET state = 'failed', reserved_bytes = 0 WHERE id = ?").bind(pre.body.uploadId).run();
    await ownerDb.prepare("UPDATE files SET state = 'failed' WHERE id = ?").bind(pre.body.fileId).run();
    const res = await runScheduled(env, Date.now());
    expect(res.uploads).toMatchObject({ purged: 1, errors: 0 });
    expect(await objectExists(pre.body.storeKey)).toBe(false);
    expect((await fileRow(pre.body.fileId))!.purged_at).not.toBeNull();
  });

  it("a stale upload finalized just before the run is left alone", async () => {
    const user = await signup();
    const { pre } = await directUpload(user.access);
    await ownerDb.prepare("UPDATE uploads SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, pre.body.uploadId).run();
    const res = await runScheduled(env, Date.now());
    expect(res.uploads).toMatchObject({ expired: 0 });
    expect(await objectExists(pre.body.storeKey)).toBe(true);
  });
});

describe("the clean-up's queries", () => {
  const planOf = async (query: { toSQL(): { sql: string; params: unknown[] } }) => {
    const { sql, params } = query.toSQL();
    return (await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>()).results.map((r) => r.detail).join(" | ");
  };

  it("walk indexes: the expiry walk the partial uploads_state_expires (uploads in flight only), the ended records from failed files", async () => {
    const db = shardDb(env, 0);
    expect(await planOf(staleUploadsQuery(db, new Date()))).toMatch(/SEARCH uploads USING INDEX uploads_state_expires \(state=\? AND expires_at<\?\)/);
    const ended = await planOf(endedRecordsQuery(db, new Date()));
    expect(ended).toMatch(/SEARCH files USING INDEX files_state_created \(state=\?\)/);
    expect(ended).toMatch(/SEARCH uploads USING INDEX uploads_file \(file_id=\?\)/);
    expect(ended).not.toMatch(/SCAN/);
  });
});
