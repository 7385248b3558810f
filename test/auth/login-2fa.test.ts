// Sign-in with a second factor (extensions.md §5): POST /auth/login with the right password answers
// { mfaRequired: true, mfaToken, methods } and no session; POST /auth/login/2fa { mfaToken, code } with a TOTP or
// recovery code answers as login does. Codes: ±1 step, each accepted once; recovery codes once each; the token
// single use and 5 minutes; failed codes counted in the login guard. Time is moved, never waited for.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, call, signup } from "../support/api";
import { freshIp, requestReset, resetPassword } from "../support/password";
import { STEP, advanceClock, atNextStep, codeAt, enableTotp, factorStatus, login, mfaTokenFor, secondStep } from "../support/totp";
import { startOfNextWindow } from "../support/clock";
import { claimsOf } from "../support/tokens";
import { LOGIN_LIMITS } from "../../src/config/auth";

afterEach(() => vi.useRealTimers());

const wrongCode = (right: string) => (right === "000000" ? "000001" : "000000");

describe("POST /auth/login with a second factor", () => {
  it("the right password answers { mfaRequired: true, mfaToken, methods } and no session", async () => {
    atNextStep();
    const user = await signup();
    await enableTotp(user);
    const r = await login(user.email, PASSWORD);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["methods", "mfaRequired", "mfaToken"]);
    expect(r.body.mfaRequired).toBe(true);
    expect(r.body.methods).toEqual(["totp", "recovery"]);
    expect(r.body.mfaToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The token is no credential: as a Bearer value it is an unknown API key.
    const asBearer = await call("/account", { token: r.body.mfaToken });
    expect([asBearer.status, asBearer.body.error]).toEqual([401, "Invalid API key"]);
  });

  it("a wrong password is the same 401 as without a factor, and gives no token", async () => {
    atNextStep();
    const user = await signup();
    await enableTotp(user);
    const r = await login(user.email, "not my password");
    expect(r.status).toBe(401);
    expect(r.body.details.code).toBe("invalid_credentials");
    expect(r.body.mfaToken).toBeUndefined();
  });
});

describe("POST /auth/login/2fa", () => {
  it("a current code gives the normal login response, and the session works", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    const r = await secondStep(token, codeAt(secret, now));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["session", "user"]);
    expect(r.body.user).toEqual({ id: user.id, email: user.email, username: expect.any(String), role: "user", plan: "free", ageConfirmed: true });
    expect(Object.keys(r.body.session).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type"]);
    expect(claimsOf(r.body.session.access_token)).toMatchObject({ sub: user.id, typ: "access" });
    expect((await call("/account", { token: r.body.session.access_token })).status).toBe(200);
  });

  it("refuses the codes of two and more steps away; accepts now's and the next step's", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user); // confirmed with the code of the step before now
    for (const offset of [-2, 2, -3, 3]) {
      const r = await secondStep(await mfaTokenFor(user.email, PASSWORD), codeAt(secret, now + offset * STEP));
      expect([r.status, r.body.details?.code], `step ${offset}`).toEqual([401, "invalid_mfa_code"]);
    }
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), codeAt(secret, now))).status).toBe(200);
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), codeAt(secret, now + STEP))).status).toBe(200);
  });

  it("accepts the step before now's code", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user); // confirmed with step -1's code
    const later = advanceClock(STEP); // now's step is the one before the clock's
    expect(later - STEP).toBe(now);
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), codeAt(secret, now))).status).toBe(200);
  });

  it("a code is accepted once: the same code again, or an earlier step's, is refused", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const code = codeAt(secret, now);
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), code)).status).toBe(200);
    const again = await secondStep(await mfaTokenFor(user.email, PASSWORD), code);
    expect([again.status, again.body.details.code]).toEqual([401, "invalid_mfa_code"]);
    expect(again.body.error).toBe("Unauthorized");
    // The next step's code is still good; after it, the earlier one is not.
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), codeAt(secret, now + STEP))).status).toBe(200);
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), code)).status).toBe(401);
  });

  it("two requests with one code at once: exactly one signs in", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const tokens = await Promise.all([1, 2, 3, 4].map(() => mfaTokenFor(user.email, PASSWORD)));
    const code = codeAt(secret, now);
    const results = await Promise.all(tokens.map((t) => secondStep(t, code)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401]);
  });

  it("recovery codes: each signs in once, in any case and with or without dashes; methods drop recovery when none is left", async () => {
    atNextStep();
    const user = await signup();
    const { recoveryCodes } = await enableTotp(user);
    const spellings = (c: string, i: number) => (i % 3 === 0 ? c : i % 3 === 1 ? c.toUpperCase() : c.replace(/-/g, ""));
    for (const [i, code] of recoveryCodes.entries()) {
      const r = await secondStep(await mfaTokenFor(user.email, PASSWORD), spellings(code, i));
      expect(r.status, `code ${i}`).toBe(200);
      const again = await secondStep(await mfaTokenFor(user.email, PASSWORD), code);
      expect([again.status, again.body.details.code], `code ${i} again`).toEqual([401, "invalid_mfa_code"]);
      expect((await factorStatus(r.body.session.access_token)).body.recoveryCodesRemaining).toBe(9 - i);
    }
    expect((await login(user.email, PASSWORD)).body.methods).toEqual(["totp"]);
  });

  it("another account's recovery code does not work", async () => {
    atNextStep();
    const a = await signup();
    const b = await signup();
    await enableTotp(a);
    const { recoveryCodes } = await enableTotp(b);
    const r = await secondStep(await mfaTokenFor(a.email, PASSWORD), recoveryCodes[0]);
    expect(r.status).toBe(401);
    expect((await secondStep(await mfaTokenFor(b.email, PASSWORD), recoveryCodes[0])).status).toBe(200);
  });
});

