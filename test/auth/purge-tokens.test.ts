// The cron task that deletes dead refresh, e-mail and second-step tokens and passkey challenges, driven with an
// explicit `now`.
import { env } from "cloudflare:workers";
import { createScheduledController, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eq, inArray } from "drizzle-orm";
import { call, signup } from "../support/api";
import { directoryDb } from "../../src/platform/data/db";
import { emailTokens, mfaTokens, passkeyChallenges, refreshTokens, sessions } from "../../src/db/schema";
import { purgeDeadTokens, runScheduled } from "../../src/jobs/scheduled";
import { claimsOf } from "../support/tokens";
import worker from "../../src/index";

const DAY = 24 * 3600 * 1000;
const db = () => directoryDb(env);

async function seed(now: number) {
  const user = await signup();
  const sessionId = claimsOf(user.access).sid as string;
  const t = (ms: number) => new Date(now + ms);
  const refresh = [
    { tokenHash: `live-${crypto.randomUUID()}`, sessionId, createdAt: t(-DAY), expiresAt: t(DAY), usedAt: null }, // kept
    { tokenHash: `expired-${crypto.randomUUID()}`, sessionId, createdAt: t(-2 * DAY), expiresAt: t(-1), usedAt: null }, // purged
    { tokenHash: `used-recently-${crypto.randomUUID()}`, sessionId, createdAt: t(-DAY), expiresAt: t(DAY), usedAt: t(-3600_000) }, // kept (reuse detection)
    { tokenHash: `used-long-ago-${crypto.randomUUID()}`, sessionId, createdAt: t(-3 * DAY), expiresAt: t(DAY), usedAt: t(-DAY - 1) }, // purged
  ];
  const email = [
    { tokenHash: `e-live-${crypto.randomUUID()}`, userId: user.id, purpose: "verify_email" as const, createdAt: t(-1000), expiresAt: t(DAY), usedAt: null }, // kept
    { tokenHash: `e-expired-${crypto.randomUUID()}`, userId: user.id, purpose: "verify_email" as const, createdAt: t(-3 * DAY), expiresAt: t(-1), usedAt: null }, // purged
    { tokenHash: `e-used-${crypto.randomUUID()}`, userId: user.id, purpose: "verify_email" as const, createdAt: t(-1000), expiresAt: t(DAY), usedAt: t(-10) }, // purged
  ];
  await db().batch([db().insert(refreshTokens).values(refresh), db().insert(emailTokens).values(email)]);
  return { user, sessionId, refresh: refresh.map((r) => r.tokenHash), email: email.map((r) => r.tokenHash) };
}

const refreshLeft = (hashes: string[]) =>
  db().select({ h: refreshTokens.tokenHash }).from(refreshTokens).where(inArray(refreshTokens.tokenHash, hashes)).then((r) => r.map((x) => x.h).sort());
const emailLeft = (hashes: string[]) =>
  db().select({ h: emailTokens.tokenHash }).from(emailTokens).where(inArray(emailTokens.tokenHash, hashes)).then((r) => r.map((x) => x.h).sort());

