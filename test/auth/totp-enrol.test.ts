// TOTP enrolment, confirmation and removal (extensions.md §5): POST /auth/2fa/totp -> { secret, otpauthUrl },
// pending until POST /auth/2fa/totp/confirm { code } -> { recoveryCodes }; DELETE /auth/2fa/totp with { code } or
// { password }, mailed; GET /auth/2fa for the account page. The seed is stored sealed, recovery codes hashed.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { PASSWORD, call, createKey, signup, verifiedUser } from "../support/api";
import { mailsTo } from "../support/password";
import { STEP, atNextStep, codeAt, confirm, enableTotp, enrol, factorStatus, login, turnOff } from "../support/totp";
import { createDb } from "../../src/platform/data/db";
import { recoveryCodes, totpFactors } from "../../src/db/schema";
import { openSecret } from "../../src/platform/crypto/secret-box";
import { sha256Hex } from "../../src/platform/crypto/crypto";

const db = () => createDb(env.DB);
const factorRow = (userId: string) => db().select().from(totpFactors).where(eq(totpFactors.userId, userId)).get();
const codeRows = (userId: string) => db().select().from(recoveryCodes).where(eq(recoveryCodes.userId, userId));

afterEach(() => vi.useRealTimers());

/** The one "turned off" mail of the address (mails written within one millisecond have no set order). */
async function turnedOffMail(email: string) {
  const mails = (await mailsTo(email)).filter((m) => m.subject === "Two-factor sign-in was turned off");
  expect(mails).toHaveLength(1);
  return mails[0];
}

describe("POST /auth/2fa/totp (enrol)", () => {
  it("answers a base32 secret and its otpauth URL; the factor is pending and sign-in still needs no code", async () => {
    atNextStep();
    const user = await signup();
    const r = await enrol(user.access);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["otpauthUrl", "secret"]);
    expect(r.body.secret).toMatch(/^[A-Z2-7]{32}$/); // 160 bits
    const url = new URL(r.body.otpauthUrl);
    expect(`${url.protocol}//${url.host}`).toBe("otpauth://totp");
    expect(decodeURIComponent(url.pathname)).toBe(`/imghost:${user.email}`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ secret: r.body.secret, issuer: "imghost", algorithm: "SHA1", digits: "6", period: "30" });

    expect((await factorStatus(user.access)).body).toEqual({ methods: [], totp: { state: "pending", confirmedAt: null }, recoveryCodesRemaining: 0 });
    const signIn = await login(user.email, PASSWORD);
    expect(signIn.status).toBe(200);
    expect(signIn.body.session).toBeDefined();
  });

  it("asking again replaces a pending secret: the first one's codes no longer confirm", async () => {
    const now = atNextStep();
    const user = await signup();
    const first = (await enrol(user.access)).body.secret;
    const second = (await enrol(user.access)).body.secret;
    expect(second).not.toBe(first);
    const r = await confirm(user.access, codeAt(first, now));
    expect(r.status).toBe(403);
    expect(r.body.details.code).toBe("invalid_totp_code");
    expect((await confirm(user.access, codeAt(second, now))).status).toBe(200);
  });

  it("409 totp_already_enabled once confirmed: the confirmed secret stays", async () => {
    atNextStep();
    const user = await signup();
    await enableTotp(user);
    const before = await factorRow(user.id);
    const r = await enrol(user.access);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: "Conflict", message: "TOTP is already on; turn it off first to enrol another authenticator", details: { code: "totp_already_enabled" } });
    expect(await factorRow(user.id)).toEqual(before);
  });

  it("stores the secret sealed (AES-GCM, bound to the account), never in clear", async () => {
    atNextStep();
    const user = await signup();
    const { secret } = (await enrol(user.access)).body;
    const row = (await factorRow(user.id))!;
    expect(row.secretSealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    const opened = await openSecret(env.TOTP_ENCRYPTION_SECRET, "totp seed v1", row.secretSealed, user.id);
    expect(opened && [...opened].map((b) => b.toString(16).padStart(2, "0")).join("")).toHaveLength(40);
    // Copied onto another account, the sealed seed does not open there: that account's codes are all refused.
    const other = await signup();
    await enrol(other.access);
    await db().update(totpFactors).set({ secretSealed: row.secretSealed }).where(eq(totpFactors.userId, other.id));
    const r = await confirm(other.access, codeAt(secret, Date.now()));
    expect(r.status).toBe(403);
  });
});

