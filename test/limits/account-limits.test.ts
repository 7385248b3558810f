// GET /account/limits: plan, size limit, quota and both buckets, for a session or any API key.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, isErrorBody, verifiedUser, type TestUser } from "../support/api";
import { freshIp, useRealLimits } from "./support";
import { setStorage } from "../support/owners";

useRealLimits();

let user: TestUser;
beforeAll(async () => {
  user = await verifiedUser();
});

describe("GET /account/limits", () => {
  it("shows the free plan's figures and the storage quota (the owner's counters on its shard)", async () => {
    await setStorage(user.id, 1234, 100);
    // The directory's old counters are no longer the quota's (migration 0010 copied them to the shard).
    await env.DB.prepare("UPDATE users SET storage_used = 7, storage_reserved = 7 WHERE id = ?").bind(user.id).run();
    const res = await call("/account/limits", { token: user.access });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: "free",
      maxFileBytes: 20_000_000,
      quota: { used: 1234, reserved: 100, total: 2_000_000_000, remaining: 2_000_000_000 - 1334 },
      rateLimits: {
        apiCalls: { limit: 1_000, windowSeconds: 3600 },
        uploads: { limit: 20, remaining: 20, windowSeconds: 3600 },
      },
    });
    expect(res.body.rateLimits.apiCalls.remaining).toBe(Number(res.headers.get("x-ratelimit-remaining")));
    expect(res.body.rateLimits.apiCalls.reset).toBe(Number(res.headers.get("x-ratelimit-reset")));
  });

  it("consumes only the request itself", async () => {
    const a = await call("/account/limits", { token: user.access });
    const b = await call("/account/limits", { token: user.access });
    expect(b.body.rateLimits.apiCalls.remaining).toBe(a.body.rateLimits.apiCalls.remaining - 1);
    expect(b.body.rateLimits.uploads.remaining).toBe(a.body.rateLimits.uploads.remaining);
  });

  it("reports an upload start in the uploads bucket", async () => {
    const before = await call("/account/limits", { token: user.access });
    await call("/upload/presign", { token: user.access, body: {} });
    const after = await call("/account/limits", { token: user.access });
    expect(after.body.rateLimits.uploads.remaining).toBe(before.body.rateLimits.uploads.remaining - 1);
    expect(after.body.rateLimits.apiCalls.remaining).toBe(before.body.rateLimits.apiCalls.remaining - 2);
  });

  it("follows the plan", async () => {
    const u = await verifiedUser();
    await env.DB.prepare("UPDATE users SET plan = 'pro' WHERE id = ?").bind(u.id).run();
    const res = await call("/account/limits", { token: u.access });
    expect(res.body).toMatchObject({
      plan: "pro",
      maxFileBytes: 200_000_000,
      quota: { total: 200_000_000_000 },
      rateLimits: { apiCalls: { limit: 10_000 }, uploads: { limit: 100 } },
    });
  });

  it.each([[["read"]], [["upload"]], [["manage"]]])("works with an API key holding %j", async (permissions) => {
    const { key } = await createKey(user, { permissions });
    const res = await call("/account/limits", { token: key });
    expect(res.status).toBe(200);
    expect(res.body.plan).toBe("free");
  });

  it("refuses anonymous callers, revoked keys and bad tokens", async () => {
    const anon = await call("/account/limits", { ip: freshIp() });
    expect(anon.status).toBe(401);
    expect(isErrorBody(anon.body)).toBe(true);
    const { id, key } = await createKey(user);
    expect((await call(`/keys/${id}`, { method: "DELETE", token: user.access })).status).toBeLessThan(300);
    const revoked = await call("/account/limits", { token: key });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe("API key has been revoked");
    expect((await call("/account/limits", { token: "x.y.z" })).status).toBe(401);
  });
});
