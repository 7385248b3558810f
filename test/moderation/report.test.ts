// POST /moderation/report: who may report, validation, what a report reveals, aggregation, rate limits.
// No moderator exists in this file on purpose: the escalation falls back to ADMIN_EMAILS here.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, createKey, isErrorBody, signup, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { freshIp, outboxOfKind, report, reportRow, reportsOfFile } from "../support/moderation";
import { exports } from "cloudflare:workers";
import { leaveOnly, setMultiplier } from "../limits/support";
import { startOfNextWindow } from "../support/clock";
import { reporterIpHash } from "../../src/moderation/reports";
import { newId } from "../../src/platform/data/ids";
import { setOwnerBan } from "../support/owners";
import { ownerDb } from "../support/shard-db";

let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await signup();
});

describe("filing a report", () => {
  it("anonymous: 201 with the contract's body; stored pending, normal priority, IP only as a keyed hash", async () => {
    const file = await seedFile(owner.id);
    const ip = freshIp();
    const res = await report({ fileId: file.id, reason: "spam", details: "link farm", email: "Reporter@Example.com" }, { ip });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["complianceMessage", "message", "reportId", "status"]);
    expect(res.body.status).toBe("pending");
    expect(res.body.reportId).toMatch(/^rep_[A-Za-z0-9_-]{21}$/);
    expect(typeof res.body.message).toBe("string");
    expect(res.body.complianceMessage.length).toBeGreaterThan(20);

    const row = (await reportRow(res.body.reportId))!;
    expect(row).toMatchObject({ file_id: file.id, reason: "spam", details: "link farm", priority: "normal", status: "pending", report_count: 1 });
    expect(row.reporter_user_id).toBeNull();
    expect(row.email).toBe("Reporter@Example.com");
    expect(row.reporter_ip_hash).toBe(await reporterIpHash(env, ip));
    expect(row.reporter_ip_hash).not.toContain(ip);
  });

  it("details and email are optional", async () => {
    const file = await seedFile(owner.id);
    const res = await report({ fileId: file.id, reason: "other" });
    expect(res.status, res.text).toBe(201);
    const row = (await reportRow(res.body.reportId))!;
    expect(row.details).toBe("");
    expect(row.email).toBeNull();
  });

  it("a signed-in reporter (session) is recorded", async () => {
    const file = await seedFile(owner.id);
    const res = await report({ fileId: file.id, reason: "harassment" }, { token: stranger.access });
    expect(res.status, res.text).toBe(201);
    expect((await reportRow(res.body.reportId))!.reporter_user_id).toBe(stranger.id);
  });

  it("API keys may report whatever their permissions; revoked, expired and unknown keys get the contract's 401", async () => {
    const file = await seedFile(owner.id);
    for (const permissions of [["read"], ["upload"], ["manage"]]) {
      const { key } = await createKey(owner, { permissions });
      const res = await report({ fileId: file.id, reason: "copyright" }, { token: key });
      expect(res.status, `${permissions} ${res.text}`).toBe(201);
    }
    expect((await reportsOfFile(file.id))[0].reporter_user_id).toBe(owner.id);

    const revoked = await createKey(owner);
    expect((await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    const r1 = await report({ fileId: file.id, reason: "spam" }, { token: revoked.key });
    expect(r1.status).toBe(401);
    expect(r1.body.error).toBe("API key has been revoked");

    const expired = await createKey(owner);
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, expired.id).run();
    const r2 = await report({ fileId: file.id, reason: "spam" }, { token: expired.key });
    expect(r2.status).toBe(401);
    expect(r2.body.error).toBe("API key has expired");

    const r3 = await report({ fileId: file.id, reason: "spam" }, { token: "pk_" + "1".repeat(32) });
    expect(r3.status).toBe(401);
    expect(r3.body.error).toBe("Invalid API key");
  });

  it("an age-restricted file can be reported by anyone (safe mode does not apply)", async () => {
    const file = await seedFile(owner.id, { ageRestricted: true, nsfwScore: 0.97 });
    const res = await report({ fileId: file.id, reason: "adult_content" });
    expect(res.status, res.text).toBe(201);
  });

  it("unlisted files can be reported", async () => {
    const file = await seedFile(owner.id, { visibility: "unlisted" });
    expect((await report({ fileId: file.id, reason: "violence" })).status).toBe(201);
  });
});

