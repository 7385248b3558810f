// The per-request rate limit through the worker's real fetch handler (decisions.md § Rate limits).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { call, createKey, verifiedUser, type Reply, type TestUser } from "../support/api";
import { freshIp, leaveOnly, nowSeconds, setMultiplier, useRealLimits } from "./support";
import { REQUEST_LIMITS } from "../../src/config";

useRealLimits();

const setPlan = (id: string, plan: string) => env.DB.prepare("UPDATE users SET plan = ? WHERE id = ?").bind(plan, id).run();

function limitHeaders(res: Reply) {
  return {
    limit: Number(res.headers.get("x-ratelimit-limit")),
    remaining: Number(res.headers.get("x-ratelimit-remaining")),
    reset: Number(res.headers.get("x-ratelimit-reset")),
  };
}

function expectHeaders(res: Reply, limit: number) {
  const h = limitHeaders(res);
  expect(res.headers.get("x-ratelimit-limit"), `${res.status} ${res.text}`).not.toBeNull();
  expect(h.limit).toBe(limit);
  expect(Number.isInteger(h.remaining) && h.remaining >= 0 && h.remaining < limit).toBe(true);
  // Epoch seconds, within the hour ahead.
  expect(h.reset).toBeGreaterThan(nowSeconds());
  expect(h.reset).toBeLessThanOrEqual(nowSeconds() + 3600);
}

let user: TestUser;
let key: string;
beforeAll(async () => {
  user = await verifiedUser();
  key = (await createKey(user, { permissions: ["read"] })).key;
});

describe("headers on every response", () => {
  it("anonymous calls on each route family carry the API bucket (100/h)", async () => {
    const ip = freshIp();
    const replies = [
      await call("/openapi.json", { ip }),
      await call("/no/such/route", { ip }),
      await call("/auth/login", { ip, body: { email: "nobody@example.com", password: "wrong password" } }),
      await call("/auth/signup", { ip, body: {} }),
      await call("/account", { ip }),
      await call("/account/limits", { ip }),
      await call("/keys", { ip }),
      await call("/billing/plans", { ip }),
      await call("/admin/users", { ip }),
      await call("/dev/outbox?to=x@example.com", { ip }),
      await call("/files/file_V1StGXR8_Z5jdHi6B-myT", { ip }),
      await call("/albums", { ip }),
      await call("/moderation/report", { ip, body: {} }),
      await call("/moderation/queue", { ip }),
      await call("/upload/direct/file_V1StGXR8_Z5jdHi6B-myT", { ip, method: "PUT", raw: "x" }),
    ];
    expect(replies[0].status).toBe(200);
    for (const res of replies) expectHeaders(res, 100);
    // Each call counted once, in order.
    expect(replies.map((r) => limitHeaders(r).remaining)).toEqual(replies.map((_, i) => 99 - i));
  });

  it("refused credentials are counted against the caller's IP", async () => {
    const ip = freshIp();
    const bad = await call("/account", { ip, token: "not.a.token" });
    expect(bad.status).toBe(401);
    expectHeaders(bad, 100);
    const badKey = await call("/files", { ip, token: "pk_" + "1".repeat(32) });
    expect(badKey.status).toBe(401);
    expect(limitHeaders(badKey).remaining).toBe(98);
  });

  it("signed-in callers carry their plan's API bucket on each route family", async () => {
    for (const path of ["/account", "/account/limits", "/keys", "/billing/plans", "/no/such/route", "/files", "/albums"]) {
      expectHeaders(await call(path, { token: user.access }), 1_000);
    }
    for (const path of ["/account/limits", "/files", "/albums", "/no/such/route"]) {
      expectHeaders(await call(path, { token: key }), 1_000);
    }
  });

  it("a JSON body over the limit: 413 with the headers, counted like any call (declared length or streamed)", async () => {
    const ip = freshIp();
    const big = JSON.stringify({ email: "a".repeat(REQUEST_LIMITS.jsonBodyBytes) });
    const declared = await call("/auth/signup", { ip, raw: big, headers: { "content-type": "application/json" } });
    expect([declared.status, declared.body.details?.code]).toEqual([413, "body_too_large"]);
    expectHeaders(declared, 100);
    expect(limitHeaders(declared).remaining).toBe(99);
    // No Content-Length: the limit is met while the body is read, by the route.
    const stream = new Blob([big]).stream();
    const streamed = await call("/auth/login", { ip, raw: stream, headers: { "content-type": "application/json" } });
    expect([streamed.status, streamed.body.details?.code]).toEqual([413, "body_too_large"]);
    expectHeaders(streamed, 100);
    expect(limitHeaders(streamed).remaining).toBe(98);
    // A signed-in caller's 413 describes their plan's bucket.
    const mine = await call("/account", { method: "PATCH", token: user.access, raw: big, headers: { "content-type": "application/json" } });
    expect(mine.status).toBe(413);
    expectHeaders(mine, 1_000);
  });

  it("upload endpoints carry the uploads bucket", async () => {
    const ip = freshIp();
    const presign = await call("/upload/presign", { ip, body: {} });
    expectHeaders(presign, 5);
    expect(limitHeaders(presign).remaining).toBe(4);
    const init = await call("/upload/multipart/init", { ip, body: {} });
    expectHeaders(init, 5);
    expect(limitHeaders(init).remaining).toBe(3);
    // Both also counted as API calls.
    expect(limitHeaders(await call("/no/such/route", { ip })).remaining).toBe(97);
    // A GET on the same path is not an upload start.
    expectHeaders(await call("/upload/presign", { ip }), 100);
  });
});

