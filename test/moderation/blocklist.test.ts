// End to end: an image banned by a moderator (ban_file) puts its phash on the blocklist; a resized copy
// uploaded later through the real upload flow is caught by the analysis job: quarantined (410 everywhere)
// and filed as a high-priority report in the moderation queue.
import { beforeAll, describe, expect, it } from "vitest";
import { IMAGE, fetchRaw } from "../support/files";
import { call, verifiedUser, type TestUser } from "../support/api";
import { queue, report, resolve, userWithRole } from "../support/moderation";
import { finalize, presign, putDirect } from "../uploads/helpers";
import { fixture, EXPECTED_PHASH } from "../analysis/fixtures";
import { deliver, fileRow } from "../analysis/support";
import { hammingDistance } from "../../src/analysis/phash";

let first: TestUser;
let second: TestUser;
let moderator: TestUser;

beforeAll(async () => {
  first = await verifiedUser();
  second = await verifiedUser();
  moderator = await userWithRole("moderator");
});

/** presign -> PUT -> finalize through the API, then the analysis job (delivered to the worker's queue handler). */
async function uploadAndAnalyse(user: TestUser, name: string): Promise<string> {
  const bytes = fixture(name);
  const pre = await presign({ token: user.access, bytes, mime: "image/jpeg", filename: name });
  expect(pre.status, pre.text).toBe(201);
  const put = await putDirect(pre.body.fileId, bytes, user.access, { "content-type": "image/jpeg" });
  expect(put.status, put.text).toBe(200);
  const fin = await finalize(pre.body, put.headers.get("etag")!, user.access);
  expect(fin.status, fin.text).toBe(200);
  // The job is idempotent: the real queue delivering the same message later changes nothing.
  const result = await deliver({ type: "analyze", fileId: pre.body.fileId });
  expect(result.retryMessages).toEqual([]);
  const row = await fileRow(pre.body.fileId);
  expect(row.analysis, row.analysisError ?? "").toBe("done");
  return pre.body.fileId;
}

describe("blocklist hit on re-upload of a banned image", () => {
  it("a resized copy of a banned image is quarantined and reported high priority", async () => {
    const original = await uploadAndAnalyse(first, "cubes.jpg");
    expect((await fileRow(original)).phash).toBe(EXPECTED_PHASH["cubes.jpg"]);
    expect((await call(`/files/${original}`)).status).toBe(200);

    // Reported, hidden at once, then banned by a moderator: its phash joins the blocklist.
    const rep = await report({ fileId: original, reason: "csam" });
    expect(rep.status).toBe(201);
    const banned = await resolve(moderator.access, rep.body.reportId, { action: "ban_file", note: "confirmed" });
    expect(banned.status, banned.text).toBe(200);
    expect(banned.body.effects.blocklistEntryId).toMatch(/^blk_/);

    // Someone else uploads a resized copy (a different file, different bytes, a near phash).
    const copy = await uploadAndAnalyse(second, "cubes-resized.jpg");
    const row = await fileRow(copy);
    expect(row.sha256).not.toBe((await fileRow(original)).sha256);
    expect(hammingDistance(row.phash!, EXPECTED_PHASH["cubes.jpg"])).toBeGreaterThan(0);
    expect(hammingDistance(row.phash!, EXPECTED_PHASH["cubes.jpg"])).toBeLessThanOrEqual(8);
    expect(row.quarantinedAt).not.toBeNull();

    // Gone for everyone, the uploader included.
    expect((await call(`/files/${copy}`)).status).toBe(410);
    expect((await call(`/files/${copy}`, { token: second.access })).status).toBe(410);
    expect((await fetchRaw(`${IMAGE}/${copy}`)).status).toBe(410);

    // And in the queue, high priority, with the banned report's reason.
    const q = await queue(moderator.access, `fileId=${copy}`);
    expect(q.status).toBe(200);
    expect(q.body.reports).toHaveLength(1);
    expect(q.body.reports[0]).toMatchObject({ fileId: copy, priority: "high", status: "pending", reason: "csam" });
    expect(q.body.reports[0].file.state).toBe("quarantined");
    expect(q.body.reports[0].details).toContain(banned.body.effects.blocklistEntryId);
  }, 120_000); // two decodes plus loading the NSFW model

  it("an unrelated image is not caught", async () => {
    const other = await uploadAndAnalyse(second, "wood.jpg");
    const row = await fileRow(other);
    expect(row.quarantinedAt).toBeNull();
    expect((await call(`/files/${other}`)).status).toBe(200);
  }, 60_000);
});