describe("validation", () => {
  let fileId: string;
  beforeAll(async () => {
    fileId = (await seedFile(owner.id)).id;
  });

  const cases: [string, unknown, string][] = [
    ["missing fileId", { reason: "spam" }, "fileId"],
    ["missing reason", { fileId: "file_x" }, "reason"],
    ["unknown reason", { fileId: "file_x", reason: "ugly" }, "reason"],
    ["reason of the wrong type", { fileId: "file_x", reason: 3 }, "reason"],
    ["fileId of the wrong type", { fileId: 12, reason: "spam" }, "fileId"],
    ["empty fileId", { fileId: "", reason: "spam" }, "fileId"],
    ["huge fileId", { fileId: "f".repeat(10_000), reason: "spam" }, "fileId"],
    ["details too long", { fileId: "file_x", reason: "spam", details: "x".repeat(2_001) }, "details"],
    ["details with control characters", { fileId: "file_x", reason: "spam", details: "a\u0000b" }, "details"],
    ["invalid e-mail", { fileId: "file_x", reason: "spam", email: "not-an-address" }, "email"],
    ["e-mail of the wrong type", { fileId: "file_x", reason: "spam", email: ["a@b.co"] }, "email"],
    ["unknown field", { fileId: "file_x", reason: "spam", priority: "high" }, "priority"],
  ];
  for (const [name, body, field] of cases) {
    it(`400 for ${name}`, async () => {
      const res = await call("/moderation/report", { body });
      expect(res.status, res.text).toBe(400);
      expect(isErrorBody(res.body)).toBe(true);
      expect(res.body.details.code).toBe("validation_error");
      expect(res.body.details.fields.map((f: any) => f.path)).toContain(field);
    });
  }

  it("400 for malformed JSON, a non-object body and no body", async () => {
    for (const raw of ["{not json", "[]", "null", ""]) {
      const res = await call("/moderation/report", { raw, headers: { "content-type": "application/json" }, method: "POST" });
      expect(res.status, `${raw}: ${res.text}`).toBe(400);
      expect(isErrorBody(res.body)).toBe(true);
    }
  });

  it("details at the limit and line breaks are accepted", async () => {
    const res = await report({ fileId, reason: "other", details: "line one\nline two\r\n" + "x".repeat(2_000 - 20) });
    expect(res.status, res.text).toBe(201);
  });

  it("nothing is stored for a refused report", async () => {
    const before = (await reportsOfFile(fileId)).length;
    await call("/moderation/report", { body: { fileId, reason: "ugly" } });
    expect((await reportsOfFile(fileId)).length).toBe(before);
  });
});

