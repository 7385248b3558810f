// Managing passkeys (extensions.md §5): GET /auth/passkeys lists { id, name, createdAt, lastUsedAt };
// DELETE /auth/passkeys/:id removes one with the password or a current TOTP code (issue #29: turning a factor off
// needs either, and tells the account by mail). The recovery codes stay while a factor remains. All session-only.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, call, createKey, signup, verifiedUser } from "../support/api";
import { mailsTo } from "../support/password";
import { STEP, atNextStep, codeAt, enableTotp, factorStatus, login, turnOff } from "../support/totp";
import { addPasskey, creationOptions, listPasskeys, passkeySignIn, removePasskey, signInOptions, signInWith, withPasskey } from "../support/passkeys";
import { assertWith, attest, newAuthenticator } from "../support/webauthn";

afterEach(() => vi.useRealTimers());

const removedMails = async (email: string) => (await mailsTo(email)).filter((m) => m.subject === "A passkey was removed from your account");

describe("GET /auth/passkeys", () => {
  it("lists the account's passkeys, oldest first, with their names and dates; nothing else", async () => {
    const user = await signup();
    expect((await listPasskeys(user.access)).body).toEqual({ passkeys: [] });
    const one = await withPasskey(user, "Laptop");
    const two = await withPasskey(user, "Phone");
    expect((await signInWith(two.authenticator)).status).toBe(200);
    const { passkeys } = (await listPasskeys(user.access)).body;
    expect(passkeys.map((p: { name: string }) => p.name)).toEqual(["Laptop", "Phone"]);
    expect(passkeys.map((p: object) => Object.keys(p).sort())).toEqual([
      ["createdAt", "id", "lastUsedAt", "name"],
      ["createdAt", "id", "lastUsedAt", "name"],
    ]);
    expect(passkeys[0]).toEqual({ id: one.passkey.id, name: "Laptop", createdAt: one.passkey.createdAt, lastUsedAt: null });
    expect(passkeys[1].lastUsedAt).toEqual(expect.any(String));
  });
});

describe("DELETE /auth/passkeys/:id", () => {
  it("with the password: 200 { message }, mailed; the passkey no longer signs in", async () => {
    const user = await signup();
    const keep = await withPasskey(user, "Keep");
    const { passkey, authenticator } = await withPasskey(user, "Old phone");
    const r = await removePasskey(user.access, passkey.id, { password: PASSWORD });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String) });
    expect((await listPasskeys(user.access)).body.passkeys.map((p: { id: string }) => p.id)).toEqual([keep.passkey.id]);
    const mails = await removedMails(user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain("Old phone");
    expect(mails[0].text).toContain("password");
    expect((await signInWith(authenticator)).status).toBe(401);
    expect((await signInWith(keep.authenticator)).status).toBe(200);
  });

  it("with a current TOTP code, accepted once", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const a = await withPasskey(user, "a");
    const b = await withPasskey(user, "b");
    const code = codeAt(secret, now);
    expect((await removePasskey(user.access, a.passkey.id, { code })).status).toBe(200);
    const again = await removePasskey(user.access, b.passkey.id, { code });
    expect([again.status, again.body.details.code]).toEqual([403, "invalid_totp_code"]);
    expect((await removePasskey(user.access, b.passkey.id, { code: codeAt(secret, now + STEP) })).status).toBe(200);
    expect((await removedMails(user.email)).map((m) => m.text.includes("authenticator app"))).toEqual([true, true]);
  });

  it("a wrong password or code: 403, nothing removed, nothing mailed; a code without TOTP is wrong", async () => {
    atNextStep();
    const user = await signup();
    const { passkey } = await withPasskey(user);
    const wrongPassword = await removePasskey(user.access, passkey.id, { password: "not my password" });
    expect([wrongPassword.status, wrongPassword.body.details.code]).toEqual([403, "invalid_password"]);
    const noTotp = await removePasskey(user.access, passkey.id, { code: "123456" });
    expect([noTotp.status, noTotp.body.details.code]).toEqual([403, "invalid_totp_code"]);
    expect((await listPasskeys(user.access)).body.passkeys).toHaveLength(1);
    expect(await removedMails(user.email)).toEqual([]);
  });

  it("either a code or the password: both, neither or unknown fields are 400", async () => {
    const user = await signup();
    const { passkey } = await withPasskey(user);
    for (const body of [{}, { code: "123456", password: PASSWORD }, { password: "" }, { code: "12" }, { token: "x" }]) {
      const r = await removePasskey(user.access, passkey.id, body);
      expect([r.status, r.body.details.code], JSON.stringify(body)).toEqual([400, "validation_error"]);
    }
  });

  it("another account's passkey, an unknown or a malformed id: 404 passkey_not_found, even with the right password", async () => {
    const a = await signup();
    const b = await signup();
    const { passkey } = await withPasskey(b);
    for (const id of [passkey.id, "psk_V1StGXR8_Z5jdHi6B-myT", "not-an-id"]) {
      const r = await removePasskey(a.access, id, { password: PASSWORD });
      expect([r.status, r.body.error, r.body.details.code], id).toEqual([404, "Not Found", "passkey_not_found"]);
    }
    expect((await listPasskeys(b.access)).body.passkeys).toHaveLength(1);
    expect(await removedMails(b.email)).toEqual([]);
  });

  it("the last factor gone: the recovery codes go too and the password alone signs in", async () => {
    const user = await signup();
    const { passkey } = await withPasskey(user);
    expect((await factorStatus(user.access)).body.recoveryCodesRemaining).toBe(10);
    expect((await removePasskey(user.access, passkey.id, { password: PASSWORD })).status).toBe(200);
    expect((await factorStatus(user.access)).body).toMatchObject({ methods: [], recoveryCodesRemaining: 0 });
    expect((await login(user.email, PASSWORD)).body.session).toBeDefined();
    expect((await removedMails(user.email))[0].text).toContain("needs the password only");
  });

  it("with TOTP on, the recovery codes stay", async () => {
    atNextStep();
    const user = await signup();
    await enableTotp(user);
    const { passkey } = await withPasskey(user);
    expect((await removePasskey(user.access, passkey.id, { password: PASSWORD })).status).toBe(200);
    expect((await factorStatus(user.access)).body).toMatchObject({ methods: ["totp", "recovery"], recoveryCodesRemaining: 10 });
  });
});

