// An owner's delete of a file hidden for moderation review (a csam or terrorism report, or the blocklist's
// quarantine). The review hides the file from everyone, its owner included, but the file is still theirs:
// DELETE (session, manage key, or an anonymous uploader's X-Delete-Token) is recorded and answered 200, and it
// stands when a moderator later dismisses the report, on every address, with the edge-cached records off (the
// suite's default) and on. Moderation keeps its evidence as for any deleted file: the report stays open in the
// queue, and the bytes stay in R2 (the moderators' content view) until the purge's retention window has passed.
// PATCH is refused with 409 file_under_review while the review is open (nothing is recorded).
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { FileRow } from "../../src/db/schema";
import { PURGE } from "../../src/config";
import { purgeGoneFiles } from "../../src/jobs/purge";
import { shardDb } from "../../src/platform/data/db";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { cdnUrl } from "../../src/platform/http/urls";
import { BASE, call, createKey, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, SITE, fetchRaw, fileRow, pngLikeBytes, seedFile } from "../support/files";
import { queue, report, reportRow, resolve, userWithRole } from "../support/moderation";
import { expectCached, recordsOn, view } from "../support/records";
import { unreachableBindings, isD1Call } from "../support/unreachable";
import { ownerDb } from "../support/shard-db";

let owner: TestUser;
let stranger: TestUser;
let moderator: TestUser;
let manageKey: string;
let strangerKey: string;

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await verifiedUser();
  moderator = await userWithRole("moderator");
  manageKey = (await createKey(owner, { permissions: ["read", "manage"] })).key;
  strangerKey = (await createKey(stranger, { permissions: ["read", "manage"] })).key;
});

const CONTENT = pngLikeBytes(3000, 11);

/** The file's addresses: the API's read, the short link, the CDN link and the thumbnail. */
const addresses = (f: FileRow) => ({
  api: `${BASE}/files/${f.id}`,
  short: `${IMAGE}/${f.id}`,
  cdn: cdnUrl(env, f.storeKey),
  thumb: `${IMAGE}/${f.id}/thumb`,
});

/**
 * The API read with the records on, then again with D1 unreachable: what the record alone decides. (Unlike
 * expectCached's offline view, the rate limiter stays reachable: an API request may have to lease its tickets,
 * and a limiter that never answers would fail it after the lease timeout, whatever the record says.)
 */
async function expectApiFromRecord(url: string, status: number) {
  expect((await view(url)).status, `${url} (filling)`).toBe(status);
  const probe = unreachableBindings(env);
  const request = new Request(url) as Request<unknown, IncomingRequestCfProperties>;
  const res = await worker.fetch(request, { ...recordsOn, DB: probe.bindings.DB!, SHARD_1: probe.bindings.SHARD_1!, VIEW_COUNTER: probe.bindings.VIEW_COUNTER! }, createExecutionContext());
  await res.arrayBuffer();
  expect(res.status, `${url} (from the record)`).toBe(status);
  expect(probe.calls.filter((c) => isD1Call(c))).toEqual([]);
}

/** Every address answers `status`: from D1 (records off), or filled then decided from the records alone (on). */
async function expectEverywhere(f: FileRow, status: number, records: boolean) {
  for (const [name, url] of Object.entries(addresses(f))) {
    if (!records) expect((await fetchRaw(url)).status, name).toBe(status);
    else if (name === "api") await expectApiFromRecord(url, status);
    else await expectCached(url, status);
  }
}

type Deleter = { name: string; seed: () => Promise<{ file: FileRow; del: () => Promise<{ status: number; body: any }> }> };

const deleters: Deleter[] = [
  {
    name: "the owner's session",
    seed: async () => {
      const file = await seedFile(owner.id, { content: CONTENT, thumb: pngLikeBytes(400, 3) });
      return { file, del: () => call(`/files/${file.id}`, { method: "DELETE", token: owner.access }) };
    },
  },
  {
    name: "the owner's API key with the manage (delete) permission",
    seed: async () => {
      const file = await seedFile(owner.id, { content: CONTENT, thumb: pngLikeBytes(400, 3) });
      return { file, del: () => call(`/files/${file.id}`, { method: "DELETE", token: manageKey }) };
    },
  },
  {
    name: "an anonymous uploader's X-Delete-Token",
    seed: async () => {
      const token = `delete-me-${crypto.randomUUID()}`;
      const file = await seedFile(null, { content: CONTENT, thumb: pngLikeBytes(400, 3), deleteTokenHash: await sha256Hex(token) });
      return { file, del: () => call(`/files/${file.id}`, { method: "DELETE", headers: { "x-delete-token": token } }) };
    },
  },
];

const fileState = (id: string) =>
  ownerDb.prepare("SELECT hidden_at, deleted_at, visibility, title FROM files WHERE id = ?").bind(id).first<{ hidden_at: number | null; deleted_at: number | null; visibility: string; title: string | null }>();