describe("what a report reveals", () => {
  it("unknown ids and other people's private files give the same 404 as reading them", async () => {
    const priv = await seedFile(owner.id, { visibility: "private" });
    const unknown = await report({ fileId: newId("file"), reason: "csam" });
    const malformed = await report({ fileId: "nonsense", reason: "csam" });
    const privateAnon = await report({ fileId: priv.id, reason: "csam" });
    const privateOther = await report({ fileId: priv.id, reason: "csam" }, { token: stranger.access });
    for (const res of [unknown, malformed, privateAnon, privateOther]) {
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    const read = await call(`/files/${priv.id}`);
    expect(read.status).toBe(404);
    expect(read.body).toEqual(unknown.body);
    // ... and nothing happened to the private file.
    expect(await reportsOfFile(priv.id)).toEqual([]);
    const row = await ownerDb.prepare("SELECT hidden_at FROM files WHERE id = ?").bind(priv.id).first<{ hidden_at: number | null }>();
    expect(row!.hidden_at).toBeNull();
  });

  it("the owner may report their own private file", async () => {
    const priv = await seedFile(owner.id, { visibility: "private" });
    expect((await report({ fileId: priv.id, reason: "other" }, { token: owner.access })).status).toBe(201);
  });

  it("an upload not finalized yet is 404", async () => {
    const pending = await seedFile(owner.id, { state: "created", finalizedAt: null });
    expect((await report({ fileId: pending.id, reason: "spam" })).status).toBe(404);
  });

  it("files already gone (deleted, banned, expired, owner suspended) give the read's 410", async () => {
    const banned = await signup();
    await setOwnerBan(banned.id);
    const gone = [
      await seedFile(owner.id, { deletedAt: new Date() }),
      await seedFile(owner.id, { bannedAt: new Date() }),
      await seedFile(owner.id, { expiresAt: new Date(Date.now() - 1000) }),
      await seedFile(banned.id),
    ];
    for (const f of gone) {
      const res = await report({ fileId: f.id, reason: "spam" });
      expect(res.status, res.text).toBe(410);
      expect(res.body.error).toBe("Gone");
      expect(await reportsOfFile(f.id)).toEqual([]);
    }
  });
});

describe("aggregation", () => {
  it("repeated reports of a file add to its one open report: same reportId, count grows, every reporter's words kept", async () => {
    const file = await seedFile(owner.id);
    const first = await report({ fileId: file.id, reason: "spam", details: "first" });
    const second = await report({ fileId: file.id, reason: "harassment", details: "second" }, { token: stranger.access });
    const third = await report({ fileId: file.id, reason: "spam" });
    for (const r of [first, second, third]) expect(r.status, r.text).toBe(201);
    expect(second.body.reportId).toBe(first.body.reportId);
    expect(third.body.reportId).toBe(first.body.reportId);
    expect(first.body.message).not.toBe(second.body.message);

    const rows = await reportsOfFile(file.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ report_count: 3, reason: "spam", priority: "normal", status: "pending" });
    // The first reporter stays the reporter of record; later ones add their reason and words.
    expect(rows[0].reporter_user_id).toBeNull();
    expect(rows[0].details).toBe("first\n[harassment] second");
  });

  it("a high-priority reason escalates the open report (priority high, reason, file hidden)", async () => {
    const file = await seedFile(owner.id);
    const first = await report({ fileId: file.id, reason: "other", details: "odd" });
    const second = await report({ fileId: file.id, reason: "terrorism", details: "propaganda" });
    expect(second.body.reportId).toBe(first.body.reportId);
    const [row] = await reportsOfFile(file.id);
    expect(row).toMatchObject({ report_count: 2, reason: "terrorism", priority: "high" });
    expect(row.details).toBe("odd\n[terrorism] propaganda");
    expect((await call(`/files/${file.id}`)).status).toBe(410);
    // A later normal report does not lower it.
    await report({ fileId: file.id, reason: "spam" });
    expect((await reportsOfFile(file.id))[0]).toMatchObject({ report_count: 3, reason: "terrorism", priority: "high" });
  });

  it("concurrent reports of one file make one report", async () => {
    const file = await seedFile(owner.id);
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => report({ fileId: file.id, reason: i % 2 ? "spam" : "violence" })));
    for (const r of replies) expect(r.status, r.text).toBe(201);
    expect(new Set(replies.map((r) => r.body.reportId)).size).toBe(1);
    const rows = await reportsOfFile(file.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].report_count).toBe(8);
  });

  it("aggregated details stop growing at the cap", async () => {
    const file = await seedFile(owner.id);
    for (let i = 0; i < 12; i++) {
      expect((await report({ fileId: file.id, reason: "spam", details: "y".repeat(2_000) })).status).toBe(201);
    }
    const [row] = await reportsOfFile(file.id);
    expect(row.report_count).toBe(12);
    expect(row.details.length).toBeLessThanOrEqual(20_000);
  });
});

describe("escalation without any moderator account", () => {
  it("csam mails the ADMIN_EMAILS addresses", async () => {
    const file = await seedFile(owner.id);
    const res = await report({ fileId: file.id, reason: "csam" });
    expect(res.status).toBe(201);
    const mails = await outboxOfKind("moderation_escalation", res.body.reportId);
    expect(mails.map((m) => m.to_address)).toEqual(["root@example.com"]);
  });
});

describe("rate limits", () => {
  it("reports count against the anonymous caller's IP like any call: the limit's next report is 429", async () => {
    const file = await seedFile(owner.id);
    const ip = freshIp();
    const saved = env.RATE_LIMIT_MULTIPLIER;
    setMultiplier("1");
    const realClock = startOfNextWindow(3600); // the filled bucket and both reports in one hourly window
    try {
      await leaveOnly(`ip:${ip}`, "api", 100, 1);
      const ok = await report({ fileId: file.id, reason: "spam" }, { ip });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.headers.get("x-ratelimit-limit")).toBe("100");
      expect(ok.headers.get("x-ratelimit-remaining")).toBe("0");
      const refused = await report({ fileId: file.id, reason: "spam" }, { ip });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ remaining: 0 });
      expect(refused.body.retryAfter).toBeGreaterThan(0);
      expect(refused.headers.get("retry-after")).toBe(String(refused.body.retryAfter));
      // Only the first was counted into the report.
      expect((await reportsOfFile(file.id))[0].report_count).toBe(1);
      // Another address is not affected.
      expect((await report({ fileId: file.id, reason: "spam" }, { ip: freshIp() })).status).toBe(201);
    } finally {
      realClock();
      setMultiplier(saved);
    }
  });
});

describe("OpenAPI", () => {
  it("documents the report route and the moderator routes", async () => {
    const res = await exports.default.fetch(`${BASE}/openapi.json`);
    const doc: any = await res.json();
    expect(doc.paths["/moderation/report"].post).toBeDefined();
    expect(doc.paths["/moderation/queue"].get).toBeDefined();
    expect(doc.paths["/moderation/reports/{id}/resolve"].post).toBeDefined();
    expect(doc.paths["/moderation/reports/{id}/content"].get).toBeDefined();
  });
});
