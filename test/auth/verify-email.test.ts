import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, onTestFinished } from "vitest";
import { eq } from "drizzle-orm";
import { BASE, PASSWORD, call, createKey, latestToken, signup, uniqueUsername, verifiedUser } from "../support/api";
import { createApp } from "../../src/app";
import { createDb } from "../../src/platform/data/db";
import { emailTokens, users } from "../../src/db/schema";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { MAIL_REQUESTS } from "../../src/config/auth";
import { startOfNextWindow } from "../support/clock";

const outbox = (to: string) => call(`/dev/outbox?to=${encodeURIComponent(to)}`);
const verify = (token: string) => call("/auth/verify-email", { body: { token } });
const tokensIn = (messages: { text: string }[]) => messages.map((m) => /verification token: (\S+)/.exec(m.text)?.[1]);

describe("e-mail verification", () => {
  it("signup sends a message to the outbox, readable at /dev/outbox", async () => {
    const user = await signup();
    const res = await outbox(user.email);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["messages"]);
    expect(res.body.messages).toHaveLength(1);
    const [m] = res.body.messages;
    expect(Object.keys(m).sort()).toEqual(["attempts", "createdAt", "messageId", "status", "subject", "text", "to"]);
    expect(["pending", "sent"]).toContain(m.status); // the queue delivers it within about a second
    expect(m.to).toBe(user.email);
    expect(m.subject).toMatch(/verify/i);
    expect(new Date(m.createdAt).toISOString()).toBe(m.createdAt);
    expect(m.text).toMatch(/verification token: \S+/);
    expect(m.text).toContain(`${env.SITE_URL}/verify-email?token=`);
    // Only that address's mail, and the address is matched case-insensitively.
    expect((await outbox(user.email.toUpperCase())).body.messages).toHaveLength(1);
    expect((await outbox("nobody-at-all@example.com")).body.messages).toEqual([]);
  });

  it("only a hash of the verification token is stored", async () => {
    const user = await signup();
    const token = await latestToken(user.email);
    const rows = await createDb(env.DB).select().from(emailTokens).where(eq(emailTokens.userId, user.id));
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toBe(await sha256Hex(token));
  });

  it("verify-email marks the address verified", async () => {
    const user = await signup();
    const res = await verify(await latestToken(user.email));
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/verified/i);
    expect(res.body.user).toMatchObject({ id: user.id, email: user.email, emailVerified: true, role: "user" });
    const me = await call("/account", { token: user.access });
    expect(me.body.user.emailVerified).toBe(true);
  });

  it("a used token and a garbage token give 400", async () => {
    const user = await signup();
    const token = await latestToken(user.email);
    expect((await verify(token)).status).toBe(200);
    const reused = await verify(token);
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ error: "Bad Request", details: { code: "invalid_token" } });
    const garbage = await verify("garbage-token");
    expect(garbage.status).toBe(400);
    expect(garbage.body.details.code).toBe("invalid_token");
    expect((await verify("")).status).toBe(400);
    expect((await call("/auth/verify-email", { body: { token: "x", extra: 1 } })).status).toBe(400);
  });

  it("an expired token gives 400", async () => {
    const user = await signup();
    const token = await latestToken(user.email);
    await createDb(env.DB).update(emailTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(emailTokens.tokenHash, await sha256Hex(token)));
    expect((await verify(token)).status).toBe(400);
  });

  it("concurrent use of one token: exactly one succeeds", async () => {
    const user = await signup();
    const token = await latestToken(user.email);
    const results = await Promise.all([verify(token), verify(token), verify(token)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it("an API key on verify-email -> 403", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    const res = await call("/auth/verify-email", { token: key, body: { token: "whatever" } });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain("API keys can only access");
  });

  it("an address in ADMIN_EMAILS becomes admin on verification (not before)", async () => {
    // vitest.config.ts sets ADMIN_EMAILS=root@example.com; the address is matched case-insensitively.
    const root = await signup({ email: "Root@Example.com", username: uniqueUsername("root") });
    const before = await call("/account", { token: root.access });
    expect(before.body.user.role).toBe("user");
    const res = await verify(await latestToken("root@example.com"));
    expect(res.status).toBe(200);
    expect(res.body.user.role).toBe("admin");
    const login = await call("/auth/login", { body: { email: "root@example.com", password: PASSWORD } });
    expect(login.body.user.role).toBe("admin");
  });

  it("ordinary addresses stay users", async () => {
    const user = await verifiedUser();
    const row = await createDb(env.DB).select().from(users).where(eq(users.id, user.id)).get();
    expect(row?.role).toBe("user");
    expect(row?.emailVerifiedAt).toBeInstanceOf(Date);
  });

  describe("POST /auth/resend-verification", () => {
    it("sends a new message (newest first) and both tokens work until one is used", async () => {
      const user = await signup();
      const res = await call("/auth/resend-verification", { method: "POST", token: user.access });
      expect(res.status).toBe(200);
      expect(res.body.message).toMatch(/sent/i);
      const { messages } = (await outbox(user.email)).body;
      expect(messages).toHaveLength(2);
      expect(Date.parse(messages[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(messages[1].createdAt));
      const [newest, oldest] = tokensIn(messages);
      expect(newest).not.toBe(oldest);
      expect(await latestToken(user.email)).toBe(newest);
      expect((await verify(newest!)).status).toBe(200);
    });

    it("400 when the address is already verified", async () => {
      const user = await verifiedUser();
      const res = await call("/auth/resend-verification", { method: "POST", token: user.access });
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("already_verified");
    });

    it("429 after 5 per hour", async () => {
      const restoreClock = startOfNextWindow(MAIL_REQUESTS.windowSeconds);
      onTestFinished(restoreClock);
      const user = await signup();
      for (let i = 0; i < 5; i++) {
        expect((await call("/auth/resend-verification", { method: "POST", token: user.access })).status, `resend ${i + 1}`).toBe(200);
      }
      const refused = await call("/auth/resend-verification", { method: "POST", token: user.access });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
      expect(refused.body.retryAfter).toBeGreaterThan(0);
      expect(refused.headers.get("retry-after")).toBe(String(refused.body.retryAfter));
      // 1 signup mail + 5 resends, nothing more.
      expect((await outbox(user.email)).body.messages).toHaveLength(6);
    });

    it("session only: API key 403, anonymous 401", async () => {
      const user = await verifiedUser();
      const { key } = await createKey(user);
      const withKey = await call("/auth/resend-verification", { method: "POST", token: key });
      expect(withKey.status).toBe(403);
      expect(withKey.body.message).toContain("API keys can only access");
      expect((await call("/auth/resend-verification", { method: "POST" })).status).toBe(401);
    });
  });

  describe("dev outbox guard", () => {
    it("is 404 when ENVIRONMENT is production", async () => {
      const user = await signup();
      const app = createApp();
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${BASE}/dev/outbox?to=${encodeURIComponent(user.email)}`),
        { ...env, ENVIRONMENT: "production" },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(404);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ error: "Not Found", details: { code: "not_found" } });
      expect(JSON.stringify(body)).not.toContain("verification token");
    });

    it("answers for development and test", async () => {
      for (const ENVIRONMENT of ["development", "test"]) {
        const ctx = createExecutionContext();
        const res = await createApp().fetch(new Request(`${BASE}/dev/outbox?to=a@example.com`), { ...env, ENVIRONMENT }, ctx);
        await waitOnExecutionContext(ctx);
        expect(res.status).toBe(200);
      }
    });

    it("is 404 on any host but this machine's, even in development (a deploy that kept the default var)", async () => {
      for (const host of ["https://images.example.com", "http://10.0.0.5:8787", "http://localhost.example.com:8787"]) {
        const ctx = createExecutionContext();
        const url = `${host}/api/v1/dev/outbox?to=a@example.com`;
        const res = await createApp().fetch(new Request(url), { ...env, ENVIRONMENT: "development" }, ctx);
        await waitOnExecutionContext(ctx);
        expect([host, res.status]).toEqual([host, 404]);
      }
      for (const host of ["http://127.0.0.1:8801", "http://[::1]:8787"]) {
        const ctx = createExecutionContext();
        const res = await createApp().fetch(new Request(`${host}/api/v1/dev/outbox?to=a@example.com`), { ...env, ENVIRONMENT: "development" }, ctx);
        await waitOnExecutionContext(ctx);
        expect([host, res.status]).toEqual([host, 200]);
      }
    });

    it("is not listed in the OpenAPI document", async () => {
      const doc = (await call("/openapi.json")).body;
      expect(Object.keys(doc.paths).some((p) => p.startsWith("/dev"))).toBe(false);
    });

    it("requires ?to=", async () => {
      expect((await call("/dev/outbox")).status).toBe(400);
    });
  });
});
