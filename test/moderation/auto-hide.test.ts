// csam and terrorism reports: the file is hidden from everyone at once (410 on the API, short link,
// thumbnail, CDN link and page), its edge-cache entry is dropped, the report is high priority, and the
// moderators are notified through the outbox, with an audit record.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, signup, verifiedUser, type TestUser } from "../support/api";
import { CDN, IMAGE, SITE, fetchRaw, pngLikeBytes, seedFile } from "../support/files";
import { auditOf, outboxOfKind, report, reportsOfFile, userWithRole } from "../support/moderation";
import { edgeCacheKey } from "../../src/serving/edge-cache";
import type { FileRow } from "../../src/db/schema";
import { ownerDb } from "../support/shard-db";

let owner: TestUser;
let moderator: TestUser;
let admin: TestUser;
let bannedModerator: TestUser;
let plainUser: TestUser;

beforeAll(async () => {
  owner = await verifiedUser();
  moderator = await userWithRole("moderator");
  admin = await userWithRole("admin");
  bannedModerator = await userWithRole("moderator");
  await env.DB.prepare("UPDATE users SET banned_at = ? WHERE id = ?").bind(Date.now(), bannedModerator.id).run();
  plainUser = await signup();
});

const cdnOf = (f: FileRow) => `${CDN}/${f.storeKey}`;

/** Every public address of a file, with the credentials its owner would use where that matters. */
function servingPaths(f: FileRow) {
  return {
    api: () => call(`/files/${f.id}`),
    apiAsOwner: () => call(`/files/${f.id}`, { token: owner.access }),
    download: () => call(`/files/${f.id}/download`),
    shortLink: () => fetchRaw(`${IMAGE}/${f.id}`),
    thumbnail: () => fetchRaw(`${IMAGE}/${f.id}/thumb`),
    cdnLink: () => fetchRaw(cdnOf(f)),
    headShortLink: () => fetchRaw(`${IMAGE}/${f.id}`, { method: "HEAD" }),
  };
}