describe("TOTP turned off while a passkey remains", () => {
  it("keeps the recovery codes and the second step; the mail says so", async () => {
    atNextStep();
    const user = await signup();
    await enableTotp(user);
    await withPasskey(user);
    expect((await turnOff(user.access, { password: PASSWORD })).status).toBe(200);
    expect((await factorStatus(user.access)).body).toMatchObject({ methods: ["passkey", "recovery"], recoveryCodesRemaining: 10 });
    expect((await login(user.email, PASSWORD)).body).toMatchObject({ mfaRequired: true, methods: ["passkey", "recovery"] });
    const mail = (await mailsTo(user.email)).find((m) => m.subject === "Two-factor sign-in was turned off");
    expect(mail?.text).toContain("passkey");
    expect(mail?.text).not.toContain("needs the password only");
  });
});

describe("who may call the passkey routes", () => {
  it("management: anonymous 401; API keys whatever their permissions 403; revoked or expired keys 401; nothing changes", async () => {
    const user = await verifiedUser();
    const { passkey, authenticator } = await withPasskey(user);
    const full = await createKey(user, { permissions: ["read", "upload", "manage"] });
    const readOnly = await createKey(user, { permissions: ["read"] });
    const revoked = await createKey(user);
    expect((await call(`/keys/${revoked.id}`, { method: "DELETE", token: user.access })).status).toBe(200);
    const expired = await createKey(user);
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, expired.id).run();
    const routes = [
      { path: "/auth/passkeys/options", method: "POST" },
      { path: "/auth/passkeys", method: "POST", body: { name: "x", response: await attest(await newAuthenticator(), (await creationOptions(user.access)).body) } },
      { path: "/auth/passkeys", method: "GET" },
      { path: `/auth/passkeys/${passkey.id}`, method: "DELETE", body: { password: PASSWORD } },
    ];
    for (const route of routes) {
      const label = `${route.method} ${route.path}`;
      const anon = await call(route.path, { method: route.method, body: route.body });
      expect([anon.status, anon.body.error], label).toEqual([401, "Unauthorized"]);
      for (const { key } of [full, readOnly]) {
        const r = await call(route.path, { method: route.method, body: route.body, token: key });
        expect([r.status, r.body.error, r.body.details.code], label).toEqual([403, "Forbidden", "api_key_not_allowed"]);
        expect(r.body.message).toContain("API keys can only access");
      }
      expect((await call(route.path, { method: route.method, body: route.body, token: revoked.key })).body.error, label).toBe("API key has been revoked");
      expect((await call(route.path, { method: route.method, body: route.body, token: expired.key })).body.error, label).toBe("API key has expired");
    }
    expect((await listPasskeys(user.access)).body.passkeys.map((p: { id: string }) => p.id)).toEqual([passkey.id]);
    expect((await signInWith(authenticator)).status).toBe(200);
  });

  it("sign-in: anonymous welcome, API keys refused with 403 whatever their permissions", async () => {
    const user = await verifiedUser();
    const { authenticator } = await withPasskey(user);
    const { key } = await createKey(user, { permissions: ["read", "upload", "manage"] });
    const options = await call("/auth/passkeys/login/options", { method: "POST", token: key });
    expect([options.status, options.body.details.code]).toEqual([403, "api_key_not_allowed"]);
    const response = await assertWith(authenticator, (await signInOptions()).body);
    const r = await call("/auth/passkeys/login", { body: { response }, token: key });
    expect([r.status, r.body.details.code]).toEqual([403, "api_key_not_allowed"]);
    expect((await passkeySignIn({ response })).status).toBe(200); // the answer was not spent by the refusal
  });

  it("another account's session cannot register with this account's challenge, list or remove its passkeys", async () => {
    const a = await signup();
    const b = await signup();
    const { passkey } = await withPasskey(a);
    expect((await listPasskeys(b.access)).body.passkeys).toEqual([]);
    expect((await removePasskey(b.access, passkey.id, { password: PASSWORD })).status).toBe(404);
    const aOptions = (await creationOptions(a.access)).body;
    expect((await addPasskey(b.access, { name: "x", response: await attest(await newAuthenticator(), aOptions) })).status).toBe(400);
    expect((await listPasskeys(a.access)).body.passkeys).toHaveLength(1);
  });
});