async function moderatorContent(reportId: string) {
  return fetchRaw(`${BASE}/moderation/reports/${reportId}/content`, { headers: { authorization: `Bearer ${moderator.access}` } });
}

describe.each([
  ["records off", false],
  ["edge-cached records on", true],
] as const)("%s", (_label, records) => {
  describe.each(["csam", "terrorism"] as const)("a file hidden by a %s report", (reason) => {
    it.each(deleters.map((d) => [d.name, d] as const))("deleted by %s: recorded, and still gone after the report is dismissed", async (_name, deleter) => {
      const { file, del } = await deleter.seed();
      await expectEverywhere(file, 200, records); // (on: every address's records and bytes are in the cache)
      const filed = await report({ fileId: file.id, reason }, { ip: "203.0.113.120" });
      expect(filed.status, filed.text).toBe(201);
      const reportId: string = filed.body.reportId;
      await expectEverywhere(file, 410, records); // hidden (on: the records now say so)

      const res = await del();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ message: "File deleted" });
      const row = await fileState(file.id);
      expect(row!.deleted_at).toBeGreaterThan(0);
      expect(row!.hidden_at).toBeGreaterThan(0); // the review goes on

      // Evidence, as for any deleted file: the report is still open, the queue shows the file deleted, the
      // moderators' view still has the bytes, and the object stays in R2.
      expect((await reportRow(reportId))!.status).toBe("pending");
      const item = (await queue(moderator.access, `fileId=${file.id}`)).body.reports[0];
      expect(item).toMatchObject({ reportId, status: "pending", file: { id: file.id, state: "deleted" } });
      const content = await moderatorContent(reportId);
      expect(content.status).toBe(200);
      expect(content.bytes).toEqual(CONTENT);

      const dismissed = await resolve(moderator.access, reportId, { action: "dismiss", note: "no violation" });
      expect(dismissed.status, dismissed.text).toBe(200);
      expect(dismissed.body.report.file.state).toBe("deleted");

      // Gone for everyone, on every address, as the contract says of deleted files: 410 "deleted".
      await expectEverywhere(file, 410, records);
      for (const token of [undefined, owner.access]) {
        const api = await call(`/files/${file.id}`, { token });
        expect([api.status, api.body.details.code]).toEqual([410, "file_deleted"]);
      }
      if (file.userId) {
        const list = await call("/files?limit=100", { token: owner.access });
        expect(list.body.files.map((x: { id: string }) => x.id)).not.toContain(file.id);
      }
      expect((await fetchRaw(`${SITE}/f/${file.id}`)).status).toBe(410);
      expect((await del()).status).toBe(410); // already deleted
      // The evidence outlives the dismissal, as it does for any deleted file.
      expect((await moderatorContent(reportId)).bytes).toEqual(CONTENT);
      expect(await env.BUCKET.head(file.storeKey)).not.toBeNull();
    });
  });
});

describe("what moderation keeps of a file deleted under review: the same as of any deleted file", () => {
  it("the purge keeps the objects for the retention window after the owner's delete, then removes them", async () => {
    const hidden = await seedFile(owner.id, { content: CONTENT, thumb: pngLikeBytes(300, 5) });
    const db = shardDb(env, shardOfIdIn(env, "file", hidden.id)); // the owner's shard
    const plain = await seedFile(owner.id, { content: CONTENT, thumb: pngLikeBytes(300, 5) });
    const hiddenReport = (await report({ fileId: hidden.id, reason: "csam" }, { ip: "203.0.113.121" })).body.reportId;
    const plainReport = (await report({ fileId: plain.id, reason: "spam" }, { ip: "203.0.113.121" })).body.reportId;
    for (const f of [hidden, plain]) expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    const deletedAt = Math.max((await fileRow(hidden.id))!.deletedAt!.getTime(), (await fileRow(plain.id))!.deletedAt!.getTime());

    await purgeGoneFiles(env, db, deletedAt + PURGE.retentionSeconds * 1000 - 1000);
    for (const [f, r] of [[hidden, hiddenReport], [plain, plainReport]] as const) {
      expect(await env.BUCKET.head(f.storeKey)).not.toBeNull();
      expect(await env.BUCKET.head(f.thumbKey!)).not.toBeNull();
      expect((await moderatorContent(r)).status).toBe(200);
    }
    await purgeGoneFiles(env, db, deletedAt + PURGE.retentionSeconds * 1000 + 1000);
    for (const f of [hidden, plain]) {
      expect(await env.BUCKET.head(f.storeKey)).toBeNull();
      expect((await fileRow(f.id))!.purgedAt).not.toBeNull();
    }
  });
});

