// GET /moderation/queue and GET /moderation/reports/:id/content: who may call them, ordering, filters,
// pagination, the item shape; and the role checks of every moderator route.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, isErrorBody, signup, verifiedUser, type TestUser } from "../support/api";
import { fetchRaw, pngLikeBytes, seedFile } from "../support/files";
import { auditOf, queue, report, resolve, userWithRole } from "../support/moderation";
import { newId } from "../../src/platform/data/ids";

let owner: TestUser;
let moderator: TestUser;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  owner = await verifiedUser();
  moderator = await userWithRole("moderator");
  admin = await userWithRole("admin");
  user = await verifiedUser();
});

async function fileAReport(reason: string, createdAt: number) {
  const file = await seedFile(owner.id);
  const res = await report({ fileId: file.id, reason });
  expect(res.status, res.text).toBe(201);
  await env.DB.prepare("UPDATE reports SET created_at = ? WHERE id = ?").bind(createdAt, res.body.reportId).run();
  return { fileId: file.id, reportId: res.body.reportId as string };
}

async function allOfQueue(token: string, query: string) {
  const res = await queue(token, `limit=100&${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.reports as any[];
}

describe("role checks on every moderator route", () => {
  let reportId: string;
  beforeAll(async () => {
    reportId = (await fileAReport("spam", Date.now())).reportId;
  });

  const routes = (id: string) => [
    { name: "queue", method: "GET", path: "/moderation/queue" },
    { name: "content", method: "GET", path: `/moderation/reports/${id}/content` },
    // A body that would fail validation: the guard runs first, so the status shows who was refused.
    { name: "resolve", method: "POST", path: `/moderation/reports/${id}/resolve`, body: { action: "nope" } },
  ];

  it("anonymous: 401", async () => {
    for (const r of routes(reportId)) {
      const res = await call(r.path, { method: r.method, body: r.body });
      expect(res.status, r.name).toBe(401);
      expect(isErrorBody(res.body)).toBe(true);
    }
  });

  it("a plain user: 403 insufficient_role", async () => {
    for (const r of routes(reportId)) {
      const res = await call(r.path, { method: r.method, body: r.body, token: user.access });
      expect(res.status, r.name).toBe(403);
      expect(res.body.error).toBe("Forbidden");
      expect(res.body.details.code).toBe("insufficient_role");
    }
  });

  it("moderators and admins pass the guard (the bad resolve body is then a 400)", async () => {
    for (const who of [moderator, admin]) {
      for (const r of routes(reportId)) {
        const res = await call(r.path, { method: r.method, body: r.body, token: who.access });
        expect(res.status, r.name).toBe(r.name === "resolve" ? 400 : 200);
      }
    }
  });

  it("API keys, even a moderator's or an admin's with every permission: 403 'API keys can only access'", async () => {
    for (const who of [moderator, admin, user]) {
      const { key } = await createKey(who, { permissions: ["read", "upload", "manage"] });
      for (const r of routes(reportId)) {
        const res = await call(r.path, { method: r.method, body: r.body, token: key });
        expect(res.status, r.name).toBe(403);
        expect(res.body.error).toBe("Forbidden");
        expect(res.body.message).toContain("API keys can only access");
      }
    }
  });

  it("a moderator demoted, logged out or suspended loses access at once", async () => {
    const mod = await userWithRole("moderator");
    expect((await queue(mod.access)).status).toBe(200);
    await env.DB.prepare("UPDATE users SET role = 'user' WHERE id = ?").bind(mod.id).run();
    expect((await queue(mod.access)).status).toBe(403);

    const mod2 = await userWithRole("moderator");
    expect((await call("/auth/logout", { method: "POST", token: mod2.access, body: {} })).status).toBeLessThan(300);
    expect((await queue(mod2.access)).status).toBe(401);

    const mod3 = await userWithRole("moderator");
    await env.DB.prepare("UPDATE users SET banned_at = ? WHERE id = ?").bind(Date.now(), mod3.id).run();
    expect((await queue(mod3.access)).status).toBe(401);
  });

  it("bad or missing tokens: 401", async () => {
    expect((await queue("not-a-token")).status).toBe(401);
    expect((await queue("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl")).status).toBe(401);
  });
});

describe("ordering, filters and pagination", () => {
  const base = Date.UTC(2020, 0, 1);
  let a: { fileId: string; reportId: string };
  let b: { fileId: string; reportId: string };
  let c: { fileId: string; reportId: string };
  let d: { fileId: string; reportId: string };

  beforeAll(async () => {
    // Older than anything else in this file, so they lead their priority group.
    a = await fileAReport("spam", base + 1_000);
    b = await fileAReport("csam", base + 2_000);
    c = await fileAReport("copyright", base + 3_000);
    d = await fileAReport("terrorism", base + 4_000);
  });

  it("high priority first, then oldest first", async () => {
    const reports = await allOfQueue(moderator.access, "");
    const ids = reports.map((r) => r.reportId);
    const ours = ids.filter((id) => [a, b, c, d].some((x) => x.reportId === id));
    expect(ours).toEqual([b.reportId, d.reportId, a.reportId, c.reportId]);
    // And globally: no normal report before a high one, each group oldest first.
    const priorities = reports.map((r) => r.priority);
    expect(priorities.lastIndexOf("high")).toBeLessThan(priorities.indexOf("normal") === -1 ? Infinity : priorities.indexOf("normal"));
    for (const group of ["high", "normal"]) {
      const times = reports.filter((r) => r.priority === group).map((r) => Date.parse(r.createdAt));
      expect(times).toEqual([...times].sort((x, y) => x - y));
    }
  });

  it("items carry the report and the file's current state", async () => {
    const reports = await allOfQueue(admin.access, `fileId=${b.fileId}`);
    expect(reports).toHaveLength(1);
    const item = reports[0];
    expect(item).toMatchObject({
      reportId: b.reportId,
      fileId: b.fileId,
      reason: "csam",
      priority: "high",
      status: "pending",
      reportCount: 1,
      action: null,
      note: null,
      resolvedBy: null,
      resolvedAt: null,
      createdAt: new Date(base + 2_000).toISOString(),
    });
    expect(item.file).toMatchObject({ id: b.fileId, ownerId: owner.id, state: "hidden", visibility: "public", mime: "image/png" });
    expect(item.file.url).toBe(`${env.IMAGE_URL}/${b.fileId}`);
    expect(item.file.contentUrl).toBe(`${env.BASE_URL}/moderation/reports/${b.reportId}/content`);
    const normal = (await allOfQueue(admin.access, `fileId=${a.fileId}`))[0];
    expect(normal.file.state).toBe("live");
  });

  it("filters by priority, reason and file", async () => {
    const high = await allOfQueue(moderator.access, "priority=high");
    expect(high.length).toBeGreaterThanOrEqual(2);
    expect(high.every((r) => r.priority === "high")).toBe(true);
    const normal = await allOfQueue(moderator.access, "priority=normal");
    expect(normal.every((r) => r.priority === "normal")).toBe(true);
    const copyright = await allOfQueue(moderator.access, "reason=copyright");
    expect(copyright.map((r) => r.reportId)).toContain(c.reportId);
    expect(copyright.every((r) => r.reason === "copyright")).toBe(true);
    expect(await allOfQueue(moderator.access, `fileId=${newId("file")}`)).toEqual([]);
  });

  it("shows pending reports by default; status=resolved and status=all show the others", async () => {
    const resolved = await fileAReport("other", base + 500);
    const r = await resolve(moderator.access, resolved.reportId, { action: "dismiss", note: "fine" });
    expect(r.status, r.text).toBe(200);
    const pending = await allOfQueue(moderator.access, "");
    expect(pending.map((x) => x.reportId)).not.toContain(resolved.reportId);
    expect(pending.every((x) => x.status === "pending")).toBe(true);
    const done = await allOfQueue(moderator.access, "status=resolved");
    expect(done.map((x) => x.reportId)).toContain(resolved.reportId);
    expect(done.every((x) => x.status === "resolved")).toBe(true);
    const item = done.find((x) => x.reportId === resolved.reportId);
    expect(item).toMatchObject({ action: "dismiss", note: "fine", resolvedBy: moderator.id });
    expect(Date.parse(item.resolvedAt)).toBeGreaterThan(0);
    const all = await allOfQueue(moderator.access, "status=all");
    expect(all.length).toBe(pending.length + done.length);
  });

  it("paginates with the contract's pagination object", async () => {
    const full = await allOfQueue(moderator.access, "");
    const total = full.length;
    expect(total).toBeGreaterThanOrEqual(5);
    const p1 = await queue(moderator.access, "limit=2&offset=0");
    const p2 = await queue(moderator.access, "limit=2&offset=2");
    const last = await queue(moderator.access, `limit=2&offset=${total - 1}`);
    expect(p1.body.pagination).toEqual({ total, limit: 2, offset: 0, hasMore: true });
    expect(p2.body.pagination).toEqual({ total, limit: 2, offset: 2, hasMore: total > 4 });
    expect(last.body.pagination).toEqual({ total, limit: 2, offset: total - 1, hasMore: false });
    expect([...p1.body.reports, ...p2.body.reports].map((r: any) => r.reportId)).toEqual(full.slice(0, 4).map((r) => r.reportId));
    const dflt = await queue(moderator.access);
    expect(dflt.body.pagination).toMatchObject({ limit: 50, offset: 0 });
  });

  it("400 for invalid query values", async () => {
    for (const q of ["limit=0", "limit=101", "offset=-1", "limit=abc", "status=open", "reason=ugly", "priority=urgent"]) {
      const res = await queue(moderator.access, q);
      expect(res.status, q).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
  });
});

describe("GET /moderation/reports/:id/content", () => {
  it("gives moderators the bytes of a hidden file, never cached, and audits the view", async () => {
    const content = pngLikeBytes(3000, 5);
    const file = await seedFile(owner.id, { content });
    const rep = await report({ fileId: file.id, reason: "csam" });
    expect((await call(`/files/${file.id}`)).status).toBe(410);

    const res = await fetchRaw(`${env.BASE_URL}/moderation/reports/${rep.body.reportId}/content`, {
      headers: { authorization: `Bearer ${moderator.access}` },
    });
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(content);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");

    const audit = await auditOf("report", rep.body.reportId);
    expect(audit.map((a) => a.action)).toContain("report.content_viewed");
    expect(audit.find((a) => a.action === "report.content_viewed")).toMatchObject({ actor_id: moderator.id });
  });

  it("404 for unknown reports and for content no longer stored", async () => {
    expect((await call(`/moderation/reports/${newId("rep")}/content`, { token: moderator.access })).status).toBe(404);
    expect((await call(`/moderation/reports/garbage/content`, { token: moderator.access })).status).toBe(404);
    const file = await seedFile(owner.id);
    const rep = await report({ fileId: file.id, reason: "spam" });
    await env.BUCKET.delete(file.storeKey);
    const res = await call(`/moderation/reports/${rep.body.reportId}/content`, { token: moderator.access });
    expect(res.status).toBe(404);
    expect(res.body.details.code).toBe("content_missing");
  });
});

describe("signup-made users are plain users", () => {
  it("a fresh account cannot see the queue", async () => {
    const fresh = await signup();
    expect((await queue(fresh.access)).status).toBe(403);
  });
});
