// Principals resolved from edge-cached records (src/auth/principal-records.ts). The suite runs with
// ACCESS_RECORD_SECONDS=0; this file turns the records on, proves a warm session or key needs no D1 query,
// and that every change a principal depends on, made through the API, reaches the very next request.
import { decodeRecord } from "../../src/platform/edge/edge-records";
import type { KeyFacts, PrincipalUser } from "../../src/auth/principal-records";
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { resolvePrincipal } from "../../src/auth/principal";
import { directoryDb } from "../../src/platform/data/db";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { BASE, PASSWORD, call, createKey, latestToken, signup, verifiedUser } from "../support/api";
import { seedFile } from "../support/files";
import { report, resolve, userWithRole } from "../support/moderation";
import { unreachableBindings, isD1Call } from "../support/unreachable";
import { recordsOn } from "../support/records";
import { resetMails, resetTokenOf } from "../support/password";

afterEach(() => {
  vi.useRealTimers();
});

const cache = () => (caches as unknown as { default: Cache }).default;
const origin = new URL(env.CDN_URL).origin;
const recordUrl = (path: string) => `${origin}/__edge-cache/principals/${path}`;

type Opts = { token?: string; method?: string; body?: unknown; offline?: boolean; limits?: boolean };
type Answer = { status: number; body: any; headers: Headers; dbCalls: string[] };

/**
 * One API request with the records on. `offline`: D1 throws and Durable Objects never answer, so what
 * comes back was decided from the records. The rate limiter is off unless `limits` (a refused request is
 * counted against the IP by the limiter's object, which never answers offline).
 */
async function api(path: string, opts: Opts = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const init = { method: opts.method ?? (opts.body === undefined ? "GET" : "POST"), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) };
  const probe = opts.offline ? unreachableBindings(env) : null;
  const bindings = { ...recordsOn, ...(opts.limits ? {} : { RATE_LIMIT_MULTIPLIER: "off" }), ...probe?.bindings };
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(BASE + path, init) as Request<unknown, IncomingRequestCfProperties>, bindings, ctx);
  const text = await res.text();
  if (!opts.offline) await waitOnExecutionContext(ctx); // records are filled after the response
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers, dbCalls: probe?.calls.filter((c) => isD1Call(c)) ?? [] };
}

/** The answer (filling the records), then the same answer decided from the records alone. */
async function expectWarm(path: string, token: string, status: number, error?: string) {
  for (const offline of [false, true]) {
    const r = await api(path, { token, offline });
    expect(r.status, `${path} (${offline ? "from the records" : "filling"})`).toBe(status);
    if (error) expect(r.body.details.code).toBe(error);
    expect(r.dbCalls).toEqual([]);
  }
}

// GET /billing/plans reads no D1 itself: 200 for a session, 403 (session only) for a key, 401 when refused.
const PLANS = "/billing/plans";

