import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { PASSWORD, call, createKey, isErrorBody, signup, uniqueEmail, uniqueUsername, verifiedUser } from "../support/api";
import { createDb } from "../../src/platform/data/db";
import { users } from "../../src/db/schema";
import { hashPassword } from "../../src/platform/crypto/passwords";
import { newId } from "../../src/platform/data/ids";
import { LOGIN_LIMITS } from "../../src/config/auth";
import { startOfNextWindow } from "../support/clock";

let ipCounter = 0;
/** A fresh client IP per test, so the per-IP login limit of one test does not leak into another. */
const freshIp = () => `198.51.100.${++ipCounter}`;

const login = (email: string, password: string, ip = freshIp()) => call("/auth/login", { body: { email, password }, ip });

describe("POST /auth/login", () => {
  it("answers exactly as signup: { user, session }", async () => {
    const user = await signup({ firstName: "Grace" });
    const res = await login(user.email, PASSWORD);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["session", "user"]);
    expect(res.body.user).toEqual({ id: user.id, email: user.email, username: expect.any(String), role: "user", plan: "free", ageConfirmed: true });
    expect(res.body.session).toMatchObject({ expires_in: 900, token_type: "Bearer" });
    expect(res.body.session.access_token.split(".")).toHaveLength(3);
    expect(res.body.session.refresh_token).not.toBe(user.refresh);
    expect((await call("/account", { token: res.body.session.access_token })).status).toBe(200);
  });

  it("the e-mail is matched case-insensitively", async () => {
    const user = await signup();
    expect((await login(user.email.toUpperCase(), PASSWORD)).status).toBe(200);
  });

  it("unknown e-mail and wrong password give the same 401 body", async () => {
    const user = await signup();
    const wrong = await login(user.email, "wrong password!");
    const unknown = await login(uniqueEmail("ghost"), "wrong password!");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ error: "Unauthorized", message: "Invalid e-mail or password", details: { code: "invalid_credentials" } });
  });

  it("validation: bad e-mail, empty password, unknown field -> 400", async () => {
    for (const body of [
      { email: "nope", password: PASSWORD },
      { email: "a@example.com", password: "" },
      { email: "a@example.com" },
      { email: "a@example.com", password: PASSWORD, remember: true },
      { email: "a@example.com", password: "x".repeat(257) },
    ]) {
      const res = await call("/auth/login", { body, ip: freshIp() });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
      expect(res.body.details.fields.length).toBeGreaterThan(0);
    }
  });

  it("malformed JSON 400, wrong content type 415, oversized 413", async () => {
    const malformed = await call("/auth/login", { raw: "{", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details.code).toBe("malformed_json");
    const text = await call("/auth/login", { raw: JSON.stringify({ email: "a@example.com", password: PASSWORD }), headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
    const big = await call("/auth/login", { body: { email: "a@example.com", password: "x".repeat(100 * 1024) } });
    expect(big.status).toBe(413);
  });

  it("an API key in Authorization -> 403", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    const res = await call("/auth/login", { token: key, body: { email: user.email, password: PASSWORD } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "Forbidden" });
    expect(res.body.message).toContain("API keys can only access");
  });

  describe("brute-force limits", () => {
    // Each test runs inside one 15-minute window, so no boundary resets a count halfway.
    let restoreClock: () => void;
    beforeEach(() => {
      restoreClock = startOfNextWindow(LOGIN_LIMITS.windowSeconds);
    });
    afterEach(() => restoreClock());

    it("10 failures for an address from one IP in 15 minutes, then 429 there (even with the right password), not elsewhere", async () => {
      const user = await signup();
      const ip = freshIp();
      for (let i = 0; i < 10; i++) {
        const res = await login(user.email, `wrong-${i}-password`, ip);
        expect(res.status, `attempt ${i + 1}`).toBe(401);
      }
      const refused = await login(user.email, "wrong again password", ip);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
      expect(typeof refused.body.retryAfter).toBe("number");
      expect(refused.body.retryAfter).toBeGreaterThan(0);
      expect(refused.body.retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(refused.body.retryAfter).toBeGreaterThan(15 * 60 - 60); // the window began a moment ago
      expect(refused.headers.get("retry-after")).toBe(String(refused.body.retryAfter));

      // The right password does not get through either: the limit is checked before the password.
      const right = await login(user.email, PASSWORD, ip);
      expect(right.status).toBe(429);
      // The owner at another IP is not stopped (the address's own ceiling is far higher: test/auth/address-lockout.test.ts).
      expect((await login(user.email, PASSWORD, freshIp())).status).toBe(200);
      // Another account is unaffected.
      const other = await signup();
      expect((await login(other.email, PASSWORD)).status).toBe(200);
    });

    it("a success clears the address's failure count from that IP", async () => {
      const user = await signup();
      const ip = freshIp();
      for (let i = 0; i < 9; i++) expect((await login(user.email, "wrong password", ip)).status).toBe(401);
      expect((await login(user.email, PASSWORD, ip)).status).toBe(200);
      // The count starts again: 10 more failures are answered 401, the 11th is refused.
      for (let i = 0; i < 10; i++) expect((await login(user.email, "wrong password", ip)).status, `after reset ${i + 1}`).toBe(401);
      expect((await login(user.email, "wrong password", ip)).status).toBe(429);
    });

    it("50 failures per IP in 15 minutes, then 429 for any account from that IP", async () => {
      const ip = freshIp();
      // Unknown e-mails, each different, so only the IP counter can trip.
      const attempts = Array.from({ length: 50 }, (_, i) => `ghost-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`);
      // In bursts of 10, to keep the test quick; the limiter counts them one at a time anyway.
      for (let i = 0; i < attempts.length; i += 10) {
        const burst = await Promise.all(attempts.slice(i, i + 10).map((email) => login(email, "wrong password", ip)));
        for (const res of burst) expect(res.status).toBe(401);
      }
      const user = await signup();
      const refused = await login(user.email, PASSWORD, ip);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
      expect(Number(refused.headers.get("retry-after"))).toBe(refused.body.retryAfter);
      // The same account from another IP still signs in.
      expect((await login(user.email, PASSWORD, freshIp())).status).toBe(200);
    });

    it("parallel bursts cannot slip past the (address, IP) limit", async () => {
      const user = await signup();
      const ip = freshIp();
      const results = await Promise.all(Array.from({ length: 15 }, () => login(user.email, "wrong password", ip)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    });
  });

  it("upgrades an old password hash at login", async () => {
    const db = createDb(env.DB);
    const email = uniqueEmail("legacy");
    const password = "legacy password 123";
    const id = newId("usr");
    const now = new Date();
    await db.insert(users).values({
      id,
      email,
      username: uniqueUsername(),
      passwordHash: await hashPassword(password, 1000),
      createdAt: now,
      updatedAt: now,
    });
    const before = (await db.select().from(users).where(eq(users.id, id)).get())!.passwordHash;
    expect(before).toMatch(/^pbkdf2-sha256\$i=1000\$/);

    const res = await login(email, password);
    expect(res.status).toBe(200);
    const after = (await db.select().from(users).where(eq(users.id, id)).get())!.passwordHash;
    expect(after).toMatch(/^pbkdf2-sha256\$i=100000\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(after).not.toBe(before);
    // The upgraded hash still accepts the password (and is not upgraded again).
    expect((await login(email, password)).status).toBe(200);
    expect((await db.select().from(users).where(eq(users.id, id)).get())!.passwordHash).toBe(after);
  });

  it("a wrong password does not upgrade the hash", async () => {
    const db = createDb(env.DB);
    const email = uniqueEmail("legacy2");
    const id = newId("usr");
    const now = new Date();
    const hash = await hashPassword("legacy password 456", 1000);
    await db.insert(users).values({ id, email, username: uniqueUsername(), passwordHash: hash, createdAt: now, updatedAt: now });
    expect((await login(email, "not the password")).status).toBe(401);
    expect((await db.select().from(users).where(eq(users.id, id)).get())!.passwordHash).toBe(hash);
  });

  it("a banned account cannot sign in; a deleted one reads as unknown", async () => {
    const db = createDb(env.DB);
    const banned = await signup();
    await db.update(users).set({ bannedAt: new Date() }).where(eq(users.id, banned.id));
    const b = await login(banned.email, PASSWORD);
    expect(b.status).toBe(403);
    expect(isErrorBody(b.body)).toBe(true);

    const deleted = await signup();
    await db.update(users).set({ deletedAt: new Date() }).where(eq(users.id, deleted.id));
    const d = await login(deleted.email, PASSWORD);
    expect(d.status).toBe(401);
    expect(d.body.details.code).toBe("invalid_credentials");
  });
});