async function waitForCacheEntry(key: string): Promise<Response | undefined> {
  const cache = (caches as unknown as { default: Cache }).default;
  for (let i = 0; i < 50; i++) {
    const hit = await cache.match(key);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

describe.each(["csam", "terrorism"] as const)("a %s report", (reason) => {
  let file: FileRow;
  let reportId: string;

  beforeAll(async () => {
    file = await seedFile(owner.id, { content: pngLikeBytes(4096, 9), thumb: pngLikeBytes(512, 4) });
  });

  it("before: every address serves the file", async () => {
    for (const [name, get] of Object.entries(servingPaths(file))) {
      const res = await get();
      expect(res.status, name).toBe(200);
    }
  });

  it("answers 201 pending with the escalation's compliance message", async () => {
    // Fill the edge cache first, so the purge can be observed.
    await fetchRaw(`${IMAGE}/${file.id}`);
    expect(await waitForCacheEntry(edgeCacheKey(env, file.id, "original"))).toBeDefined();

    const res = await report({ fileId: file.id, reason, details: "reporter-words-xyz" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe("pending");
    expect(res.body.complianceMessage).toMatch(/law enforcement/);
    reportId = res.body.reportId;
  });

  it("hides the file on every address at once: 410 for everyone, the owner included", async () => {
    for (const [name, get] of Object.entries(servingPaths(file))) {
      const res = await get();
      expect(res.status, name).toBe(410);
    }
    // The error bodies do not say why (review states read like a removal).
    const api = await call(`/files/${file.id}`);
    expect(api.body.error).toBe("Gone");
    expect(api.body.details.code).toBe("file_unavailable");
    const short = await fetchRaw(`${IMAGE}/${file.id}`);
    expect(short.json.details.code).toBe("file_unavailable");
    expect(short.headers.get("cache-control")).toBe("no-store");
    // An API key of the owner sees the same.
    const { key } = await createKey(owner, { permissions: ["read"] });
    expect((await call(`/files/${file.id}`, { token: key })).status).toBe(410);
    // Conditional requests do not slip past it either.
    const conditional = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { "if-none-match": `"${file.storeEtag}"` } });
    expect(conditional.status).toBe(410);
  });

  it("the page {site_url}/f/<id> reads 410 too (a live file's page is 200)", async () => {
    const page = await fetchRaw(`${SITE}/f/${file.id}`);
    const live = await seedFile(owner.id);
    const livePage = await fetchRaw(`${SITE}/f/${live.id}`);
    expect(livePage.status).toBe(200);
    expect(page.status).toBe(410);
    expect(page.text).not.toContain(file.storeKey);
  });

  it("drops the edge-cache entry", async () => {
    const cache = (caches as unknown as { default: Cache }).default;
    expect(await cache.match(edgeCacheKey(env, file.id, "original"))).toBeUndefined();
  });

  it("stores the report high priority and marks the file hidden", async () => {
    const [row] = await reportsOfFile(file.id);
    expect(row).toMatchObject({ id: reportId, reason, priority: "high", status: "pending", report_count: 1 });
    const f = await ownerDb.prepare("SELECT hidden_at, banned_at, deleted_at FROM files WHERE id = ?").bind(file.id).first<any>();
    expect(f.hidden_at).toBeGreaterThan(0);
    expect(f.banned_at).toBeNull();
    expect(f.deleted_at).toBeNull();
  });

  it("notifies every active moderator and admin through the outbox, without the reporter's words", async () => {
    const mails = await outboxOfKind("moderation_escalation", reportId);
    expect(mails.map((m) => m.to_address).sort()).toEqual([moderator.email, admin.email].sort());
    expect(mails[0].subject).toContain(reason);
    expect(mails[0].text).toContain(file.id);
    expect(mails[0].text).not.toContain("reporter-words-xyz");
    expect(mails.map((m) => m.to_address)).not.toContain(bannedModerator.email);
    expect(mails.map((m) => m.to_address)).not.toContain(plainUser.email);
  });

  it("writes an audit record of the escalation", async () => {
    const audit = await auditOf("report", reportId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: null, action: "report.escalated" });
    expect(audit[0].details).toMatchObject({ fileId: file.id, ownerId: owner.id, reason, fileHidden: true, notified: 2 });
  });

  it("further reports aggregate without mailing again", async () => {
    const again = await report({ fileId: file.id, reason });
    const other = await report({ fileId: file.id, reason: "spam" });
    expect(again.status).toBe(201);
    expect(again.body.reportId).toBe(reportId);
    expect(other.body.reportId).toBe(reportId);
    expect((await reportsOfFile(file.id))[0].report_count).toBe(3);
    expect(await outboxOfKind("moderation_escalation", reportId)).toHaveLength(2);
    expect(await auditOf("report", reportId)).toHaveLength(1);
  });
});

describe("normal reasons", () => {
  it("queue normally: the file stays visible and nobody is mailed", async () => {
    const file = await seedFile(owner.id);
    for (const reason of ["adult_content", "violence", "harassment", "hate_speech", "self_harm", "spam", "copyright", "other"]) {
      const res = await report({ fileId: file.id, reason });
      expect(res.status, reason).toBe(201);
      expect(res.body.complianceMessage).not.toMatch(/law enforcement/);
    }
    const [row] = await reportsOfFile(file.id);
    expect(row).toMatchObject({ priority: "normal", report_count: 8 });
    expect((await call(`/files/${file.id}`)).status).toBe(200);
    expect((await fetchRaw(`${IMAGE}/${file.id}`)).status).toBe(200);
    expect(await outboxOfKind("moderation_escalation", row.id)).toEqual([]);
  });

  it("a normal report turning high later escalates then (once)", async () => {
    const file = await seedFile(owner.id);
    const first = await report({ fileId: file.id, reason: "other" });
    expect(await outboxOfKind("moderation_escalation", first.body.reportId)).toEqual([]);
    await report({ fileId: file.id, reason: "csam" });
    expect(await outboxOfKind("moderation_escalation", first.body.reportId)).toHaveLength(2);
    expect((await fetchRaw(`${IMAGE}/${file.id}`)).status).toBe(410);
  });
});

describe("private files", () => {
  it("a stranger's csam report of a private file is a 404 and hides nothing", async () => {
    const file = await seedFile(owner.id, { visibility: "private" });
    const res = await report({ fileId: file.id, reason: "csam" }, { token: plainUser.access });
    expect(res.status).toBe(404);
    expect((await call(`/files/${file.id}`, { token: owner.access })).status).toBe(200);
  });
});