describe("the mfaToken", () => {
  it("is single use: after a sign-in it is refused, even with another good code", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret, recoveryCodes } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    expect((await secondStep(token, codeAt(secret, now))).status).toBe(200);
    const again = await secondStep(token, recoveryCodes[0]);
    expect([again.status, again.body.details.code]).toEqual([401, "invalid_mfa_token"]);
    expect((await factorStatus(user.access)).body.recoveryCodesRemaining).toBe(10); // the code was not spent
  });

  it("one token, two good codes at once: one session", async () => {
    atNextStep();
    const user = await signup();
    const { recoveryCodes } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    const results = await Promise.all(recoveryCodes.slice(0, 4).map((code) => secondStep(token, code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(3);
  });

  it("lives 5 minutes: a good code 5 min 1 s later is refused (and not spent); at 4 min 50 s it works", async () => {
    atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const early = await mfaTokenFor(user.email, PASSWORD);
    const late = await mfaTokenFor(user.email, PASSWORD);
    const t1 = advanceClock(4 * 60_000 + 50_000);
    expect((await secondStep(early, codeAt(secret, t1))).status).toBe(200);
    const t2 = advanceClock(11_000);
    const r = await secondStep(late, codeAt(secret, t2 + STEP));
    expect([r.status, r.body.details.code]).toEqual([401, "invalid_mfa_token"]);
    // The code was not spent on the dead token: a new sign-in takes it.
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), codeAt(secret, t2 + STEP))).status).toBe(200);
  });

  it("survives a wrong code (a typo does not send the person back to the password)", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    const code = codeAt(secret, now);
    expect((await secondStep(token, wrongCode(code))).status).toBe(401);
    expect((await secondStep(token, "not-a-recovery-code")).status).toBe(401);
    expect((await secondStep(token, code)).status).toBe(200);
  });

  it("unknown, malformed or missing: 401 invalid_mfa_token or 400", async () => {
    const unknown = await secondStep("x".repeat(43), "123456");
    expect([unknown.status, unknown.body.error, unknown.body.details.code]).toEqual([401, "Unauthorized", "invalid_mfa_token"]);
    for (const body of [{}, { mfaToken: "abc" }, { code: "123456" }, { mfaToken: "", code: "123456" }, { mfaToken: "abc", code: "" }, { mfaToken: "abc", code: "1", extra: 1 }]) {
      const r = await call("/auth/login/2fa", { body, ip: freshIp() });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details.code).toBe("validation_error");
    }
  });

  it("dies with a password change: a token from before it finishes no sign-in", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    expect((await call("/auth/password", { token: user.access, body: { currentPassword: PASSWORD, newPassword: "a brand new passphrase" }, ip: freshIp() })).status).toBe(200);
    const r = await secondStep(token, codeAt(secret, now));
    expect([r.status, r.body.details.code]).toEqual([401, "invalid_mfa_token"]);
  });
});