describe("per-plan limits", () => {
  it.each([
    ["free", 1_000, 20],
    ["pro", 10_000, 100],
    ["enterprise", 100_000, 1_000],
  ])("%s: %i API calls and %i uploads per hour, shared by session and keys", async (plan, apiLimit, uploadLimit) => {
    const u = await verifiedUser();
    const k = (await createKey(u, { permissions: ["upload"] })).key;
    await setPlan(u.id, plan);
    const a = await call("/account", { token: u.access });
    expectHeaders(a, apiLimit);
    const b = await call("/upload/presign", { token: k, body: {} });
    expectHeaders(b, uploadLimit);
    expect(limitHeaders(b).remaining).toBe(uploadLimit - 1);
    // The key's call came out of the same API bucket as the session's.
    const c = await call("/account/limits", { token: k });
    expect(limitHeaders(c).remaining).toBe(limitHeaders(a).remaining - 2);
  });

  it("RATE_LIMIT_MULTIPLIER scales every limit, and 'off' switches limiting off", async () => {
    setMultiplier("2.5");
    expectHeaders(await call("/account", { token: user.access }), 2_500);
    expectHeaders(await call("/upload/presign", { ip: freshIp(), body: {} }), 12);
    setMultiplier("off");
    const off = await call("/account", { token: user.access });
    expect(off.status).toBe(200);
    expect(off.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("429", () => {
  it("answers the contract's body with Retry-After once the API bucket is empty", async () => {
    const u = await verifiedUser();
    const k = await createKey(u);
    await leaveOnly(`user:${u.id}`, "api", 1_000, 1);
    const last = await call("/account", { token: u.access });
    expect(last.status).toBe(200);
    expect(limitHeaders(last).remaining).toBe(0);
    const refused = await call("/account", { token: u.access });
    expect(refused.status).toBe(429);
    expect(Object.keys(refused.body).sort()).toEqual(["error", "message", "remaining", "retryAfter"]);
    expect(refused.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
    const h = limitHeaders(refused);
    expect(h).toMatchObject({ limit: 1_000, remaining: 0 });
    expect(refused.body.retryAfter).toBeGreaterThan(0);
    expect(refused.body.retryAfter).toBeLessThanOrEqual(3600);
    expect(Number(refused.headers.get("retry-after"))).toBe(refused.body.retryAfter);
    expect(Math.abs(h.reset - nowSeconds() - refused.body.retryAfter)).toBeLessThanOrEqual(1);
    // An API key of the same user is refused too.
    const byKey = await call("/files", { token: k.key });
    expect(byKey.status).toBe(429);
    expect(byKey.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
  });

  it("an upload start is refused when the uploads bucket is empty, and uses up no API call", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await call("/upload/presign", { ip, body: {} })).status).not.toBe(429);
    const refused = await call("/upload/multipart/init", { ip, body: {} });
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused)).toMatchObject({ limit: 5, remaining: 0 });
    expect(limitHeaders(await call("/no/such/route", { ip })).remaining).toBe(100 - 5 - 1);
  });

  it("an upload start is refused when the API bucket is empty, described by that bucket", async () => {
    const ip = freshIp();
    await leaveOnly(`ip:${ip}`, "api", 100, 0);
    const refused = await call("/upload/presign", { ip, body: {} });
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused)).toMatchObject({ limit: 100, remaining: 0 });
  });

  it("refused credentials get 429 once their IP's bucket is empty", async () => {
    const ip = freshIp();
    await leaveOnly(`ip:${ip}`, "api", 100, 0);
    const res = await call("/account", { ip, token: "not.a.token" });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
    expect(Number(res.headers.get("retry-after"))).toBe(res.body.retryAfter);
  });
});

