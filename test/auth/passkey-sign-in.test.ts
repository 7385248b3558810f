// Sign-in with a passkey and no password (extensions.md §5): POST /auth/passkeys/login/options gives the options
// for discoverable credentials, POST /auth/passkeys/login { response } gives the login response. Each rule is
// shown by one answer of the software authenticator bent one way, beside the same answer unbent that works.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { PASSWORD, call, signup } from "../support/api";
import { freshIp } from "../support/password";
import { listPasskeys, passkeySignIn, removePasskey, signInOptions, signInWith, withPasskey } from "../support/passkeys";
import { RP_ID, assertWith, attest, b64url, newAuthenticator, type Bend } from "../support/webauthn";
import { startOfNextWindow } from "../support/clock";
import { claimsOf } from "../support/tokens";
import { login } from "../support/totp";
import { createDb } from "../../src/platform/data/db";
import { passkeys, users } from "../../src/db/schema";
import { LOGIN_LIMITS, PASSKEYS } from "../../src/config/auth";

afterEach(() => vi.useRealTimers());

const db = () => createDb(env.DB);
const refusedAs = (r: { status: number; body: any }) => [r.status, r.body.error, r.body.details?.code];
const INVALID = [401, "Unauthorized", "invalid_passkey"];

describe("POST /auth/passkeys/login/options", () => {
  it("anonymous: options for any discoverable credential of this site, user verification required", async () => {
    const r = await signInOptions();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ rpId: RP_ID, userVerification: "required", timeout: PASSKEYS.challengeSeconds * 1000 });
    expect(r.body.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.body.allowCredentials ?? []).toEqual([]);
    expect((await signInOptions()).body.challenge).not.toBe(r.body.challenge);
  });

  it("an empty JSON body is the same as none; anything else in it is 400", async () => {
    expect((await call("/auth/passkeys/login/options", { body: {} })).status).toBe(200);
    const r = await call("/auth/passkeys/login/options", { body: { email: "someone@example.com" } });
    expect([r.status, r.body.details.code]).toEqual([400, "validation_error"]);
  });
});