describe("a password reset leaves the factor in place", () => {
  it("the next login with the new password still asks for a code", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const resetToken = await requestReset(user.email);
    expect((await resetPassword(resetToken, "the new passphrase")).status).toBe(200);
    const r = await login(user.email, "the new passphrase");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ mfaRequired: true, methods: ["totp", "recovery"] });
    expect(r.body.session).toBeUndefined();
    expect((await secondStep(r.body.mfaToken, codeAt(secret, now))).status).toBe(200);
  });
});

describe("failed codes count in the login guard", () => {
  it("10 wrong codes per account in 15 minutes, across fresh logins and IPs: then 429, even with the right code", async () => {
    startOfNextWindow(LOGIN_LIMITS.windowSeconds);
    const user = await signup();
    const { secret } = await enableTotp(user);
    for (let i = 0; i < LOGIN_LIMITS.secondFactorFailuresPerAccount; i++) {
      // A new login each time: the right password must not clear the count of wrong codes.
      const r = await secondStep(await mfaTokenFor(user.email, PASSWORD, freshIp()), wrongCode(codeAt(secret, Date.now())), freshIp());
      expect(r.status, `wrong code ${i + 1}`).toBe(401);
    }
    // Wrong codes are counted apart from wrong passwords (only someone with the password can send them): the
    // password step still passes, and the right code waits for the window.
    const refused = await secondStep(await mfaTokenFor(user.email, PASSWORD), codeAt(secret, Date.now()));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
    expect(refused.headers.get("x-ratelimit-limit")).toBe(String(LOGIN_LIMITS.secondFactorFailuresPerAccount));
    expect(env.RATE_LIMIT_MULTIPLIER).toBe("1000"); // the login guard is not scaled by it
  });

  it("a token in hand: the 11th code is 429 whatever it is, and a parallel burst gets no extra tries", async () => {
    startOfNextWindow(LOGIN_LIMITS.windowSeconds);
    const user = await signup();
    const { secret } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    const wrong = wrongCode(codeAt(secret, Date.now()));
    const burst = await Promise.all(Array.from({ length: 15 }, () => secondStep(token, wrong, freshIp())));
    expect(burst.filter((r) => r.status === 401)).toHaveLength(LOGIN_LIMITS.secondFactorFailuresPerAccount);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(15 - LOGIN_LIMITS.secondFactorFailuresPerAccount);
    const right = await secondStep(token, codeAt(secret, Date.now()));
    expect(right.status).toBe(429);
  });

  it("a finished second step clears the account's count", async () => {
    startOfNextWindow(LOGIN_LIMITS.windowSeconds);
    const user = await signup();
    const { secret } = await enableTotp(user);
    const token = await mfaTokenFor(user.email, PASSWORD);
    for (let i = 0; i < LOGIN_LIMITS.secondFactorFailuresPerAccount - 1; i++) expect((await secondStep(token, wrongCode(codeAt(secret, Date.now())))).status).toBe(401);
    expect((await secondStep(token, codeAt(secret, Date.now()))).status).toBe(200);
    // The count of codes starts again: 10 more wrong ones are answered 401, not 429.
    const again = await mfaTokenFor(user.email, PASSWORD);
    for (let i = 0; i < LOGIN_LIMITS.secondFactorFailuresPerAccount; i++) expect((await secondStep(again, wrongCode(codeAt(secret, Date.now())))).status).toBe(401);
  });
});
