// A passkey as the second factor (extensions.md §5): the password step answers { mfaRequired, mfaToken, methods }
// with `passkey` among the methods; POST /auth/passkeys/login/options { mfaToken } gives options naming the
// account's passkeys, with a challenge stored beside the token; the answer goes with the mfaToken to POST
// /auth/login/2fa (or POST /auth/passkeys/login) and gives the login response. Failed answers count in the guard.
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, call, signup } from "../support/api";
import { changePassword, freshIp } from "../support/password";
import { atNextStep, codeAt, enableTotp, login, mfaTokenFor, secondStep } from "../support/totp";
import { passkeySignIn, secondStepWith, signInOptions, withPasskey } from "../support/passkeys";
import { RP_ID, assertWith, credentialIdOf } from "../support/webauthn";
import { startOfNextWindow } from "../support/clock";
import { LOGIN_LIMITS } from "../../src/config/auth";

afterEach(() => vi.useRealTimers());

const refusedAs = (r: { status: number; body: any }) => [r.status, r.body.details?.code];
const twoFa = (body: unknown) => call("/auth/login/2fa", { body, ip: freshIp() });

describe("the password step of an account with a passkey", () => {
  it("names passkey among the methods; with TOTP too, all three", async () => {
    atNextStep();
    const user = await signup();
    await withPasskey(user);
    expect((await login(user.email, PASSWORD)).body).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ["passkey", "recovery"] });
    await enableTotp(user);
    expect((await login(user.email, PASSWORD)).body.methods).toEqual(["totp", "passkey", "recovery"]);
  });
});

describe("POST /auth/passkeys/login/options with an mfaToken", () => {
  it("names the account's passkeys, asks for no user verification (the password was the first factor)", async () => {
    const user = await signup();
    const one = await withPasskey(user, "one");
    const two = await withPasskey(user, "two");
    const r = await signInOptions(await mfaTokenFor(user.email, PASSWORD));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ rpId: RP_ID, userVerification: "discouraged" });
    expect(r.body.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.body.allowCredentials.map((c: { id: string }) => c.id).sort()).toEqual([credentialIdOf(one.authenticator), credentialIdOf(two.authenticator)].sort());
    expect(r.body.allowCredentials[0]).toMatchObject({ type: "public-key", transports: ["internal"] });
  });

  it("an unknown, used or expired token: 401 invalid_mfa_token; an account without passkeys: 404 passkey_not_found", async () => {
    atNextStep();
    expect(refusedAs(await signInOptions("x".repeat(43)))).toEqual([401, "invalid_mfa_token"]);
    const user = await signup();
    const { authenticator } = await withPasskey(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    expect((await secondStepWith(token, authenticator)).status).toBe(200);
    expect(refusedAs(await signInOptions(token))).toEqual([401, "invalid_mfa_token"]);
    const late = await mfaTokenFor(user.email, PASSWORD);
    vi.setSystemTime(Date.now() + 301_000);
    expect(refusedAs(await signInOptions(late))).toEqual([401, "invalid_mfa_token"]);

    const totpOnly = await signup();
    await enableTotp(totpOnly);
    expect(refusedAs(await signInOptions(await mfaTokenFor(totpOnly.email, PASSWORD)))).toEqual([404, "passkey_not_found"]);
  });
});

