// Password recovery (extensions.md §7). Forgot: every address gets the same 202 at the same moment, because the
// address is looked up only after the answer, by the queue's consumer; a live account then gets a single-use token
// by mail, stored as its SHA-256, valid 1 hour. Reset: the token, claimed atomically, sets the password through replacePassword
// (./password.ts), which also voids every other reset token of the account. Both are limited per address and IP.
import { and, eq, gt, isNull } from "drizzle-orm";
import { directoryDb, type DirectoryDb } from "../platform/data/db";
import { emailTokens, users } from "../db/schema";
import { randomToken, sha256Hex } from "../platform/crypto/crypto";
import { ApiError } from "../platform/errors/errors";
import { PASSWORD_RESET } from "../config/auth";
import { queueMail } from "../mail/outbox";
import { findLiveUserByEmail } from "./queries";
import { normalizeEmail } from "./service";
import { replacePassword } from "./password";
import { jobQueue, type JobHandler, type PasswordResetMessage } from "../platform/data/job-messages";
import { PASSWORD_FORGOT, PASSWORD_RESETS, clearPasswordCount, countAttempt } from "./login-guard";

const invalidResetToken = () => new ApiError("invalid_reset_token", "The reset link is invalid, used or expired");

/**
 * Counts the request (per address, known or not, and per IP) and queues the address, then answers. The lookup
 * and the mail run in the queue's consumer, another invocation: a waitUntil would start the lookup before the
 * answer and let a known address's work share its event loop, so every address takes this same path.
 */
export async function forgotPassword(env: Env, emailInput: string, ip: string): Promise<void> {
  const email = normalizeEmail(emailInput);
  await countAttempt(env, PASSWORD_FORGOT, { email, ip });
  await jobQueue(env).send({ type: "password_reset", email });
}

/** The consumer's half of forgot: read at D1's primary, so an account made a moment ago is found. */
export const passwordResetJob: JobHandler<PasswordResetMessage> = {
  run: (env, body) => mailResetLink(directoryDb(env), env, body.email),
};

async function mailResetLink(db: DirectoryDb, env: Env, email: string): Promise<void> {
  const user = await findLiveUserByEmail(db, email);
  if (!user) return;
  const token = randomToken();
  const now = Date.now();
  await db.insert(emailTokens).values({
    tokenHash: await sha256Hex(token),
    userId: user.id,
    purpose: "reset_password",
    createdAt: new Date(now),
    expiresAt: new Date(now + PASSWORD_RESET.tokenSeconds * 1000),
  });
  await queueMail(db, env, user.email, { kind: "password_reset", username: user.username, email: user.email, token });
}

/** Sets a new password with a mailed token; every session of the account ends. Answers no session. */
export async function resetPassword(db: DirectoryDb, env: Env, token: string, newPassword: string, ip: string): Promise<void> {
  await countAttempt(env, PASSWORD_RESETS, { ip });
  const tokenHash = await sha256Hex(token);
  const now = new Date();
  const live = and(eq(emailTokens.tokenHash, tokenHash), eq(emailTokens.purpose, "reset_password"), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now));
  const found = await db
    .select({ id: users.id, email: users.email, username: users.username })
    .from(emailTokens)
    .innerJoin(users, eq(users.id, emailTokens.userId))
    .where(and(live, isNull(users.deletedAt)))
    .get();
  if (!found) throw invalidResetToken();
  // Per account only now that the token names one; a refusal leaves the token unused.
  await countAttempt(env, PASSWORD_RESETS, { email: found.email });
  // Single use: of two requests with one token exactly one claims it.
  const claimed = await db.update(emailTokens).set({ usedAt: now }).where(live).run();
  if (claimed.meta.changes !== 1) throw invalidResetToken();
  // No session is answered, and the second factors are left as they are: a reset proves the mailbox, not the
  // authenticator, so the next login still asks for a code (extensions.md §5; test/auth/login-2fa.test.ts).
  await replacePassword(db, env, found, newPassword, "password_reset");
  // Whoever filled the address's count of wrong passwords, its owner now holds the new one.
  await clearPasswordCount(env, found.email, ip);
}
