// POST /auth/password/forgot and /auth/password/reset (extensions.md §7): the same 202 for every address, a
// hashed single-use token valid 1 hour, a reset that revokes every session and tells the account.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { and, eq } from "drizzle-orm";
import { PASSWORD, call, latestToken, signup, uniqueEmail } from "../support/api";
import { changePassword, forgotPassword, freshIp, loginWith, mailsTo, requestReset, resetMails, resetPassword, resetTokenOf } from "../support/password";
import { createDb } from "../../src/platform/data/db";
import { emailTokens, users } from "../../src/db/schema";
import { sha256Hex } from "../../src/platform/crypto/crypto";

const NEW_PASSWORD = "a brand new passphrase";
const FORGOT_ANSWER = { message: "If an account uses this address, a link to reset its password is on its way. It works for 1 hour." };
const refresh = (token: string) => call("/auth/refresh", { body: { refresh_token: token } });
const resetTokensOf = (userId: string) =>
  createDb(env.DB).select().from(emailTokens).where(and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, "reset_password")));

afterEach(() => {
  vi.useRealTimers();
});

describe("POST /auth/password/forgot", () => {
  it("a known address: 202, and a mail with a link to the reset page and the code", async () => {
    const user = await signup();
    const res = await forgotPassword(user.email);
    expect(res.status).toBe(202);
    expect(res.body).toEqual(FORGOT_ANSWER);
    const [mail] = await resetMails(user.email);
    expect(mail).toBeDefined();
    expect(mail.subject).toBe("Reset your password");
    const token = resetTokenOf(mail);
    expect(mail.text).toContain(`${env.SITE_URL}/reset-password?token=${encodeURIComponent(token)}`);
    expect(mail.text).toMatch(/1 hour/);
  });

  it("stores only a hash of the token, for 1 hour", async () => {
    const user = await signup();
    const token = await requestReset(user.email);
    const rows = await resetTokensOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toBe(await sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0].expiresAt.getTime() - rows[0].createdAt.getTime()).toBe(3600 * 1000);
    expect(rows[0].usedAt).toBeNull();
  });

  it("an unknown, a deleted and a differently written address: the same 202 and body; mail only to the live account", async () => {
    const user = await signup();
    const gone = await signup();
    await createDb(env.DB).update(users).set({ deletedAt: new Date() }).where(eq(users.id, gone.id));
    const ghost = uniqueEmail("ghost");
    const answers = [await forgotPassword(ghost), await forgotPassword(gone.email), await forgotPassword(`  ${user.email.toUpperCase()} `)];
    for (const r of answers) {
      expect(r.status).toBe(202);
      expect(r.body).toEqual(FORGOT_ANSWER);
      expect(r.text).toBe(JSON.stringify(FORGOT_ANSWER));
      expect([...r.headers.keys()].sort()).toEqual([...answers[2].headers.keys()].sort());
    }
    // The live account's mail arrives (the address is matched as login matches it); by then the others' work is done.
    expect(await resetMails(user.email)).toHaveLength(1);
    expect(await mailsTo(ghost)).toEqual([]);
    expect((await mailsTo(gone.email)).filter((m) => /reset/i.test(m.subject))).toEqual([]);
    expect(await resetTokensOf(gone.id)).toEqual([]);
  });

  it("a malformed address is a 400 (whatever accounts exist); API keys are refused", async () => {
    for (const body of [{ email: "not an address" }, {}, { email: "a@example.com", extra: 1 }]) {
      const r = await call("/auth/password/forgot", { body, ip: freshIp() });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details.code).toBe("validation_error");
    }
  });
  // That the answer does not depend on whether the address is known is proved by the code path, not by timing it
  // (timing under a loaded machine is noise): test/auth/password-forgot-path.test.ts.

});