describe("the second step with a passkey", () => {
  it("POST /auth/login/2fa { mfaToken, response }: the login response; the token is then used", async () => {
    const user = await signup();
    const { authenticator } = await withPasskey(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    const r = await secondStepWith(token, authenticator);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["session", "user"]);
    expect(r.body.user.id).toBe(user.id);
    expect((await call("/account", { token: r.body.session.access_token })).status).toBe(200);
    const again = await twoFa({ mfaToken: token, response: await assertWith(authenticator, { challenge: "x", rpId: RP_ID }) });
    expect(refusedAs(again)).toEqual([401, "invalid_mfa_token"]);
  });

  it("POST /auth/passkeys/login { mfaToken, response } does the same; without user verification too", async () => {
    const user = await signup();
    const { authenticator } = await withPasskey(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    const options = (await signInOptions(token)).body;
    const r = await passkeySignIn({ mfaToken: token, response: await assertWith(authenticator, options, { userVerified: false }) });
    expect(r.status).toBe(200);
    expect(r.body.user.id).toBe(user.id);
  });

  it("a code or an answer, not both, not neither: 400", async () => {
    const user = await signup();
    const { authenticator } = await withPasskey(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    const response = await assertWith(authenticator, (await signInOptions(token)).body);
    for (const body of [{ mfaToken: token }, { mfaToken: token, code: "123456", response }, { mfaToken: token, response: "x" }]) {
      expect(refusedAs(await twoFa(body))).toEqual([400, "validation_error"]);
    }
    expect((await twoFa({ mfaToken: token, response })).status).toBe(200);
  });

  describe("the challenge beside the token", () => {
    it("an answer to a sign-in's challenge without a password, or to another token's: 401 invalid_passkey, the token stays usable", async () => {
      const user = await signup();
      const { authenticator } = await withPasskey(user);
      const token = await mfaTokenFor(user.email, PASSWORD);
      const other = await mfaTokenFor(user.email, PASSWORD);
      const passwordless = (await signInOptions()).body;
      expect(refusedAs(await twoFa({ mfaToken: token, response: await assertWith(authenticator, passwordless) }))).toEqual([401, "invalid_passkey"]);
      const othersOptions = (await signInOptions(other)).body;
      expect(refusedAs(await twoFa({ mfaToken: token, response: await assertWith(authenticator, othersOptions) }))).toEqual([401, "invalid_passkey"]);
      expect((await secondStepWith(token, authenticator)).status).toBe(200);
      // The other token's challenge was not spent by the attempt above.
      expect((await twoFa({ mfaToken: other, response: await assertWith(authenticator, othersOptions) })).status).toBe(200);
    });

    it("is single use: a failed answer spends it; only the latest options count", async () => {
      const user = await signup();
      const { authenticator } = await withPasskey(user);
      const token = await mfaTokenFor(user.email, PASSWORD);
      const options = (await signInOptions(token)).body;
      expect(refusedAs(await twoFa({ mfaToken: token, response: await assertWith(authenticator, options, { origin: "https://evil.example" }) }))).toEqual([401, "invalid_passkey"]);
      expect(refusedAs(await twoFa({ mfaToken: token, response: await assertWith(authenticator, options) }))).toEqual([401, "invalid_passkey"]);
      const first = (await signInOptions(token)).body;
      const latest = (await signInOptions(token)).body;
      expect(refusedAs(await twoFa({ mfaToken: token, response: await assertWith(authenticator, first) }))).toEqual([401, "invalid_passkey"]);
      expect((await twoFa({ mfaToken: token, response: await assertWith(authenticator, latest) })).status).toBe(200);
    });

    it("dies with the token: a password change voids both", async () => {
      const user = await signup();
      const { authenticator } = await withPasskey(user);
      const token = await mfaTokenFor(user.email, PASSWORD);
      const options = (await signInOptions(token)).body;
      expect((await changePassword(user.access, { currentPassword: PASSWORD, newPassword: "a brand new passphrase" })).status).toBe(200);
      expect(refusedAs(await twoFa({ mfaToken: token, response: await assertWith(authenticator, options) }))).toEqual([401, "invalid_mfa_token"]);
    });
  });

  it("another account's passkey does not finish this account's sign-in", async () => {
    const a = await signup();
    const b = await signup();
    await withPasskey(a);
    const { authenticator: bKey } = await withPasskey(b);
    const token = await mfaTokenFor(a.email, PASSWORD);
    expect(refusedAs(await secondStepWith(token, bKey))).toEqual([401, "invalid_passkey"]);
  });

  it("a counter that does not move forward is refused", async () => {
    const user = await signup();
    const { authenticator } = await withPasskey(user);
    expect((await secondStepWith(await mfaTokenFor(user.email, PASSWORD), authenticator)).status).toBe(200); // 1
    expect(refusedAs(await secondStepWith(await mfaTokenFor(user.email, PASSWORD), authenticator, { counter: 1 }))).toEqual([401, "invalid_passkey"]);
    expect((await secondStepWith(await mfaTokenFor(user.email, PASSWORD), authenticator, { counter: 2 })).status).toBe(200);
  });

  it("a TOTP code still finishes a sign-in whose token asked for passkey options", async () => {
    const now = atNextStep();
    const user = await signup();
    await withPasskey(user);
    const { secret } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    expect((await signInOptions(token)).status).toBe(200);
    expect((await secondStep(token, codeAt(secret, now))).status).toBe(200);
  });

  it("failed answers count in the login guard: after 10, 429 even for a good one", async () => {
    startOfNextWindow(LOGIN_LIMITS.windowSeconds);
    const user = await signup();
    const { authenticator } = await withPasskey(user);
    for (let i = 0; i < LOGIN_LIMITS.secondFactorFailuresPerAccount; i++) {
      const r = await secondStepWith(await mfaTokenFor(user.email, PASSWORD, freshIp()), authenticator, { rpId: "evil.example" }, freshIp());
      expect(r.status, `failure ${i + 1}`).toBe(401);
    }
    // Counted per account as second-factor failures (the password step still passes), so a good answer waits.
    const good = await secondStepWith(await mfaTokenFor(user.email, PASSWORD), authenticator);
    expect(good.status).toBe(429);
    expect(good.headers.get("x-ratelimit-limit")).toBe(String(LOGIN_LIMITS.secondFactorFailuresPerAccount));
  });
});