describe("a warm principal needs no D1 query", () => {
  it("resolvePrincipal: a session and a key from the records alone", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    for (const token of [user.access, key]) {
      const req = () => new Request(`${BASE}/account`, { headers: { authorization: `Bearer ${token}` } });
      const ctx = createExecutionContext();
      await resolvePrincipal(recordsOn, () => directoryDb(env), req(), ctx);
      await waitOnExecutionContext(ctx);
      const probe = unreachableBindings(env);
      const offline = { ...recordsOn, ...probe.bindings } as Env;
      const p = await resolvePrincipal(offline, () => directoryDb(offline), req(), { waitUntil: () => {} });
      expect(p.kind === "session" || p.kind === "key" ? p.user.id : null).toBe(user.id);
      expect(probe.calls).toEqual([]);
    }
  });

  it("through the API (rate limiter on): session 200 and key 403 (session only) with D1 unreachable", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    for (const [token, status] of [[user.access, 200], [key, 403]] as const) {
      // A few calls first, so the limiter's lease covers the next one (leases grow; limits/leases.ts).
      for (let i = 0; i < 3; i++) expect((await api(PLANS, { token, limits: true })).status).toBe(status);
      const warm = await api(PLANS, { token, limits: true, offline: true });
      expect(warm.status).toBe(status);
      expect(warm.dbCalls).toEqual([]);
    }
  });

  it("a miss answers from the request's session and fills from the primary; no secret in a record", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    const keyHash = await sha256Hex(key);
    const fromBinding: string[] = [];
    // The binding itself is the primary; the request's own reads go through its D1 session (withSession).
    const DB = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare") return (q: string) => (fromBinding.push(q), target.prepare(q));
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const ctx = createExecutionContext();
    const req = new Request(`${BASE}${PLANS}`, { headers: { authorization: `Bearer ${key}` } });
    const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, RATE_LIMIT_MULTIPLIER: "off", DB }, ctx);
    expect(res.status).toBe(403);
    await waitOnExecutionContext(ctx);
    expect(fromBinding.some((q) => q.includes('"api_keys"'))).toBe(true);

    const keyRecord = await (await cache().match(recordUrl(`keys/${keyHash}`)))!.text();
    const userRecord = await (await cache().match(recordUrl(`users/${user.id}`)))!.text();
    const keyFacts = decodeRecord<KeyFacts>(keyRecord)!;
    expect(keyFacts).toMatchObject({ userId: user.id, revokedAt: null });
    expect(keyFacts.lastUsedAt).toBeInstanceOf(Date); // stamped first, then filled
    expect(decodeRecord<PrincipalUser>(userRecord)!.authUser).toMatchObject({ id: user.id, emailVerified: true, plan: "free" });
    const { password_hash } = (await env.DB.prepare("SELECT password_hash FROM users WHERE id = ?").bind(user.id).first<{ password_hash: string }>())!;
    for (const text of [keyRecord, userRecord]) {
      for (const secret of [key, keyHash, password_hash, user.access, user.refresh]) expect(text).not.toContain(secret);
    }
  });

  it("a revocation that lands between a fill's read and its write is not cached (the layer's race guard)", async () => {
    const user = await verifiedUser();
    const { key, id } = await createKey(user);
    const keyHash = await sha256Hex(key);
    let reads = 0;
    // The fill reads the primary (the binding); right after its first read of the key, the key is revoked,
    // as by another request whose delete ran before this fill's write.
    const DB = new Proxy(env.DB, {
      get(target, prop) {
        if (prop !== "prepare") {
          const value = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return (q: string) => {
          const stmt = target.prepare(q);
          if (!q.includes('"api_keys"') || !q.trim().toLowerCase().startsWith("select") || reads++ > 0) return stmt;
          return new Proxy(stmt, {
            get(st, p) {
              if (p === "bind") return (...args: unknown[]) => {
                const bound = st.bind(...args);
                return new Proxy(bound, {
                  get(b, m) {
                    const fn = Reflect.get(b, m);
                    if (typeof fn !== "function") return fn;
                    return async (...a: unknown[]) => {
                      const result = await fn.apply(b, a);
                      await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(Date.now(), id).run();
                      return result;
                    };
                  },
                });
              };
              const value = Reflect.get(st, p);
              return typeof value === "function" ? value.bind(st) : value;
            },
          });
        };
      },
    });
    const ctx = createExecutionContext();
    const req = new Request(`${BASE}${PLANS}`, { headers: { authorization: `Bearer ${key}` } });
    const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, RATE_LIMIT_MULTIPLIER: "off", DB }, ctx);
    expect(res.status).toBe(403); // decided before the revocation (session-only route)
    await waitOnExecutionContext(ctx);
    expect(reads).toBeGreaterThanOrEqual(2); // the fill's read, then the guard's
    expect(await cache().match(recordUrl(`keys/${keyHash}`))).toBeUndefined();
    expect((await api(PLANS, { token: key })).body.details.code).toBe("api_key_revoked");
  });

  it("a hot key stamps lastUsedAt once per interval, deciding from the record", async () => {
    const user = await verifiedUser();
    const { key, id } = await createKey(user);
    await api(PLANS, { token: key }); // miss: stamped and filled
    const stamped = async () => (await env.DB.prepare("SELECT last_used_at AS t FROM api_keys WHERE id = ?").bind(id).first<{ t: number }>())!.t;
    const first = await stamped();
    expect(first).toBeTypeOf("number");
    expect((await api(PLANS, { token: key, offline: true })).dbCalls).toEqual([]); // not due: no write
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 301_000);
    await api(PLANS, { token: key }); // due (from the record): stamped, the record refreshed
    expect(await stamped()).toBeGreaterThan(first);
    expect((await api(PLANS, { token: key, offline: true })).dbCalls).toEqual([]);
  });
});