describe("POST /auth/password/reset", () => {
  it("sets the password, answers { message } without a session, and the new password signs in", async () => {
    const user = await signup();
    const other = await signup();
    const token = await requestReset(user.email);
    const res = await resetPassword(token, NEW_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Your password was changed. Sign in with the new one." });
    expect((await loginWith(user.email, NEW_PASSWORD)).status).toBe(200);
    expect((await loginWith(user.email, PASSWORD)).status).toBe(401);
    // The token is the account's own: another account's password and sessions are untouched.
    expect((await loginWith(other.email, PASSWORD)).status).toBe(200);
    expect((await call("/account", { token: other.access })).status).toBe(200);
  });

  it("revokes every session and refresh family: old access and refresh tokens stop working", async () => {
    const user = await signup();
    const other = (await loginWith(user.email, PASSWORD)).body.session;
    const token = await requestReset(user.email);
    expect((await resetPassword(token, NEW_PASSWORD)).status).toBe(200);
    for (const access of [user.access, other.access_token]) expect((await call("/account", { token: access })).status).toBe(401);
    for (const t of [user.refresh, other.refresh_token]) {
      const r = await refresh(t);
      expect(r.status).toBe(401);
      expect(r.body.details.code).toBe("session_revoked");
    }
  });

  it("mails the account", async () => {
    const user = await signup();
    expect((await resetPassword(await requestReset(user.email), NEW_PASSWORD)).status).toBe(200);
    const [mail] = await mailsTo(user.email);
    expect(mail.subject).toBe("Your password was changed");
    expect(mail.text).not.toContain(NEW_PASSWORD);
  });

  it("the token is single use", async () => {
    const user = await signup();
    const token = await requestReset(user.email);
    expect((await resetPassword(token, NEW_PASSWORD)).status).toBe(200);
    const again = await resetPassword(token, "the second new password");
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: "Bad Request", message: "The reset link is invalid, used or expired", details: { code: "invalid_reset_token" } });
    expect((await loginWith(user.email, NEW_PASSWORD)).status).toBe(200);
  });

  it("two concurrent resets with one token: exactly one succeeds", async () => {
    const user = await signup();
    const token = await requestReset(user.email);
    const results = await Promise.all([resetPassword(token, "first concurrent password"), resetPassword(token, "second concurrent password")]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it("the token expires after 1 hour", async () => {
    const user = await signup();
    const [late, inTime] = [await requestReset(user.email), await requestReset(user.email)];
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 3600 * 1000 + 1000);
    const expired = await resetPassword(late, NEW_PASSWORD);
    expect(expired.status).toBe(400);
    expect(expired.body.details.code).toBe("invalid_reset_token");
    vi.useRealTimers();
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 3540 * 1000); // 59 minutes
    expect((await resetPassword(inTime, NEW_PASSWORD)).status).toBe(200);
  });

  it("a change of the password by any path kills every outstanding token", async () => {
    const user = await signup();
    const [first, second] = [await requestReset(user.email), await requestReset(user.email)];
    expect((await resetPassword(second, NEW_PASSWORD)).status).toBe(200);
    expect((await resetPassword(first, "another password")).body.details.code).toBe("invalid_reset_token");

    const third = await requestReset(user.email);
    const session = (await loginWith(user.email, NEW_PASSWORD)).body.session;
    expect((await changePassword(session.access_token, { currentPassword: NEW_PASSWORD, newPassword: "changed while signed in" })).status).toBe(200);
    expect((await resetPassword(third, "another password")).body.details.code).toBe("invalid_reset_token");
    expect((await loginWith(user.email, "changed while signed in")).status).toBe(200);
  });

  it("tokens keep to their purpose: a verification token resets nothing, a reset token verifies nothing", async () => {
    const user = await signup();
    const verification = await latestToken(user.email);
    expect((await resetPassword(verification, NEW_PASSWORD)).body.details.code).toBe("invalid_reset_token");
    const reset = await requestReset(user.email);
    expect((await call("/auth/verify-email", { body: { token: reset } })).status).toBe(400);
    // Both still work for what they are.
    expect((await call("/auth/verify-email", { body: { token: verification } })).status).toBe(200);
    expect((await resetPassword(reset, NEW_PASSWORD)).status).toBe(200);
  });

  it("a weak new password: 400, and the token is not used up", async () => {
    const user = await signup();
    const token = await requestReset(user.email);
    for (const newPassword of ["short12", "x".repeat(257)]) {
      const r = await resetPassword(token, newPassword);
      expect(r.status).toBe(400);
      expect(r.body.details.code).toBe("validation_error");
      expect(r.body.details.fields.map((f: { path: string }) => f.path)).toEqual(["newPassword"]);
    }
    expect((await resetPassword(token, NEW_PASSWORD)).status).toBe(200);
  });

  it("unknown, garbage and malformed tokens", async () => {
    for (const token of ["garbage", "x".repeat(43)]) expect((await resetPassword(token, NEW_PASSWORD)).body.details.code).toBe("invalid_reset_token");
    for (const body of [{ token: "", newPassword: NEW_PASSWORD }, { token: "x".repeat(600), newPassword: NEW_PASSWORD }, { newPassword: NEW_PASSWORD }, { token: 5, newPassword: NEW_PASSWORD }]) {
      const r = await call("/auth/password/reset", { body, ip: freshIp() });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details.code).toBe("validation_error");
    }
  });

  it("a token of a deleted account resets nothing", async () => {
    const user = await signup();
    const token = await requestReset(user.email);
    await createDb(env.DB).update(users).set({ deletedAt: new Date() }).where(eq(users.id, user.id));
    expect((await resetPassword(token, NEW_PASSWORD)).body.details.code).toBe("invalid_reset_token");
  });
});
