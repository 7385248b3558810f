// Two-factor sign-in with the edge-cached principal records on (auth/principal-records.ts): nothing about a factor
// is in a record, so a factor turned on or off reaches the very next login; and a session whose record is stale
// (revoked in D1, its record still saying live, as another data centre may hold it for ACCESS_RECORD_SECONDS)
// can neither enrol nor confirm nor remove a factor: those routes check the session at D1's primary.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { BASE, PASSWORD, signup } from "../support/api";
import { freshIp } from "../support/password";
import { recordsOn } from "../support/records";
import { claimsOf } from "../support/tokens";
import { atNextStep, codeAt } from "../support/totp";
import { withPasskey } from "../support/passkeys";
import { attest, newAuthenticator } from "../support/webauthn";

afterEach(() => vi.useRealTimers());

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

const cache = () => (caches as unknown as { default: Cache }).default;
const userRecord = async (userId: string) => (await cache().match(`${new URL(env.CDN_URL).origin}/__edge-cache/principals/users/${userId}`))?.text();
const login = (user: { email: string }) => api("/auth/login", { body: { email: user.email, password: PASSWORD } });

describe("second factors and the principal records", () => {
  it("turned on and off with the user's record warm: the very next login follows; the record is the same throughout", async () => {
    const now = atNextStep();
    const user = await signup();
    expect((await api("/account", { token: user.access })).status).toBe(200); // fills the records
    const before = await userRecord(user.id);
    expect(before).toBeDefined();

    const { secret } = (await api("/auth/2fa/totp", { token: user.access, method: "POST" })).body;
    expect((await api("/auth/2fa/totp/confirm", { token: user.access, body: { code: codeAt(secret, now) } })).status).toBe(200);
    const asked = await login(user);
    expect(asked.body).toMatchObject({ mfaRequired: true, methods: ["totp", "recovery"] });
    expect(asked.body.session).toBeUndefined();
    expect(await userRecord(user.id)).toBe(before); // nothing of the factor is in it: nothing to forget

    expect((await api("/auth/2fa/totp", { token: user.access, method: "DELETE", body: { password: PASSWORD } })).status).toBe(200);
    expect((await login(user)).body.session).toBeDefined();
    expect(await userRecord(user.id)).toBe(before);
  });

  it("an mfaToken is no credential, records on or off", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = (await api("/auth/2fa/totp", { token: user.access, method: "POST" })).body;
    await api("/auth/2fa/totp/confirm", { token: user.access, body: { code: codeAt(secret, now) } });
    const { mfaToken } = (await login(user)).body;
    const r = await api("/account", { token: mfaToken });
    expect([r.status, r.body.error]).toEqual([401, "Invalid API key"]);
  });

  it("a session whose record is stale (revoked in D1 only) can read, but not enrol, confirm or remove a factor", async () => {
    const now = atNextStep();
    const owner = await signup();
    const thief = (await api("/auth/login", { body: { email: owner.email, password: PASSWORD } })).body.session.access_token;
    expect((await api("/auth/2fa", { token: thief })).status).toBe(200); // warm
    const { secret } = (await api("/auth/2fa/totp", { token: owner.access, method: "POST" })).body;
    // The owner ends the thief's session; this data centre's forget did not reach the record the thief hits.
    await env.DB.prepare("UPDATE sessions SET revoked_at = ?, revoked_reason = 'logout' WHERE id = ?").bind(Date.now(), claimsOf(thief).sid).run();
    expect((await api("/auth/2fa", { token: thief })).status).toBe(200); // a read, decided from the stale record

    for (const [method, path, body] of [
      ["POST", "/auth/2fa/totp", undefined],
      ["POST", "/auth/2fa/totp/confirm", { code: codeAt(secret, now) }],
      ["DELETE", "/auth/2fa/totp", { password: PASSWORD }],
    ] as const) {
      const r = await api(path, { token: thief, method, body });
      expect([r.status, r.body.details.code], `${method} ${path}`).toEqual([401, "invalid_token"]);
    }
    // The owner's own enrolment is untouched and confirms.
    expect((await api("/auth/2fa/totp/confirm", { token: owner.access, body: { code: codeAt(secret, now) } })).status).toBe(200);
  });

  it("a session whose record is stale can neither ask for passkey options, add a passkey nor remove one", async () => {
    const owner = await signup();
    const { passkey } = await withPasskey(owner);
    // A session taken before the passkey existed, revoked since in D1 only (its record elsewhere still says live).
    const stale = owner.access;
    expect((await api("/auth/passkeys", { token: stale })).status).toBe(200); // warm
    const options = (await api("/auth/passkeys/options", { token: stale, method: "POST" })).body;
    await env.DB.prepare("UPDATE sessions SET revoked_at = ?, revoked_reason = 'logout' WHERE id = ?").bind(Date.now(), claimsOf(stale).sid).run();
    expect((await api("/auth/passkeys", { token: stale })).status).toBe(200); // a read, decided from the stale record
    for (const [method, path, body] of [
      ["POST", "/auth/passkeys/options", undefined],
      ["POST", "/auth/passkeys", { name: "thief", response: await attest(await newAuthenticator(), options) }],
      ["DELETE", `/auth/passkeys/${passkey.id}`, { password: PASSWORD }],
    ] as const) {
      const r = await api(path, { token: stale, method, body });
      expect([r.status, r.body.details.code], `${method} ${path}`).toEqual([401, "invalid_token"]);
    }
    const left = await env.DB.prepare("SELECT id FROM passkeys WHERE user_id = ?").bind(owner.id).all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([passkey.id]);
  });
});
