// A session revoked in D1 whose principal record is still warm (as another data centre may hold it for
// ACCESS_RECORD_SECONDS) may still read, but may not change the password (which would hand it a fresh session
// without the second factor), mint an API key, or delete the account: those routes check the session at D1's primary.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BASE, PASSWORD, latestToken, call } from "../support/api";
import { freshIp } from "../support/password";
import { recordsOn } from "../support/records";
import { claimsOf } from "../support/tokens";

type Answer = { status: number; body: any };

/** One API request with the records on (filled after the response, as in production). */
async function api(path: string, opts: { token?: string; method?: string; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = { "cf-connecting-ip": freshIp() };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const init = { method: opts.method ?? (opts.body === undefined ? "GET" : "POST"), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) };
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(BASE + path, init) as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, RATE_LIMIT_MULTIPLIER: "off" }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const revokeInD1Only = (token: string) =>
  env.DB.prepare("UPDATE sessions SET revoked_at = ?, revoked_reason = 'logout' WHERE id = ?").bind(Date.now(), claimsOf(token).sid).run();

/** A verified account and a second session of it (the thief's), warm, then revoked in D1 only. */
async function staleSession() {
  const email = `stale-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const username = `s${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const signedUp = await api("/auth/signup", { body: { email, password: PASSWORD, username, ageConfirmed: true } });
  expect(signedUp.status).toBe(201);
  expect((await call("/auth/verify-email", { body: { token: await latestToken(email) } })).status).toBe(200);
  const thief: string = (await api("/auth/login", { body: { email, password: PASSWORD } })).body.session.access_token;
  expect((await api("/account", { token: thief })).status).toBe(200); // warm
  await revokeInD1Only(thief);
  expect((await api("/account", { token: thief })).status).toBe(200); // a read, decided from the stale record
  return { email, userId: signedUp.body.user.id as string, thief };
}

describe("a session whose record is stale (revoked in D1 only)", () => {
  it.each([
    ["POST", "/auth/password", { currentPassword: PASSWORD, newPassword: "a brand new passphrase" }],
    ["POST", "/keys", { name: "thief's key" }],
    ["DELETE", "/account", { password: PASSWORD }],
  ] as const)("can read, but not %s %s", async (method, path, body) => {
    const { email, userId, thief } = await staleSession();
    const r = await api(path, { token: thief, method, body });
    expect([r.status, r.body.details?.code]).toEqual([401, "invalid_token"]);
    const keys = await env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE user_id = ?").bind(userId).first<{ n: number }>();
    expect(keys?.n).toBe(0);
    // The password and the account are untouched.
    expect((await api("/auth/login", { body: { email, password: PASSWORD } })).status).toBe(200);
  });
});
