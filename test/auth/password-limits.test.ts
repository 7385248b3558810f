// Rate limits of the password recovery routes (extensions.md §7): per address and per IP, in their own hourly
// buckets, answered with the contract's 429 and X-RateLimit-* headers; the same for unknown addresses.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PASSWORD, signup, uniqueEmail } from "../support/api";
import { forgotPassword, freshIp, loginWith, requestReset, resetMails, resetPassword } from "../support/password";
import { startOfNextWindow } from "../support/clock";
import { createDb } from "../../src/platform/data/db";
import { emailTokens } from "../../src/db/schema";
import { randomToken, sha256Hex } from "../../src/platform/crypto/crypto";
import { PASSWORD_RESET } from "../../src/config/auth";
import type { Reply } from "../support/api";

function expectRefused(r: Reply, limit: number) {
  expect(r.status).toBe(429);
  expect(r.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
  expect(r.body.retryAfter).toBeGreaterThan(PASSWORD_RESET.windowSeconds - 60); // the window began a moment ago
  expect(r.headers.get("retry-after")).toBe(String(r.body.retryAfter));
  expect(r.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
  const reset = Number(r.headers.get("x-ratelimit-reset"));
  expect(Math.abs(reset - (Math.floor(Date.now() / 1000) + r.body.retryAfter))).toBeLessThanOrEqual(1);
}

/** A reset token for the account, written as the forgot route writes one (forgot itself allows only a few). */
async function seedResetToken(userId: string): Promise<string> {
  const token = randomToken();
  const now = Date.now();
  await createDb(env.DB).insert(emailTokens).values({ tokenHash: await sha256Hex(token), userId, purpose: "reset_password", createdAt: new Date(now), expiresAt: new Date(now + 3600_000) });
  return token;
}

describe("password recovery limits", () => {
  let restoreClock: () => void;
  beforeEach(() => {
    restoreClock = startOfNextWindow(PASSWORD_RESET.windowSeconds);
  });
  afterEach(() => restoreClock());

  it("every answer carries the X-RateLimit-* headers", async () => {
    const user = await signup();
    for (const r of [await forgotPassword(user.email), await resetPassword("garbage", "long enough password")]) {
      for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) expect(r.headers.get(h), h).toMatch(/^\d+$/);
    }
  });

  it("forgot: 5 per address per hour, from any IP, known or not; then 429 and no more mail", async () => {
    const user = await signup();
    const ghost = uniqueEmail("ghost");
    for (const email of [user.email, ghost]) {
      for (let i = 0; i < PASSWORD_RESET.perAccount; i++) expect((await forgotPassword(email, freshIp())).status, `${email} ${i + 1}`).toBe(202);
      expectRefused(await forgotPassword(email, freshIp()), PASSWORD_RESET.perAccount);
      expectRefused(await forgotPassword(email.toUpperCase(), freshIp()), PASSWORD_RESET.perAccount);
    }
    expect(await resetMails(user.email, PASSWORD_RESET.perAccount)).toHaveLength(PASSWORD_RESET.perAccount);
    // Another address is not affected.
    expect((await forgotPassword(uniqueEmail(), freshIp())).status).toBe(202);
  });

  it("forgot: 20 per IP per hour, whatever the addresses; another IP is not affected", async () => {
    const ip = freshIp();
    for (let i = 0; i < PASSWORD_RESET.perIp; i++) expect((await forgotPassword(uniqueEmail(), ip)).status, `request ${i + 1}`).toBe(202);
    expectRefused(await forgotPassword(uniqueEmail(), ip), PASSWORD_RESET.perIp);
    expect((await forgotPassword(uniqueEmail(), freshIp())).status).toBe(202);
  });

  it("forgot: a parallel burst for one address gets no more than the limit", async () => {
    const email = uniqueEmail();
    const results = await Promise.all(Array.from({ length: 9 }, () => forgotPassword(email, freshIp())));
    expect(results.filter((r) => r.status === 202)).toHaveLength(PASSWORD_RESET.perAccount);
    expect(results.filter((r) => r.status === 429)).toHaveLength(9 - PASSWORD_RESET.perAccount);
  });

  it("reset: 20 per IP per hour, counted before the token is looked up (a good token then waits too)", async () => {
    const user = await signup();
    const token = await requestReset(user.email);
    const ip = freshIp();
    for (let i = 0; i < PASSWORD_RESET.perIp; i++) expect((await resetPassword(`guess-${i}`, "long enough password", ip)).status, `guess ${i + 1}`).toBe(400);
    expectRefused(await resetPassword(token, "long enough password", ip), PASSWORD_RESET.perIp);
    expect((await loginWith(user.email, PASSWORD)).status).toBe(200); // nothing changed
    expect((await resetPassword(token, "long enough password", freshIp())).status).toBe(200);
  });

  it("reset: 5 per account per hour, from any IP", async () => {
    const user = await signup();
    for (let i = 0; i < PASSWORD_RESET.perAccount; i++) {
      expect((await resetPassword(await seedResetToken(user.id), `password number ${i}`, freshIp())).status, `reset ${i + 1}`).toBe(200);
    }
    const token = await seedResetToken(user.id);
    expectRefused(await resetPassword(token, "one too many password", freshIp()), PASSWORD_RESET.perAccount);
    expect((await loginWith(user.email, `password number ${PASSWORD_RESET.perAccount - 1}`)).status).toBe(200);
  });
});