describe("POST /auth/passkeys/login", () => {
  it("a registered passkey signs in without the password: the login response, a working session, lastUsedAt set", async () => {
    const user = await signup();
    const { passkey, authenticator } = await withPasskey(user);
    const r = await signInWith(authenticator);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["session", "user"]);
    expect(r.body.user).toEqual({ id: user.id, email: user.email, username: expect.any(String), role: "user", plan: "free", ageConfirmed: true });
    expect(claimsOf(r.body.session.access_token)).toMatchObject({ sub: user.id, typ: "access" });
    expect((await call("/account", { token: r.body.session.access_token })).status).toBe(200);
    const listed = (await listPasskeys(user.access)).body.passkeys[0];
    expect(listed.id).toBe(passkey.id);
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    // An account with TOTP too signs in the same way: a passkey with user verification is two factors in one.
    expect((await signInWith(authenticator)).status).toBe(200);
  });

  describe("the challenge", () => {
    it("one the server never gave: 401", async () => {
      const { authenticator } = await withPasskey(await signup());
      const r = await signInWith(authenticator, { challenge: b64url(crypto.getRandomValues(new Uint8Array(32))) });
      expect(refusedAs(r)).toEqual(INVALID);
    });

    it("is single use: the same answer twice signs in once; two at once, once", async () => {
      const { authenticator } = await withPasskey(await signup());
      const options = (await signInOptions()).body;
      const response = await assertWith(authenticator, options);
      expect((await passkeySignIn({ response })).status).toBe(200);
      expect(refusedAs(await passkeySignIn({ response }))).toEqual(INVALID);

      const again = (await signInOptions()).body;
      const answer = await assertWith(authenticator, again);
      const burst = await Promise.all([1, 2, 3].map(() => passkeySignIn({ response: answer })));
      expect(burst.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    });

    it(`lives ${PASSKEYS.challengeSeconds} s`, async () => {
      startOfNextWindow(60);
      const { authenticator } = await withPasskey(await signup());
      const early = (await signInOptions()).body;
      const late = (await signInOptions()).body;
      vi.setSystemTime(Date.now() + 290_000);
      expect((await passkeySignIn({ response: await assertWith(authenticator, early) })).status).toBe(200);
      vi.setSystemTime(Date.now() + 11_000);
      expect(refusedAs(await passkeySignIn({ response: await assertWith(authenticator, late) }))).toEqual(INVALID);
    });

    it("a registration's challenge does not sign in", async () => {
      const user = await signup();
      const { authenticator } = await withPasskey(user);
      const registration = (await call("/auth/passkeys/options", { method: "POST", token: user.access })).body;
      const r = await passkeySignIn({ response: await assertWith(authenticator, { challenge: registration.challenge, rpId: RP_ID }) });
      expect(refusedAs(r)).toEqual(INVALID);
    });
  });

  describe("the authenticator's answer", () => {
    const refused: [string, () => Promise<Bend>][] = [
      ["another origin", async () => ({ origin: "https://evil.example" })],
      ["another relying party id", async () => ({ rpId: "evil.example" })],
      ["a registration's type (webauthn.create)", async () => ({ type: "webauthn.create" })],
      ["no user verification (a passkey alone must be two factors)", async () => ({ userVerified: false })],
      ["no user presence", async () => ({ userPresent: false, userVerified: false })],
      ["a signature by another key", async () => ({ signWith: (await newAuthenticator()).keys })],
      ["another account's user handle", async () => ({ userHandle: b64url(new TextEncoder().encode("usr_someone_else_0000000")) })],
    ];
    for (const [label, bend] of refused) {
      it(`${label}: 401`, async () => {
        const { authenticator } = await withPasskey(await signup());
        expect(refusedAs(await signInWith(authenticator, await bend()))).toEqual(INVALID);
        expect((await signInWith(authenticator)).status).toBe(200);
      });
    }

    it("an unknown credential, or one removed from its account: 401", async () => {
      expect(refusedAs(await signInWith(await newAuthenticator()))).toEqual(INVALID);
      const user = await signup();
      const { passkey, authenticator } = await withPasskey(user);
      expect((await removePasskey(user.access, passkey.id, { password: PASSWORD })).status).toBe(200);
      expect(refusedAs(await signInWith(authenticator))).toEqual(INVALID);
    });

    it("a counter that does not move forward is refused (a cloned authenticator); one that never counts (0) is fine", async () => {
      const { authenticator } = await withPasskey(await signup());
      expect((await signInWith(authenticator)).status).toBe(200); // counter 1
      expect((await signInWith(authenticator)).status).toBe(200); // counter 2
      expect(refusedAs(await signInWith(authenticator, { counter: 2 }))).toEqual(INVALID);
      expect(refusedAs(await signInWith(authenticator, { counter: 1 }))).toEqual(INVALID);
      expect((await signInWith(authenticator, { counter: 7 })).status).toBe(200);
      expect(refusedAs(await signInWith(authenticator, { counter: 0 }))).toEqual(INVALID);

      const { authenticator: noCounter } = await withPasskey(await signup(), "synced", { counts: false });
      for (let i = 0; i < 3; i++) expect((await signInWith(noCounter)).status).toBe(200);
    });

    it("two answers with one counter value at once: one signs in", async () => {
      const { authenticator } = await withPasskey(await signup());
      const answers = await Promise.all([1, 2, 3].map(async () => assertWith(authenticator, (await signInOptions()).body, { counter: 5 })));
      const replies = await Promise.all(answers.map((response) => passkeySignIn({ response })));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    });

    it("bad bodies: 400 validation_error; an answer that does not decode: 401", async () => {
      const { authenticator } = await withPasskey(await signup());
      const response = await assertWith(authenticator, (await signInOptions()).body);
      for (const body of [{}, { response: "x" }, { response: { id: "x" } }, { response, extra: 1 }, { response: { ...response, type: "password" } }]) {
        const r = await passkeySignIn(body);
        expect([r.status, r.body.details.code], JSON.stringify(body).slice(0, 60)).toEqual([400, "validation_error"]);
      }
      const garbled = { ...response, response: { ...response.response, authenticatorData: "AAAA" } };
      expect(refusedAs(await passkeySignIn({ response: garbled }))).toEqual(INVALID);
    });
  });

  describe("the account", () => {
    it("suspended: 403 account_suspended after a good answer; deleted: 401", async () => {
      const banned = await signup();
      const { authenticator } = await withPasskey(banned);
      await db().update(users).set({ bannedAt: new Date() }).where(eq(users.id, banned.id));
      const r = await signInWith(authenticator);
      expect([r.status, r.body.details.code]).toEqual([403, "account_banned"]);

      const gone = await signup();
      const { authenticator: goneKey } = await withPasskey(gone);
      await db().update(users).set({ deletedAt: new Date() }).where(eq(users.id, gone.id));
      expect(refusedAs(await signInWith(goneKey))).toEqual(INVALID);
    });
  });

  describe("failed answers count in the login guard", () => {
    it("10 failed answers of one passkey in 15 minutes, from any IP: then 429 for it, even for a good one; the password is not stopped", async () => {
      startOfNextWindow(LOGIN_LIMITS.windowSeconds);
      const user = await signup();
      const { authenticator } = await withPasskey(user);
      for (let i = 0; i < LOGIN_LIMITS.failuresPerPasskey; i++) {
        expect((await signInWith(authenticator, { origin: "https://evil.example" }, freshIp())).status, `failure ${i + 1}`).toBe(401);
      }
      const good = await signInWith(authenticator);
      expect(good.status).toBe(429);
      expect(good.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
      // Passkey failures are the credential's, not the address's: the password still signs in.
      expect((await login(user.email, PASSWORD)).status).toBe(200);
    });

    it("unknown credentials count for the IP: past 50 in 15 minutes, 429 from that IP", async () => {
      startOfNextWindow(LOGIN_LIMITS.windowSeconds);
      const ip = freshIp();
      const stranger = await newAuthenticator();
      for (let i = 0; i < LOGIN_LIMITS.failuresPerIp; i++) expect((await signInWith(stranger, {}, ip)).status).toBe(401);
      expect((await signInWith(stranger, {}, ip)).status).toBe(429);
      expect((await signInWith(stranger, {}, freshIp())).status).toBe(401);
    });

    it("a sign-in with a passkey clears the passkey's count", async () => {
      startOfNextWindow(LOGIN_LIMITS.windowSeconds);
      const user = await signup();
      const { authenticator } = await withPasskey(user);
      for (let i = 0; i < LOGIN_LIMITS.failuresPerPasskey - 1; i++) expect((await signInWith(authenticator, { userVerified: false })).status).toBe(401);
      expect((await signInWith(authenticator)).status).toBe(200);
      for (let i = 0; i < LOGIN_LIMITS.failuresPerPasskey - 1; i++) expect((await signInWith(authenticator, { userVerified: false })).status).toBe(401);
      expect((await signInWith(authenticator)).status).toBe(200);
    });
  });
});

describe("the relying party follows SITE_URL", () => {
  it("options and checks use its host and origin", async () => {
    expect(new URL(env.SITE_URL).hostname).toBe(RP_ID);
    const user = await signup();
    const o = (await call("/auth/passkeys/options", { method: "POST", token: user.access })).body;
    expect(o.rp.id).toBe(new URL(env.SITE_URL).hostname);
    const a = await newAuthenticator();
    const r = await call("/auth/passkeys", { token: user.access, body: { name: "x", response: await attest(a, o, { origin: env.SITE_URL.replace(/\/$/, "") }) } });
    expect(r.status).toBe(201);
    expect((await db().select().from(passkeys).where(eq(passkeys.userId, user.id))).length).toBe(1);
  });
});
