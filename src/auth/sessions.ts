// Sessions: a refresh-token family (sessions row) plus short-lived access JWTs that name it (`sid`).
// Refresh tokens are opaque, stored as SHA-256, single use; presenting a used one revokes the family.
import { and, eq, isNull, ne } from "drizzle-orm";
import { directoryDb, runBatch, type DirectoryDb } from "../platform/data/db";
import { refreshTokens, sessions, users } from "../db/schema";
import { newId } from "../platform/data/ids";
import { randomToken, sha256Hex } from "../platform/crypto/crypto";
import { signToken } from "../platform/crypto/jwt";
import { jwtConfig } from "../platform/http/env";
import { SESSION } from "../config/auth";
import { ApiError } from "../platform/errors/errors";
import { forgetSession, forgetSessions } from "./principal-records";
import type { ErrorCode } from "../platform/errors/error-codes";

export type SessionBody = { access_token: string; refresh_token: string; expires_in: number; token_type: "Bearer" };

type RefreshRefusal = Extract<ErrorCode, "invalid_refresh_token" | "session_revoked" | "refresh_token_reused" | "refresh_token_expired">;
const refreshRefused = (code: RefreshRefusal) => new ApiError(code, "Invalid or expired refresh token");

async function issue(env: Env, userId: string, sessionId: string) {
  const refresh = randomToken();
  const now = Date.now();
  const row = {
    tokenHash: await sha256Hex(refresh),
    sessionId,
    createdAt: new Date(now),
    expiresAt: new Date(now + SESSION.refreshTokenSeconds * 1000),
  };
  const access = await signToken(jwtConfig(env), { sub: userId, typ: "access", sid: sessionId }, SESSION.accessTokenSeconds);
  const body: SessionBody = { access_token: access, refresh_token: refresh, expires_in: SESSION.accessTokenSeconds, token_type: "Bearer" };
  return { row, body };
}

export async function createSession(db: DirectoryDb, env: Env, userId: string): Promise<SessionBody> {
  const sessionId = newId("ses");
  const now = Date.now();
  const { row, body } = await issue(env, userId, sessionId);
  await runBatch(db, [
    db.insert(sessions).values({ id: sessionId, userId, createdAt: new Date(now), expiresAt: new Date(now + SESSION.refreshTokenSeconds * 1000) }),
    db.insert(refreshTokens).values(row),
  ]);
  return body;
}

/**
 * For a batch: revokes every live session of the account but `keep` (the caller's), answering their ids, whose
 * edge records the caller then forgets (principal-records.ts forgetSessions).
 */
export const revokeOtherSessions = (db: DirectoryDb, userId: string, keep: string, reason: string, now = new Date()) =>
  db
    .update(sessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), ne(sessions.id, keep)))
    .returning({ id: sessions.id });

/**
 * "Sign out everywhere else": every other session of the account ends, its access tokens at once (their edge records
 * forgotten before the answer); the caller's stays. Answers how many ended.
 */
export async function signOutOtherSessions(db: DirectoryDb, env: Env, userId: string, keep: string): Promise<number> {
  const revoked = await revokeOtherSessions(db, userId, keep, "signed_out_elsewhere");
  await forgetSessions(env, revoked.map((r) => r.id));
  return revoked.length;
}

export async function revokeSession(db: DirectoryDb, env: Env, sessionId: string, reason: string): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: new Date(), revokedReason: reason })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
  await forgetSession(env, sessionId); // its access tokens stop working at once, also where its record is warm
}

/** Rotates a refresh token. A retired token presented again revokes its whole family. */
export async function refreshSession(db: DirectoryDb, env: Env, presented: string): Promise<SessionBody> {
  const tokenHash = await sha256Hex(presented);
  // Read at D1's primary, not through `db`: a client's old bookmark may point that at a replica that has not yet
  // seen the session's revocation, the token's use or the account's ban.
  const found = await directoryDb(env)
    .select({ token: refreshTokens, session: sessions, bannedAt: users.bannedAt, deletedAt: users.deletedAt })
    .from(refreshTokens)
    .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(refreshTokens.tokenHash, tokenHash))
    .get();
  const now = Date.now();
  if (!found) throw refreshRefused("invalid_refresh_token");
  const { token, session } = found;
  if (session.revokedAt || found.bannedAt || found.deletedAt) throw refreshRefused("session_revoked");
  if (token.usedAt) {
    await revokeSession(db, env, session.id, "refresh_token_reuse");
    throw refreshRefused("refresh_token_reused");
  }
  if (token.expiresAt.getTime() <= now || session.expiresAt.getTime() <= now) throw refreshRefused("refresh_token_expired");

  // Retire the token atomically: of two concurrent refreshes with one token, exactly one wins
  // and the other counts as reuse.
  const retired = await db
    .update(refreshTokens)
    .set({ usedAt: new Date(now) })
    .where(and(eq(refreshTokens.tokenHash, tokenHash), isNull(refreshTokens.usedAt)))
    .run();
  if (retired.meta.changes !== 1) {
    await revokeSession(db, env, session.id, "refresh_token_reuse");
    throw refreshRefused("refresh_token_reused");
  }
  const { row, body } = await issue(env, session.userId, session.id);
  await db.insert(refreshTokens).values(row);
  return body;
}
