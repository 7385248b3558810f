// POST /auth/password (extensions.md §7): session-only; a fresh session, every other session and refresh family
// revoked, a mail to the account, outstanding reset tokens voided, wrong current passwords counted like logins.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { PASSWORD, call, createKey, signup, verifiedUser } from "../support/api";
import { changePassword, freshIp, loginWith, mailsTo, requestReset, resetPassword } from "../support/password";
import { startOfNextWindow } from "../support/clock";
import { claimsOf } from "../support/tokens";
import { createDb } from "../../src/platform/data/db";
import { sessions, users } from "../../src/db/schema";
import { LOGIN_LIMITS } from "../../src/config/auth";
import { login } from "../support/totp";

const NEW_PASSWORD = "a brand new passphrase";
const refresh = (token: string) => call("/auth/refresh", { body: { refresh_token: token } });
const passwordHashOf = async (id: string) => (await createDb(env.DB).select().from(users).where(eq(users.id, id)).get())!.passwordHash;

describe("POST /auth/password", () => {
  it("answers a fresh { session } (the login shape's session) that works, and the new password signs in", async () => {
    const user = await signup();
    const res = await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["session"]);
    expect(res.body.session).toMatchObject({ expires_in: 900, token_type: "Bearer" });
    expect(Object.keys(res.body.session).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type"]);
    expect(claimsOf(res.body.session.access_token)).toMatchObject({ sub: user.id, typ: "access" });
    // A new refresh family, not the caller's old one.
    expect(claimsOf(res.body.session.access_token).sid).not.toBe(claimsOf(user.access).sid);
    expect((await call("/account", { token: res.body.session.access_token })).status).toBe(200);
    expect((await refresh(res.body.session.refresh_token)).status).toBe(200);

    expect((await loginWith(user.email, NEW_PASSWORD)).status).toBe(200);
    const old = await loginWith(user.email, PASSWORD);
    expect(old.status).toBe(401);
    expect(old.body.details.code).toBe("invalid_credentials");
  });

  it("revokes every other session and refresh family: old access and refresh tokens stop working", async () => {
    const user = await signup();
    const other = (await loginWith(user.email, PASSWORD)).body.session;
    const rotated = (await refresh(other.refresh_token)).body.session; // a family with history
    const res = await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(200);

    for (const access of [user.access, other.access_token, rotated.access_token]) {
      const r = await call("/account", { token: access });
      expect(r.status).toBe(401);
      expect(r.body.details.code).toBe("invalid_token");
    }
    for (const token of [user.refresh, rotated.refresh_token]) {
      const r = await refresh(token);
      expect(r.status).toBe(401);
      expect(r.body.details.code).toBe("session_revoked");
    }
    const rows = await createDb(env.DB).select().from(sessions).where(eq(sessions.userId, user.id));
    const fresh = claimsOf(res.body.session.access_token).sid;
    expect(rows.filter((s) => s.id !== fresh).map((s) => s.revokedReason)).toEqual(["password_change", "password_change"]);
    expect(rows.find((s) => s.id === fresh)?.revokedAt).toBeNull();
  });

  it("mails the account", async () => {
    const user = await signup();
    expect((await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
    const [mail] = await mailsTo(user.email);
    expect(mail.subject).toBe("Your password was changed");
    expect(mail.text).toContain(user.email);
    expect(mail.text).toContain(`${env.SITE_URL}/app/forgot-password`);
    expect(mail.text).not.toContain(NEW_PASSWORD);
  });

  it("voids outstanding reset tokens", async () => {
    const user = await signup();
    const token = await requestReset(user.email);
    expect((await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
    const r = await resetPassword(token, "the attacker's choice");
    expect(r.status).toBe(400);
    expect(r.body.details.code).toBe("invalid_reset_token");
    expect((await loginWith(user.email, NEW_PASSWORD)).status).toBe(200);
  });

  it("a wrong current password: 403 invalid_password, nothing changes", async () => {
    const user = await signup();
    const before = await passwordHashOf(user.id);
    const r = await changePassword(user.access, { currentPassword: "not my password", newPassword: NEW_PASSWORD });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: "Forbidden", message: "The current password is not correct", details: { code: "invalid_password" } });
    expect(await passwordHashOf(user.id)).toBe(before);
    expect((await call("/account", { token: user.access })).status).toBe(200);
    expect((await refresh(user.refresh)).status).toBe(200);
    expect(await mailsTo(user.email)).toHaveLength(1); // the verification mail only
  });

  it("weak or missing fields: 400 with the failing fields, by the signup password rules", async () => {
    const user = await signup();
    const cases: [unknown, string][] = [
      [{ currentPassword: PASSWORD, newPassword: "short12" }, "newPassword"],
      [{ currentPassword: PASSWORD, newPassword: "x".repeat(257) }, "newPassword"],
      [{ currentPassword: PASSWORD }, "newPassword"],
      [{ newPassword: NEW_PASSWORD }, "currentPassword"],
      [{ currentPassword: "", newPassword: NEW_PASSWORD }, "currentPassword"],
      [{ currentPassword: PASSWORD, newPassword: 12345678 }, "newPassword"],
      [{ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, logoutOthers: false }, "logoutOthers"],
    ];
    for (const [body, field] of cases) {
      const r = await changePassword(user.access, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details.code).toBe("validation_error");
      expect(r.body.details.fields.map((f: { path: string }) => f.path)).toContain(field);
    }
    // Exactly 8 characters is enough (PASSWORD_LENGTH.min), and nothing above changed the password.
    expect((await changePassword(user.access, { currentPassword: PASSWORD, newPassword: "12345678" })).status).toBe(200);
  });

  describe("who may call it", () => {
    it("anonymous: 401; API keys, whatever their permissions: 403; revoked or expired keys: 401", async () => {
      const user = await verifiedUser();
      const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
      const anon = await call("/auth/password", { body });
      expect([anon.status, anon.body.error]).toEqual([401, "Unauthorized"]);
      for (const permissions of [["read", "upload", "manage"], ["read"]]) {
        const { key } = await createKey(user, { permissions });
        const r = await changePassword(key, body);
        expect(r.status).toBe(403);
        expect(r.body.error).toBe("Forbidden");
        expect(r.body.message).toContain("API keys can only access");
        expect(r.body.details.code).toBe("api_key_not_allowed");
      }
      const revoked = await createKey(user);
      expect((await call(`/keys/${revoked.id}`, { method: "DELETE", token: user.access })).status).toBe(200);
      const r1 = await changePassword(revoked.key, body);
      expect([r1.status, r1.body.error]).toEqual([401, "API key has been revoked"]);
      const expired = await createKey(user);
      await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, expired.id).run();
      const r2 = await changePassword(expired.key, body);
      expect([r2.status, r2.body.error]).toEqual([401, "API key has expired"]);
      // None of them changed anything.
      expect((await loginWith(user.email, PASSWORD)).status).toBe(200);
    });

    it("changes only the caller's own account: another user's sessions and password are untouched", async () => {
      const a = await signup();
      const b = await signup();
      const bHash = await passwordHashOf(b.id);
      expect((await changePassword(a.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
      expect(await passwordHashOf(b.id)).toBe(bHash);
      expect((await call("/account", { token: b.access })).status).toBe(200);
      expect((await refresh(b.refresh)).status).toBe(200);
      expect(await mailsTo(b.email)).toHaveLength(1); // B's verification mail only
      expect((await loginWith(b.email, PASSWORD)).status).toBe(200);
    });

    it("API keys of the account keep working (they are not sessions)", async () => {
      const user = await verifiedUser();
      const { key } = await createKey(user, { permissions: ["read"] });
      expect((await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
      expect((await call("/files", { token: key })).status).toBe(200);
    });
  });

  describe("wrong current passwords count in the login guard", () => {
    let restoreClock: () => void;
    beforeEach(() => {
      restoreClock = startOfNextWindow(LOGIN_LIMITS.windowSeconds);
    });
    afterEach(() => restoreClock());

    it("10 failures from one IP in 15 minutes, then 429 here and at login from that IP, even with the right password", async () => {
      const user = await signup();
      const ip = freshIp();
      for (let i = 0; i < LOGIN_LIMITS.failuresPerAddressAndIp; i++) {
        const r = await changePassword(user.access, { currentPassword: `wrong ${i} password`, newPassword: NEW_PASSWORD }, ip);
        expect(r.status, `attempt ${i + 1}`).toBe(403);
      }
      const refused = await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, ip);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
      expect(refused.headers.get("retry-after")).toBe(String(refused.body.retryAfter));
      expect(refused.headers.get("x-ratelimit-limit")).toBe(String(LOGIN_LIMITS.failuresPerAddressAndIp));
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
      expect((await login(user.email, PASSWORD, ip)).status).toBe(429);
      // Wrong guesses from one IP do not stop the owner elsewhere (test/auth/address-lockout.test.ts).
      expect((await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
    });

    it("a right current password clears the count from that IP, as a login does", async () => {
      const user = await signup();
      const ip = freshIp();
      for (let i = 0; i < LOGIN_LIMITS.failuresPerAddressAndIp - 1; i++) {
        expect((await changePassword(user.access, { currentPassword: "wrong password", newPassword: NEW_PASSWORD }, ip)).status).toBe(403);
      }
      const ok = await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, ip);
      expect(ok.status).toBe(200);
      for (let i = 0; i < LOGIN_LIMITS.failuresPerAddressAndIp; i++) expect((await login(user.email, "wrong password", ip)).status).toBe(401);
    });

    it("parallel guesses cannot slip past the limit", async () => {
      const user = await signup();
      const ip = freshIp();
      const results = await Promise.all(Array.from({ length: 15 }, (_, i) => changePassword(user.access, { currentPassword: `guess ${i} password`, newPassword: NEW_PASSWORD }, ip)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 403)).toHaveLength(LOGIN_LIMITS.failuresPerAddressAndIp);
      expect(statuses.filter((s) => s === 429)).toHaveLength(15 - LOGIN_LIMITS.failuresPerAddressAndIp);
    });
  });
});

describe("the password routes in /openapi.json", () => {
  it("are described with their bodies, answers and error codes", async () => {
    const doc = (await call("/openapi.json")).body;
    const op = (path: string) => doc.paths[path].post;
    const codes = (path: string, status: number) => Object.keys(op(path).responses[status]?.content["application/json"].examples ?? {});
    expect(Object.keys(op("/auth/password").responses).sort()).toEqual(["200", "400", "401", "403", "429"]);
    expect(op("/auth/password").security).toEqual([{ bearerAuth: [] }]);
    expect(codes("/auth/password", 403)).toEqual(expect.arrayContaining(["api_key_not_allowed", "invalid_password"]));
    expect(Object.keys(op("/auth/password/forgot").responses).sort()).toEqual(["202", "400", "403", "429"]);
    expect(codes("/auth/password/forgot", 403)).not.toContain("invalid_password");
    expect(Object.keys(op("/auth/password/reset").responses).sort()).toEqual(["200", "400", "403", "429"]);
    expect(codes("/auth/password/reset", 400)).toEqual(expect.arrayContaining(["validation_error", "invalid_reset_token"]));
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.ChangePasswordRequest.properties)).toEqual(["currentPassword", "newPassword"]);
    expect(schemas.ChangePasswordRequest.properties.newPassword).toMatchObject({ minLength: 8, maxLength: 256 });
    expect(Object.keys(schemas.ForgotPasswordRequest.properties)).toEqual(["email"]);
    expect(Object.keys(schemas.ResetPasswordRequest.properties)).toEqual(["token", "newPassword"]);
  });
});
