// Password change (POST /auth/password, extensions.md §7) and the one way a password is replaced, which the reset
// (./password-reset.ts) shares: whatever the path, the new hash, every session and refresh family of the account
// revoked, every outstanding reset token and second-step mfaToken voided (one D1 batch), the sessions' edge records forgotten before the
// answer, and a mail to the account.
import { and, eq, isNull } from "drizzle-orm";
import { runBatch, type DirectoryDb } from "../platform/data/db";
import { emailTokens, mfaTokens, sessions, users, type UserRow } from "../db/schema";
import { hashPassword } from "../platform/crypto/passwords";
import { ApiError, unauthorized } from "../platform/errors/errors";
import { queueMail } from "../mail/outbox";
import { findUserById } from "./queries";
import { createSession, type SessionBody } from "./sessions";
import { forgetSessions } from "./principal-records";
import { reenteredPasswordOk } from "./login-guard";
import { whatRemains } from "./security-mail";

export type PasswordChangePath = "password_change" | "password_reset";

/** Sets the account's password and ends everything the old one opened (the sessions; API keys are not sessions). */
export async function replacePassword(db: DirectoryDb, env: Env, user: Pick<UserRow, "id" | "email" | "username">, newPassword: string, path: PasswordChangePath): Promise<void> {
  const now = new Date();
  const passwordHash = await hashPassword(newPassword);
  const [, revoked] = await runBatch<{ id: string }>(db, [
    db.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, user.id)),
    db
      .update(sessions)
      .set({ revokedAt: now, revokedReason: path })
      .where(and(eq(sessions.userId, user.id), isNull(sessions.revokedAt)))
      .returning({ id: sessions.id }),
    db
      .update(emailTokens)
      .set({ usedAt: now })
      .where(and(eq(emailTokens.userId, user.id), eq(emailTokens.purpose, "reset_password"), isNull(emailTokens.usedAt))),
    // An mfaToken proves the old password: it must not finish a sign-in once that password is gone.
    db.update(mfaTokens).set({ usedAt: now }).where(and(eq(mfaTokens.userId, user.id), isNull(mfaTokens.usedAt))),
  ]);
  // Their access tokens stop at once, also where a session's record is warm.
  await forgetSessions(env, revoked.results.map((r) => r.id));
  await queueMail(db, env, user.email, { kind: "password_changed", username: user.username, email: user.email, at: now, path, remains: await whatRemains(db, user.id) });
}

/**
 * The signed-in caller changes their password: the current one is checked like a login (same guard and limits),
 * then replaced; the caller's own session ends with the others and a fresh one is answered.
 */
export async function changePassword(db: DirectoryDb, env: Env, userId: string, currentPassword: string, newPassword: string, ip: string): Promise<SessionBody> {
  const user = await findUserById(db, userId);
  if (!user || user.deletedAt) throw unauthorized();
  if (!(await reenteredPasswordOk(env, user, currentPassword, ip))) throw new ApiError("invalid_password", "The current password is not correct");
  await replacePassword(db, env, user, newPassword, "password_change");
  return createSession(db, env, user.id);
}