describe("POST /auth/2fa/totp/confirm", () => {
  it("a current code turns TOTP on and answers 10 distinct recovery codes, stored only as hashes", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = (await enrol(user.access)).body;
    const r = await confirm(user.access, codeAt(secret, now));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["recoveryCodes"]);
    const codes: string[] = r.body.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);

    const status = (await factorStatus(user.access)).body;
    expect(status).toMatchObject({ methods: ["totp", "recovery"], totp: { state: "on" }, recoveryCodesRemaining: 10 });
    expect(Date.parse(status.totp.confirmedAt)).toBeGreaterThanOrEqual(now);

    const rows = await codeRows(user.id);
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(rows);
    for (const code of codes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace(/-/g, ""));
    }
    const expected = await Promise.all(codes.map((c) => sha256Hex(`recovery-code:${c.replace(/-/g, "")}`)));
    expect(rows.map((x) => x.codeHash).sort()).toEqual(expected.sort());
  });

  it("accepts the steps either side of now, not two steps away; spaces are allowed", async () => {
    for (const [offset, status] of [[-2, 403], [2, 403], [-1, 200], [1, 200], [0, 200]] as const) {
      const now = atNextStep();
      const user = await signup();
      const { secret } = (await enrol(user.access)).body;
      const code = codeAt(secret, now + offset * STEP);
      expect((await confirm(user.access, `${code.slice(0, 3)} ${code.slice(3)}`)).status, `step ${offset}`).toBe(status);
    }
  });

  it("a wrong code: 403 invalid_totp_code and still pending; no enrolment or already on: 409 totp_not_pending", async () => {
    const now = atNextStep();
    const user = await signup();
    const none = await confirm(user.access, "123456");
    expect([none.status, none.body.details.code]).toEqual([409, "totp_not_pending"]);
    const { secret } = (await enrol(user.access)).body;
    const good = codeAt(secret, now);
    const wrong = await confirm(user.access, good === "000000" ? "000001" : "000000");
    expect([wrong.status, wrong.body.error, wrong.body.details.code]).toEqual([403, "Forbidden", "invalid_totp_code"]);
    expect((await factorStatus(user.access)).body.totp.state).toBe("pending");
    expect((await confirm(user.access, good)).status).toBe(200);
    const again = await confirm(user.access, codeAt(secret, now + STEP));
    expect([again.status, again.body.details.code]).toEqual([409, "totp_not_pending"]);
  });

  it("not six digits: 400 validation_error on `code`", async () => {
    const user = await signup();
    await enrol(user.access);
    for (const code of ["12345", "1234567", "abcdef", "", 123456, null]) {
      const r = await confirm(user.access, code);
      expect(r.status, JSON.stringify(code)).toBe(400);
      expect(r.body.details.fields.map((f: { path: string }) => f.path)).toContain("code");
    }
    const extra = await call("/auth/2fa/totp/confirm", { token: user.access, body: { code: "123456", secret: "x" } });
    expect(extra.status).toBe(400);
  });
});

