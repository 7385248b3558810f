import { and, eq, isNull } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { sessions, users, type UserRow } from "../db/schema";
import type { AuthUser } from "../platform/http/env";

export function toAuthUser(u: UserRow): AuthUser {
  return {
    id: u.id,
    email: u.email,
    username: u.username,
    role: u.role,
    plan: u.plan,
    ageConfirmed: u.ageConfirmed,
    safeMode: u.safeMode,
    emailVerified: u.emailVerifiedAt !== null,
    shard: u.shard,
  };
}

/** The User resource as the contract shows it. */
export function userResource(u: UserRow | AuthUser) {
  return { id: u.id, email: u.email, username: u.username, role: u.role, plan: u.plan, ageConfirmed: u.ageConfirmed };
}

/** The caller's own account: the User resource plus what only its owner sees. */
export function accountResource(u: UserRow) {
  return {
    ...userResource(u),
    firstName: u.firstName,
    lastName: u.lastName,
    safeMode: u.safeMode,
    emailVerified: u.emailVerifiedAt !== null,
    createdAt: u.createdAt.toISOString(),
  };
}

/** One query per authenticated request: the user and the session (refresh family) the token belongs to. */
export async function findSessionUser(db: DirectoryDb, userId: string, sessionId: string) {
  const row = await db
    .select({ user: users, session: { revokedAt: sessions.revokedAt, expiresAt: sessions.expiresAt } })
    .from(users)
    .innerJoin(sessions, and(eq(sessions.id, sessionId), eq(sessions.userId, users.id)))
    .where(eq(users.id, userId))
    .get();
  return row ? { ...row, authUser: toAuthUser(row.user) } : undefined;
}

export function findLiveUserByEmail(db: DirectoryDb, email: string) {
  return db.select().from(users).where(and(eq(users.email, email), isNull(users.deletedAt))).get();
}

export function findUserById(db: DirectoryDb, id: string) {
  return db.select().from(users).where(eq(users.id, id)).get();
}