describe("purgeDeadTokens", () => {
  it("deletes expired tokens, used e-mail tokens and refresh tokens used more than a day ago", async () => {
    const now = Date.now() + 1000; // a moment after everything was written
    const s = await seed(now);
    const result = await purgeDeadTokens(db(), now);
    expect(result.refresh).toBeGreaterThanOrEqual(2);
    expect(result.email).toBeGreaterThanOrEqual(2);
    expect(await refreshLeft(s.refresh)).toEqual([s.refresh[0], s.refresh[2]].sort());
    expect(await emailLeft(s.email)).toEqual([s.email[0]]);
    // The session's own live refresh token (from signup) is kept; the session row is untouched.
    expect(await db().select().from(sessions).where(eq(sessions.id, s.sessionId)).get()).toBeDefined();
    // Running again finds nothing more to do among these rows.
    await purgeDeadTokens(db(), now);
    expect(await refreshLeft(s.refresh)).toEqual([s.refresh[0], s.refresh[2]].sort());
  });

  it("a later `now` purges what has since died", async () => {
    const now = Date.now() + 1000;
    const s = await seed(now);
    await purgeDeadTokens(db(), now + 2 * DAY);
    // live refresh expired at now+DAY; used-recently was used more than a day before now+2d; live e-mail expired.
    expect(await refreshLeft(s.refresh)).toEqual([]);
    expect(await emailLeft(s.email)).toEqual([]);
  });

  it("a recently used refresh token survives, so its reuse still revokes the family", async () => {
    const user = await signup();
    expect((await call("/auth/refresh", { body: { refresh_token: user.refresh } })).status).toBe(200);
    await purgeDeadTokens(db(), Date.now() + 3600_000);
    const reuse = await call("/auth/refresh", { body: { refresh_token: user.refresh } });
    expect(reuse.status).toBe(401);
    expect(reuse.body.details.code).toBe("refresh_token_reused");
  });

  it("deletes second-step mfaTokens once expired or used (they are never looked at again)", async () => {
    const now = Date.now() + 1000;
    const user = await signup();
    const t = (ms: number) => new Date(now + ms);
    const rows = [
      { tokenHash: `m-live-${crypto.randomUUID()}`, userId: user.id, createdAt: t(-1000), expiresAt: t(299_000), usedAt: null }, // kept
      { tokenHash: `m-expired-${crypto.randomUUID()}`, userId: user.id, createdAt: t(-301_000), expiresAt: t(-1), usedAt: null }, // purged
      { tokenHash: `m-used-${crypto.randomUUID()}`, userId: user.id, createdAt: t(-1000), expiresAt: t(299_000), usedAt: t(-10) }, // purged
    ];
    await db().insert(mfaTokens).values(rows);
    const result = await purgeDeadTokens(db(), now);
    expect(result.mfa).toBeGreaterThanOrEqual(2);
    const left = await db().select({ h: mfaTokens.tokenHash }).from(mfaTokens).where(inArray(mfaTokens.tokenHash, rows.map((r) => r.tokenHash)));
    expect(left.map((r) => r.h)).toEqual([rows[0].tokenHash]);
  });

  it("deletes expired passkey challenges (a claimed one is deleted when claimed)", async () => {
    const now = Date.now() + 1000;
    const user = await signup();
    const t = (ms: number) => new Date(now + ms);
    const rows = [
      { challengeHash: `c-live-${crypto.randomUUID()}`, purpose: "register" as const, userId: user.id, createdAt: t(-1000), expiresAt: t(299_000) }, // kept
      { challengeHash: `c-expired-${crypto.randomUUID()}`, purpose: "login" as const, userId: null, createdAt: t(-301_000), expiresAt: t(-1) }, // purged
    ];
    await db().insert(passkeyChallenges).values(rows);
    const result = await purgeDeadTokens(db(), now);
    expect(result.passkeyChallenges).toBeGreaterThanOrEqual(1);
    const left = await db().select({ h: passkeyChallenges.challengeHash }).from(passkeyChallenges).where(inArray(passkeyChallenges.challengeHash, rows.map((r) => r.challengeHash)));
    expect(left.map((r) => r.h)).toEqual([rows[0].challengeHash]);
  });

  it("is registered as a scheduled task and runs from the cron handler", async () => {
    const now = Date.now() + 1000;
    const s = await seed(now);
    const results = await runScheduled(env, now);
    expect(results.purgeDeadTokens).toMatchObject({ refresh: expect.any(Number), email: expect.any(Number), mfa: expect.any(Number) });
    expect(await emailLeft(s.email)).toEqual([s.email[0]]);

    const s2 = await seed(Date.now() + 1000);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + 2 * DAY, cron: "*/10 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await emailLeft(s2.email)).toEqual([]);
  });
});