describe("DELETE /auth/2fa/totp", () => {
  it("with a current code: off, recovery codes gone, sign-in needs the password only, and the account is mailed", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = await enableTotp(user);
    const r = await turnOff(user.access, { code: codeAt(secret, now) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Two-factor sign-in is off" });
    expect(await factorRow(user.id)).toBeUndefined();
    expect(await codeRows(user.id)).toEqual([]);
    expect((await factorStatus(user.access)).body).toEqual({ methods: [], totp: { state: "off", confirmedAt: null }, recoveryCodesRemaining: 0 });
    expect((await login(user.email, PASSWORD)).body.session).toBeDefined();
    const mail = await turnedOffMail(user.email);
    expect(mail.text).toContain(user.email);
    expect(mail.text).toContain("a code from the authenticator app");
    expect(mail.text).toContain(`${env.SITE_URL}/app/account`);
  });

  it("with the password: off and mailed; a wrong password is 403 invalid_password and changes nothing", async () => {
    atNextStep();
    const user = await signup();
    await enableTotp(user);
    const wrong = await turnOff(user.access, { password: "not my password" });
    expect([wrong.status, wrong.body.details.code]).toEqual([403, "invalid_password"]);
    expect((await factorStatus(user.access)).body.totp.state).toBe("on");
    const r = await turnOff(user.access, { password: PASSWORD });
    expect(r.status).toBe(200);
    expect((await turnedOffMail(user.email)).text).toContain("the account's password");
  });

  it("a wrong or already used code is 403 invalid_totp_code; nothing changes", async () => {
    const now = atNextStep();
    const user = await signup();
    const e = (await enrol(user.access)).body;
    const used = codeAt(e.secret, now);
    expect((await confirm(user.access, used)).status).toBe(200);
    const reused = await turnOff(user.access, { code: used });
    expect([reused.status, reused.body.details.code]).toEqual([403, "invalid_totp_code"]);
    const far = await turnOff(user.access, { code: codeAt(e.secret, now + 2 * STEP) });
    expect(far.status).toBe(403);
    expect((await factorStatus(user.access)).body.totp.state).toBe("on");
    expect((await turnOff(user.access, { code: codeAt(e.secret, now + STEP) })).status).toBe(200);
  });

  it("a pending enrolment is dropped the same way, without a mail; with no factor: 404 totp_not_enabled", async () => {
    const user = await signup();
    const none = await turnOff(user.access, { password: PASSWORD });
    expect([none.status, none.body.error, none.body.details.code]).toEqual([404, "Not Found", "totp_not_enabled"]);
    await enrol(user.access);
    expect((await turnOff(user.access, { password: PASSWORD })).status).toBe(200);
    expect((await factorStatus(user.access)).body.totp.state).toBe("off");
    expect((await mailsTo(user.email)).map((m) => m.subject)).toEqual(["Verify your e-mail address"]);
  });

  it("either a code or the password: both, neither or unknown fields are 400", async () => {
    const user = await signup();
    await enrol(user.access);
    for (const body of [{}, { code: "123456", password: PASSWORD }, { password: "" }, { code: "12" }, { token: "x" }]) {
      const r = await turnOff(user.access, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details.code).toBe("validation_error");
    }
    expect((await factorStatus(user.access)).body.totp.state).toBe("pending");
  });
});

describe("who may call the TOTP routes", () => {
  const routes = (code: string) => [
    { path: "/auth/2fa", method: "GET" },
    { path: "/auth/2fa/totp", method: "POST" },
    { path: "/auth/2fa/totp/confirm", method: "POST", body: { code } },
    { path: "/auth/2fa/totp", method: "DELETE", body: { password: PASSWORD } },
  ];

  it("anonymous: 401; API keys whatever their permissions: 403; revoked or expired keys: 401; nothing changes", async () => {
    atNextStep();
    const user = await verifiedUser();
    const { secret } = await enableTotp(user);
    const full = await createKey(user, { permissions: ["read", "upload", "manage"] });
    const readOnly = await createKey(user, { permissions: ["read"] });
    const revoked = await createKey(user);
    expect((await call(`/keys/${revoked.id}`, { method: "DELETE", token: user.access })).status).toBe(200);
    const expired = await createKey(user);
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, expired.id).run();
    for (const route of routes(codeAt(secret, Date.now()))) {
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
    expect((await factorStatus(user.access)).body).toMatchObject({ totp: { state: "on" }, recoveryCodesRemaining: 10 });
  });

  it("each account sees and changes only its own factor", async () => {
    const now = atNextStep();
    const a = await signup();
    const b = await signup();
    const { secret } = await enableTotp(a);
    expect((await factorStatus(b.access)).body.totp.state).toBe("off");
    // B holds A's current code and password: neither reaches A's factor.
    expect((await turnOff(b.access, { code: codeAt(secret, now) })).status).toBe(404);
    expect((await confirm(b.access, codeAt(secret, now))).status).toBe(409);
    await enrol(b.access);
    expect((await confirm(b.access, codeAt(secret, now))).status).toBe(403);
    expect((await factorStatus(a.access)).body.totp.state).toBe("on");
    // The verification mail and A's own turning on; nothing B did.
    expect((await mailsTo(a.email)).map((m) => m.subject).sort()).toEqual(["Two-factor sign-in was turned on", "Verify your e-mail address"]);
  });
});
