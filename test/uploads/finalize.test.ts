import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { jobHandlers } from "../../src/jobs/queue";
import { directoryDb } from "../../src/platform/data/db";
import type { AnalyzeMessage } from "../../src/platform/data/job-messages";
import { call, signup } from "../support/api";
import { SMALL_PNG, directUpload, fileRow, finalize, makePng, presign, putDirect, storage, uploadRow } from "./helpers";
import { ownerDb } from "../support/shard-db";

// A test-only consumer for the analysis job's messages: the real queue delivers them to the worker's
// queue handler, which dispatches on `type`. (The analysis feature's own handler is replaced in this file.)
const analyzed: AnalyzeMessage[] = [];
beforeAll(() => {
  jobHandlers.analyze = {
    run: async (_env, body) => {
      analyzed.push(body);
    },
  };
});
const messagesFor = (fileId: string) => analyzed.filter((m) => m.fileId === fileId).length;

describe("POST /upload/finalize", () => {
  it("is idempotent: concurrent and repeated calls answer the same body, commit once, enqueue once", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    const etag = put.headers.get("etag")!;
    const [a, b] = await Promise.all([finalize(pre.body, etag, user.access), finalize(pre.body, etag, user.access)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    // a later repeat with other hints still answers the stored body
    const c = await finalize(pre.body, etag, user.access, { width: 999, height: 999, nsfwScore: 1 });
    expect(c.status).toBe(200);
    expect(c.body).toEqual(a.body);
    // What is stored of it (uploads/finalize-answer.ts; test/uploads/finalize-stored.test.ts)
    expect(JSON.parse((await uploadRow(pre.body.uploadId))!.finalize_response)).toMatchObject({ width: a.body.width, visibility: a.body.visibility, duplicates: [] });
    expect(await storage(user.id)).toEqual({ used: SMALL_PNG.byteLength, reserved: 0 });
    expect(await fileRow(pre.body.fileId)).toMatchObject({ state: "finalized", analysis: "pending", width: 8, height: 8 });

    await vi.waitFor(() => expect(messagesFor(pre.body.fileId)).toBe(1), { timeout: 10_000, interval: 100 });
    expect(analyzed.find((m) => m.fileId === pre.body.fileId)).toEqual({ type: "analyze", fileId: pre.body.fileId });
    // one more batch window: still exactly one message
    await new Promise((r) => setTimeout(r, 1500));
    expect(messagesFor(pre.body.fileId)).toBe(1);
  });

  it("reports exact duplicates among the caller's own finalized files only", async () => {
    const user = await signup();
    const first = await directUpload(user.access);
    expect(first.fin.body.duplicates).toEqual([]);
    const second = await directUpload(user.access);
    expect(second.fin.body.duplicates).toEqual([{ fileId: first.pre.body.fileId, url: `${env.IMAGE_URL}/${first.pre.body.fileId}`, distance: 0, match: "exact" }]);
    const third = await directUpload(user.access);
    expect(third.fin.body.duplicates.map((d: { fileId: string }) => d.fileId)).toEqual([first.pre.body.fileId, second.pre.body.fileId]);
    // other content: none; other user with the same bytes: none; anonymous: none
    expect((await directUpload(user.access, makePng(8, 8, 99))).fin.body.duplicates).toEqual([]);
    expect((await directUpload((await signup()).access)).fin.body.duplicates).toEqual([]);
    expect((await directUpload()).fin.body.duplicates).toEqual([]);
    // a deleted duplicate is not reported
    await ownerDb.prepare("UPDATE files SET deleted_at = ? WHERE id = ?").bind(Date.now(), first.pre.body.fileId).run();
    const fourth = await directUpload(user.access);
    expect(fourth.fin.body.duplicates.map((d: { fileId: string }) => d.fileId)).not.toContain(first.pre.body.fileId);
  });

  it("records client hints; a client nsfwScore sets ageRestricted at the threshold and is kept apart", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    const fin = await finalize(pre.body, put.headers.get("etag")!, user.access, { width: 640, height: 480, phash: "ABCDEF0123456789", nsfwScore: 0.85 });
    expect(fin.status).toBe(200);
    expect(fin.body).toMatchObject({ width: 640, height: 480, phash: "abcdef0123456789", nsfwScore: 0.85, ageRestricted: true });
    expect(await fileRow(pre.body.fileId)).toMatchObject({ client_phash: "abcdef0123456789", client_nsfw_score: 0.85, nsfw_score: 0.85, age_restricted: 1 });

    const low = await directUpload(user.access, makePng(9, 9, 5));
    const file = await fileRow(low.pre.body.fileId);
    expect(file).toMatchObject({ client_nsfw_score: null, age_restricted: 0 });
  });

  it("validates its body: unknown fields, bad phash, score out of range, bad ids", async () => {
    const user = await signup();
    const base = { uploadId: "upl_x", fileId: "file_x", storeKey: "k", storeEtag: "e" };
    for (const body of [
      { ...base, extra: 1 },
      { ...base, phash: "xyz" },
      { ...base, nsfwScore: 1.5 },
      { ...base, width: -1 },
      { uploadId: "upl_x" },
    ]) {
      const res = await call("/upload/finalize", { token: user.access, body });
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    expect((await call("/upload/finalize", { token: user.access, body: base })).status).toBe(404);
  });

  it("an expired upload cannot be finalized (410); nothing is committed", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    await ownerDb.prepare("UPDATE uploads SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, pre.body.uploadId).run();
    const res = await finalize(pre.body, put.headers.get("etag")!, user.access);
    expect(res.status).toBe(410);
    expect(res.body.details.code).toBe("upload_expired");
    expect(await storage(user.id)).toEqual({ used: 0, reserved: SMALL_PNG.byteLength }); // until cleanup releases it
  });
});

describe("POST /upload/finalize against the blocklist", () => {
  it("refuses a phash hint within the blocklist distance: 403 blocked_content, file quarantined and reported high", async () => {
    const { indexBlocklistEntry } = await import("../../src/analysis/blocklist");
    const banned = "f0e1d2c3b4a59687";
    await env.DB.prepare("INSERT INTO blocklist (id, phash, created_at) VALUES ('blk_test_finalize_0000001', ?, ?)").bind(banned, Date.now()).run();
    await indexBlocklistEntry(directoryDb(env), "blk_test_finalize_0000001", banned);
    const near = "f0e1d2c3b4a59680"; // 3 bits away

    const user = await signup();
    const pre = await presign({ token: user.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    const res = await finalize(pre.body, put.headers.get("etag")!, user.access, { phash: near });
    expect(res.status).toBe(403);
    expect(res.body.details.code).toBe("blocked_content");
    const file = await fileRow(pre.body.fileId);
    expect(file!.quarantined_at).not.toBeNull();
    const report = await env.DB.prepare("SELECT priority, status FROM reports WHERE file_id = ?").bind(pre.body.fileId).first();
    expect(report).toEqual({ priority: "high", status: "pending" });
    expect((await call(`/files/${pre.body.fileId}`, { token: user.access })).status).toBe(410);
    // a repeat answers the same refusal
    expect((await finalize(pre.body, put.headers.get("etag")!, user.access, { phash: near })).status).toBe(403);

    // a distant hint passes
    const other = await presign({ token: user.access, bytes: makePng(8, 8, 99) });
    const put2 = await putDirect(other.body.fileId, makePng(8, 8, 99), user.access);
    expect((await finalize(other.body, put2.headers.get("etag")!, user.access, { phash: "0123456789abcdef" })).status).toBe(200);
  });
});