describe("exactness and separation", () => {
  it("2x the limit in parallel lets exactly the limit through (API bucket)", async () => {
    const ip = freshIp();
    const replies = await Promise.all(Array.from({ length: 200 }, () => call("/no/such/route", { ip })));
    expect(replies.filter((r) => r.status === 404)).toHaveLength(100);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(100);
    const remaining = replies.filter((r) => r.status === 404).map((r) => limitHeaders(r).remaining).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it("Remaining goes down by one per call over a sequence, while calls are decided from leases", async () => {
    const u = await verifiedUser();
    const seen: number[] = [];
    for (let i = 0; i < 60; i++) seen.push(limitHeaders(await call(i % 3 ? "/account" : "/files", { token: u.access })).remaining);
    expect(seen).toEqual(seen.map((_, i) => seen[0] - i));
  });

  it("2x the limit in parallel lets exactly the limit through (uploads bucket)", async () => {
    const ip = freshIp();
    const replies = await Promise.all(Array.from({ length: 10 }, () => call("/upload/presign", { ip, body: {} })));
    expect(replies.filter((r) => r.status !== 429)).toHaveLength(5);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(5);
  });

  it("anonymous callers are counted per IP", async () => {
    const a = freshIp();
    const b = freshIp();
    await leaveOnly(`ip:${a}`, "api", 100, 0);
    expect((await call("/no/such/route", { ip: a })).status).toBe(429);
    const other = await call("/no/such/route", { ip: b });
    expect(other.status).toBe(404);
    expect(limitHeaders(other).remaining).toBe(99);
  });

  it("a signed-in user is not limited by their IP's anonymous bucket", async () => {
    const ip = freshIp();
    await leaveOnly(`ip:${ip}`, "api", 100, 0);
    expect((await call("/account", { ip, token: user.access })).status).toBe(200);
  });
});

describe("windows", () => {
  it("an empty bucket fills again when the hour turns", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const ip = freshIp();
      await leaveOnly(`ip:${ip}`, "api", 100, 0);
      const refused = await call("/no/such/route", { ip });
      expect(refused.status).toBe(429);
      const reset = limitHeaders(refused).reset;
      vi.setSystemTime(reset * 1000 - 1);
      expect((await call("/no/such/route", { ip })).status).toBe(429);
      vi.setSystemTime(reset * 1000);
      const fresh = await call("/no/such/route", { ip });
      expect(fresh.status).toBe(404);
      expect(limitHeaders(fresh)).toMatchObject({ limit: 100, remaining: 99, reset: reset + 3600 });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("OpenAPI document", () => {
  it("describes the limits, billing, admin and account lifecycle routes", async () => {
    const doc = (await call("/openapi.json", { ip: freshIp() })).body;
    for (const [path, method] of [
      ["/account/limits", "get"],
      ["/account/export", "get"],
      ["/account", "delete"],
      ["/billing/plans", "get"],
      ["/billing/subscription", "post"],
      ["/billing/webhook", "post"],
      ["/admin/users", "get"],
      ["/admin/users/{id}", "patch"],
      ["/admin/plan-changes/{id}/approve", "post"],
      ["/admin/plan-changes/{id}/reject", "post"],
    ]) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths["/billing/subscription"].post.responses["429"]).toBeDefined();
  });
});