describe("every change reaches the very next request", () => {
  it("logout", async () => {
    const user = await signup();
    await expectWarm(PLANS, user.access, 200);
    expect((await api("/auth/logout", { token: user.access, method: "POST" })).status).toBe(200);
    await expectWarm(PLANS, user.access, 401, "invalid_token");
  });

  it("password change: every old session of the account, warm ones included; the fresh session works", async () => {
    const user = await signup();
    const other = (await call("/auth/login", { body: { email: user.email, password: PASSWORD } })).body.session;
    await expectWarm(PLANS, user.access, 200);
    await expectWarm(PLANS, other.access_token, 200);
    const changed = await api("/auth/password", { token: user.access, body: { currentPassword: PASSWORD, newPassword: "a brand new passphrase" } });
    expect(changed.status).toBe(200);
    await expectWarm(PLANS, user.access, 401, "invalid_token");
    await expectWarm(PLANS, other.access_token, 401, "invalid_token");
    await expectWarm(PLANS, changed.body.session.access_token, 200);
  });

  it("password reset: every session of the account, warm ones included", async () => {
    const user = await signup();
    const other = (await call("/auth/login", { body: { email: user.email, password: PASSWORD } })).body.session;
    await expectWarm(PLANS, user.access, 200);
    await expectWarm(PLANS, other.access_token, 200);
    expect((await api("/auth/password/forgot", { body: { email: user.email } })).status).toBe(202);
    const token = resetTokenOf((await resetMails(user.email))[0]); // the queue's consumer writes it after the answer
    expect((await api("/auth/password/reset", { body: { token, newPassword: "a brand new passphrase" } })).status).toBe(200);
    await expectWarm(PLANS, user.access, 401, "invalid_token");
    await expectWarm(PLANS, other.access_token, 401, "invalid_token");
  });

  it("a reused refresh token revokes the family", async () => {
    const user = await signup();
    const next = await call("/auth/refresh", { body: { refresh_token: user.refresh } });
    expect(next.status).toBe(200);
    const access = next.body.session.access_token;
    await expectWarm(PLANS, access, 200);
    expect((await call("/auth/refresh", { body: { refresh_token: user.refresh } })).body.details.code).toBe("refresh_token_reused");
    await expectWarm(PLANS, access, 401, "invalid_token");
  });

  it("key revocation, and expiry without any change", async () => {
    const user = await verifiedUser();
    const { key, id } = await createKey(user);
    await expectWarm(PLANS, key, 403);
    expect((await api(`/keys/${id}`, { token: user.access, method: "DELETE" })).status).toBe(200);
    await expectWarm(PLANS, key, 401, "api_key_revoked");

    const expiring = await createKey(user, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await expectWarm(PLANS, expiring.key, 403);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 61_000);
    const r = await api(PLANS, { token: expiring.key, offline: true });
    expect([r.status, r.body.details.code, r.dbCalls]).toEqual([401, "api_key_expired", []]);
  });

  it("an admin's ban and unban: sessions and keys", async () => {
    const admin = await userWithRole("admin");
    const user = await verifiedUser();
    const { key } = await createKey(user);
    await expectWarm(PLANS, user.access, 200);
    await expectWarm(PLANS, key, 403);
    const setBan = (banned: boolean) => api(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { banned } });
    expect((await setBan(true)).status).toBe(200);
    await expectWarm(PLANS, user.access, 401, "account_banned");
    await expectWarm(PLANS, key, 403, "account_banned"); // account_suspended: the key is fine, its account is not
    expect((await setBan(false)).status).toBe(200);
    await expectWarm(PLANS, user.access, 200);
    await expectWarm(PLANS, key, 403);
  });

  it("a banned user's API key: 403 account_banned, not 'revoked' (records on and off); unban: it works again", async () => {
    const admin = await userWithRole("admin");
    const user = await verifiedUser();
    const { key } = await createKey(user, { permissions: ["read"] });
    const revoked = await createKey(user, { permissions: ["read"] });
    expect((await call(`/keys/${revoked.id}`, { method: "DELETE", token: user.access })).status).toBe(200);
    const expired = await createKey(user, { permissions: ["read"] });
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, expired.id).run();
    const setBan = (banned: boolean) => call(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { banned } });
    /** A refusal with records on (filled, then from the records alone) and off (the suite's 0): PLANS reads no D1. */
    const expectEverywhere = async (token: string, status: number, code: string, error: string) => {
      await expectWarm(PLANS, token, status, code);
      for (const r of [await api(PLANS, { token, offline: true }), await call(PLANS, { token })]) {
        expect([r.status, r.body.details.code, r.body.error]).toEqual([status, code, error]);
      }
    };
    expect((await api("/files", { token: key })).status).toBe(200);
    expect((await call("/files", { token: key })).status).toBe(200);

    expect((await setBan(true)).status).toBe(200);
    await expectEverywhere(key, 403, "account_banned", "Forbidden");
    const banned = await call("/files", { token: key });
    expect(banned.body.message).toMatch(/suspended/);
    // What stays true whatever the ban: a revoked key is revoked, an expired one expired.
    await expectEverywhere(revoked.key, 401, "api_key_revoked", "API key has been revoked");
    await expectEverywhere(expired.key, 401, "api_key_expired", "API key has expired");

    expect((await setBan(false)).status).toBe(200);
    expect((await api("/files", { token: key })).status).toBe(200);
    expect((await call("/files", { token: key })).status).toBe(200);
    await expectEverywhere(revoked.key, 401, "api_key_revoked", "API key has been revoked");
  });

  it("a moderator bans the owner of a reported file", async () => {
    const moderator = await userWithRole("moderator");
    const user = await verifiedUser();
    const f = await seedFile(user.id);
    await expectWarm(PLANS, user.access, 200);
    const r = await report({ fileId: f.id, reason: "spam" }, { ip: "203.0.113.91" });
    expect((await resolve(moderator.access, r.body.reportId, { action: "ban_user" })).status).toBe(200);
    await expectWarm(PLANS, user.access, 401, "account_banned");
  });

  it("account deletion", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    await expectWarm(PLANS, user.access, 200);
    await expectWarm(PLANS, key, 403);
    expect((await api("/account", { method: "DELETE", token: user.access, body: { password: PASSWORD } })).status).toBe(200);
    await expectWarm(PLANS, user.access, 401, "invalid_token");
    await expectWarm(PLANS, key, 401, "api_key_revoked");
  });

  it("PATCH account: safe mode off opens an age-restricted file to the next request", async () => {
    const owner = await verifiedUser();
    const viewer = await verifiedUser();
    const f = await seedFile(owner.id, { ageRestricted: true });
    expect((await api(`/files/${f.id}`, { token: viewer.access })).body.details.code).toBe("content_restricted");
    expect((await api("/account", { method: "PATCH", token: viewer.access, body: { safeMode: false } })).status).toBe(200);
    expect((await api(`/files/${f.id}`, { token: viewer.access })).status).toBe(200);
    expect((await api("/account", { method: "PATCH", token: viewer.access, body: { ageConfirmed: false } })).status).toBe(200);
    expect((await api(`/files/${f.id}`, { token: viewer.access })).body.details.code).toBe("content_restricted");
  });

  it("an admin's role change: the admin API goes from 403 to 200", async () => {
    const admin = await userWithRole("admin");
    const user = await verifiedUser();
    await expectWarm(PLANS, user.access, 200);
    expect((await api("/admin/users", { token: user.access })).status).toBe(403);
    expect((await api(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { role: "admin" } })).status).toBe(200);
    expect((await api("/admin/users", { token: user.access })).status).toBe(200);
  });

  it("plan changes (admin, approval of a request, the user's downgrade): the next request's rate limit", async () => {
    const admin = await userWithRole("admin");
    const user = await verifiedUser();
    const limit = async () => Number((await api(PLANS, { token: user.access, limits: true })).headers.get("x-ratelimit-limit"));
    const free = await limit();
    expect(await limit()).toBe(free); // warm
    expect((await api(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { plan: "pro" } })).status).toBe(200);
    const pro = await limit();
    expect(pro).toBe(free * 10);
    const asked = await api("/billing/subscription", { token: user.access, body: { plan: "enterprise" } });
    expect(asked.status).toBe(202);
    expect(await limit()).toBe(pro);
    const approve = await api(`/admin/plan-changes/${asked.body.planChange.id}/approve`, { method: "POST", token: admin.access });
    expect(approve.status).toBe(200);
    expect(await limit()).toBe(free * 100);
    expect((await api("/billing/subscription", { token: user.access, body: { plan: "free" } })).status).toBe(200);
    expect(await limit()).toBe(free);
  });

  it("e-mail verification opens API key creation to the next request", async () => {
    const user = await signup();
    expect((await api("/keys", { token: user.access, body: { name: "early" } })).body.details.code).toBe("email_not_verified");
    await expectWarm(PLANS, user.access, 200);
    expect((await api("/auth/verify-email", { body: { token: await latestToken(user.email) } })).status).toBe(200);
    expect((await api("/keys", { token: user.access, body: { name: "now" } })).status).toBe(201);
  });
});
