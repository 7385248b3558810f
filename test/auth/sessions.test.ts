// Refresh-token rotation, reuse detection and logout.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { PASSWORD, call, createKey, signup, verifiedUser } from "../support/api";
import { createDb } from "../../src/platform/data/db";
import { refreshTokens, sessions } from "../../src/db/schema";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { claimsOf } from "../support/tokens";

const refresh = (token: string) => call("/auth/refresh", { body: { refresh_token: token } });

describe("POST /auth/refresh", () => {
  it("rotates: a new session, and the old refresh token then fails", async () => {
    const user = await signup();
    const first = await refresh(user.refresh);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(["session"]);
    expect(first.body.session).toMatchObject({ expires_in: 900, token_type: "Bearer" });
    expect(first.body.session.refresh_token).not.toBe(user.refresh);
    expect(first.body.session.access_token).not.toBe(user.access);
    // Same session (family), same user.
    expect(claimsOf(first.body.session.access_token)).toMatchObject({ sub: user.id, sid: claimsOf(user.access).sid, typ: "access" });
    expect((await call("/account", { token: first.body.session.access_token })).status).toBe(200);

    // The new refresh token rotates again.
    const second = await refresh(first.body.session.refresh_token);
    expect(second.status).toBe(200);
  });

  it("only a hash of the refresh token is stored", async () => {
    const user = await signup();
    const db = createDb(env.DB);
    const rows = await db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, claimsOf(user.access).sid as string));
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toBe(await sha256Hex(user.refresh));
    expect(JSON.stringify(rows)).not.toContain(user.refresh);
  });

  it("reusing a retired token revokes the whole family", async () => {
    const user = await signup();
    const rotated = await refresh(user.refresh);
    expect(rotated.status).toBe(200);
    const newest = rotated.body.session;

    const reuse = await refresh(user.refresh);
    expect(reuse.status).toBe(401);
    expect(reuse.body).toMatchObject({ error: "Unauthorized", details: { code: "refresh_token_reused" } });

    // Everything of that session is dead now: the newest refresh token and every access token.
    expect((await refresh(newest.refresh_token)).status).toBe(401);
    expect((await call("/account", { token: newest.access_token })).status).toBe(401);
    expect((await call("/account", { token: user.access })).status).toBe(401);

    const db = createDb(env.DB);
    const session = await db.select().from(sessions).where(eq(sessions.id, claimsOf(user.access).sid as string)).get();
    expect(session?.revokedAt).toBeInstanceOf(Date);
    expect(session?.revokedReason).toBe("refresh_token_reuse");
  });

  it("revoking one family leaves the user's other sessions alone", async () => {
    const user = await signup();
    const other = await call("/auth/login", { body: { email: user.email, password: PASSWORD } });
    expect(other.status).toBe(200);
    await refresh(user.refresh);
    expect((await refresh(user.refresh)).status).toBe(401); // reuse: family 1 revoked
    expect((await call("/account", { token: other.body.session.access_token })).status).toBe(200);
    expect((await refresh(other.body.session.refresh_token)).status).toBe(200);
  });

  it("two concurrent refreshes with one token: exactly one succeeds", async () => {
    const user = await signup();
    const results = await Promise.all([refresh(user.refresh), refresh(user.refresh)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    // The loser counts as reuse, so the family is revoked (decisions.md: reuse revokes the family).
    const winner = results.find((r) => r.status === 200)!;
    expect((await refresh(winner.body.session.refresh_token)).status).toBe(401);
  });

  it("many concurrent refreshes with one token: at most one succeeds", async () => {
    const user = await signup();
    const results = await Promise.all(Array.from({ length: 6 }, () => refresh(user.refresh)));
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    expect(results.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(5);
  });

  it("garbage, empty and access tokens are refused", async () => {
    for (const token of ["garbage", "x".repeat(43), (await signup()).access]) {
      const res = await refresh(token);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: "Unauthorized", details: { code: "invalid_refresh_token" } });
    }
    expect((await refresh("")).status).toBe(400);
    expect((await call("/auth/refresh", { body: { refresh_token: "a".repeat(600) } })).status).toBe(400);
    expect((await call("/auth/refresh", { body: { refresh_token: 5 } })).status).toBe(400);
    expect((await call("/auth/refresh", { body: { refreshToken: "x" } })).status).toBe(400);
  });

  it("an expired refresh token is refused", async () => {
    const user = await signup();
    const db = createDb(env.DB);
    await db.update(refreshTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(refreshTokens.tokenHash, await sha256Hex(user.refresh)));
    const res = await refresh(user.refresh);
    expect(res.status).toBe(401);
    expect(res.body.details.code).toBe("refresh_token_expired");
  });

  it("an API key in Authorization -> 403", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    const res = await call("/auth/refresh", { token: key, body: { refresh_token: user.refresh } });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain("API keys can only access");
  });
});

describe("POST /auth/logout", () => {
  it("ends the session: its access and refresh tokens give 401", async () => {
    const user = await signup();
    const res = await call("/auth/logout", { method: "POST", token: user.access });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Signed out" });

    const after = await call("/account", { token: user.access });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("Unauthorized");
    expect((await refresh(user.refresh)).status).toBe(401);
    // Logging out twice: the token is already dead.
    expect((await call("/auth/logout", { method: "POST", token: user.access })).status).toBe(401);
  });

  it("access tokens issued by refresh die with the session too", async () => {
    const user = await signup();
    const rotated = (await refresh(user.refresh)).body.session;
    expect((await call("/auth/logout", { method: "POST", token: user.access })).status).toBe(200);
    expect((await call("/account", { token: rotated.access_token })).status).toBe(401);
    expect((await refresh(rotated.refresh_token)).status).toBe(401);
  });

  it("only the caller's session ends", async () => {
    const user = await signup();
    const second = await call("/auth/login", { body: { email: user.email, password: PASSWORD } });
    await call("/auth/logout", { method: "POST", token: user.access });
    expect((await call("/account", { token: second.body.session.access_token })).status).toBe(200);
  });

  it("API key -> 403; anonymous -> 401", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    const withKey = await call("/auth/logout", { method: "POST", token: key });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error).toBe("Forbidden");
    expect(withKey.body.message).toContain("API keys can only access");
    // The key did not end the user's session.
    expect((await call("/account", { token: user.access })).status).toBe(200);

    const anonymous = await call("/auth/logout", { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe("Unauthorized");
  });
});