describe("who else may delete a file under review: nobody", () => {
  it("a stranger gets what a read gives them (410 public, 404 private), a wrong token 403, no credentials 401; nothing changes", async () => {
    const token = `delete-me-${crypto.randomUUID()}`;
    const pub = await seedFile(owner.id);
    const priv = await seedFile(owner.id, { visibility: "private" });
    const anon = await seedFile(null, { deleteTokenHash: await sha256Hex(token) });
    const reports: string[] = [];
    for (const f of [pub, priv, anon]) {
      // The owner may report their own private file; anyone else's report of it would be 404.
      const r = await report({ fileId: f.id, reason: "terrorism" }, f === priv ? { token: owner.access } : { ip: "203.0.113.122" });
      expect(r.status, r.text).toBe(201);
      reports.push(r.body.reportId);
    }
    const unknown = await call("/files/file_AAAAAAAAAAAAAAAAAAAAA", { method: "DELETE", token: stranger.access });

    for (const t of [stranger.access, strangerKey]) {
      const onPublic = await call(`/files/${pub.id}`, { method: "DELETE", token: t });
      expect([onPublic.status, onPublic.body.details.code]).toEqual([410, "file_unavailable"]); // as GET /files/:id answers them
      const onPrivate = await call(`/files/${priv.id}`, { method: "DELETE", token: t });
      expect(onPrivate.status).toBe(404);
      expect(onPrivate.body).toEqual(unknown.body); // exactly as an unknown id
      expect((await call(`/files/${anon.id}`, { method: "DELETE", token: t })).status).toBe(410);
    }
    expect((await call(`/files/${anon.id}`, { method: "DELETE", headers: { "x-delete-token": `${token}x` } })).status).toBe(403);
    expect((await call(`/files/${pub.id}`, { method: "DELETE", headers: { "x-delete-token": token } })).status).toBe(403);
    expect((await call(`/files/${priv.id}`, { method: "DELETE", headers: { "x-delete-token": token } })).status).toBe(404);
    expect((await call(`/files/${pub.id}`, { method: "DELETE" })).status).toBe(401);

    for (const f of [pub, priv, anon]) expect((await fileState(f.id))!.deleted_at).toBeNull();
    for (const r of reports) expect((await resolve(moderator.access, r, { action: "dismiss" })).status).toBe(200);
    expect((await call(`/files/${pub.id}`)).status).toBe(200);
    expect((await call(`/files/${priv.id}`, { token: owner.access })).status).toBe(200);
    expect((await call(`/files/${anon.id}`)).status).toBe(200);
  });
});

describe("PATCH of a file under review: refused with 409 file_under_review, nothing recorded", () => {
  it("session and manage key get 409 for every field; after the dismissal the same PATCH applies", async () => {
    const f = await seedFile(owner.id, { title: "as reported" });
    const r = await report({ fileId: f.id, reason: "csam" }, { ip: "203.0.113.123" });
    for (const token of [owner.access, manageKey]) {
      for (const body of [{ visibility: "private" }, { title: "innocent" }, { expiresIn: 60 }, { tags: ["x"] }]) {
        const res = await call(`/files/${f.id}`, { method: "PATCH", token, body });
        expect([res.status, res.body.error, res.body.details.code], JSON.stringify(body)).toEqual([409, "Conflict", "file_under_review"]);
        expect(res.body.message).toMatch(/review/);
      }
    }
    // Strangers learn no more than a read tells them.
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: stranger.access, body: { title: "x" } })).status).toBe(410);
    // Validation still comes first.
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { visibility: "nope" } })).status).toBe(400);

    expect(await fileState(f.id)).toMatchObject({ visibility: "public", title: "as reported", deleted_at: null });
    expect((await resolve(moderator.access, r.body.reportId, { action: "dismiss" })).status).toBe(200);
    const after = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { visibility: "private" } });
    expect(after.status, after.text).toBe(200);
    expect(after.body.file.visibility).toBe("private");
    expect((await call(`/files/${f.id}`)).status).toBe(404);
  });

  it("a file deleted or banned stays 410 to its owner's PATCH and DELETE, under review or not", async () => {
    const at = new Date();
    for (const state of [{ deletedAt: at }, { bannedAt: at }, { bannedAt: at, hiddenAt: at }, { deletedAt: at, hiddenAt: at }]) {
      const f = await seedFile(owner.id, state);
      expect((await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { title: "x" } })).status, JSON.stringify(state)).toBe(410);
      expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status, JSON.stringify(state)).toBe(410);
    }
    const expired = await seedFile(owner.id, { expiresAt: new Date(Date.now() - 1000), hiddenAt: at });
    expect((await call(`/files/${expired.id}`, { method: "DELETE", token: owner.access })).status).toBe(410);
  });
});

describe("a file quarantined by the blocklist is under review too", () => {
  it("its owner's delete is recorded and stands when a moderator lifts the quarantine", async () => {
    const f = await seedFile(owner.id, { quarantinedAt: new Date() });
    const r = await report({ fileId: f.id, reason: "other" }, { ip: "203.0.113.124" });
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { title: "x" } })).body.details?.code).toBe("file_under_review");
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    expect((await resolve(moderator.access, r.body.reportId, { action: "dismiss" })).status).toBe(200);
    expect((await call(`/files/${f.id}`)).body.details.code).toBe("file_deleted");
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(410);
  });
});
