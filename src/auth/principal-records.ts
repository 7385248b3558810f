// Principal records: what a credential check needs about a session or an API key and its user, as edge records
// (platform/edge/edge-records.ts), so a warm authenticated request makes no D1 query. A user's record is apart from
// their sessions' and keys' (a change to a user is one delete); names are the hash D1 stores (no secret in a key or
// body). A miss answers from the request's handle and fills later from D1's primary, never a replica (one behind a
// revocation would put the revoked credential back for a whole TTL). Bounds and reasoning: docs/edge-records.md.
import { eq } from "drizzle-orm";
import type { AuthUser, Permission } from "../platform/http/env";
import { apiKeys, users, type UserRow } from "../db/schema";
import { directoryDb, type DirectoryDb } from "../platform/data/db";
import { edgeKey, forget, namespace, recordsOn, writeThenVerify, type EdgeEnv } from "../platform/edge/edge-records";
import { findSessionUser, toAuthUser } from "./queries";

type WaitUntil = { waitUntil(promise: Promise<unknown>): void };
type RecordEnv = Env;

/** A user as a credential check needs them. */
export type PrincipalUser = { authUser: AuthUser; bannedAt: Date | null; deletedAt: Date | null };
export type SessionFacts = { userId: string; revokedAt: Date | null; expiresAt: Date };
export type FoundSession = { session: SessionFacts; user: PrincipalUser };
export type KeyFacts = { keyId: string; userId: string; permissions: Permission[]; revokedAt: Date | null; expiresAt: Date | null; lastUsedAt: Date | null };
export type FoundKey = { key: KeyFacts; user: PrincipalUser };

const userRecords = namespace<PrincipalUser>("users");
const sessionRecords = namespace<SessionFacts>("sessions");
const keyRecords = namespace<KeyFacts>("keys");

/**
 * A user's record. One written by the code before shards has no `shard`: every owner was on shard 0 then, so
 * that is what it means (such records live one TTL after the deploy).
 */
async function readUser(env: RecordEnv, userId: string): Promise<PrincipalUser | undefined> {
  const u = await userRecords.read(env, userId);
  if (u) u.authUser.shard ??= 0;
  return u;
}

function principalUser(u: UserRow): PrincipalUser {
  return { authUser: toAuthUser(u), bannedAt: u.bannedAt, deletedAt: u.deletedAt };
}

/** Whether two reads of a user agree on everything a principal record holds. */
const sameUser = (a: PrincipalUser, b: PrincipalUser) => JSON.stringify(a) === JSON.stringify(b);

type On = { cache: Cache; seconds: number };

async function sessionFromDb(db: DirectoryDb, userId: string, sessionId: string): Promise<FoundSession | undefined> {
  const row = await findSessionUser(db, userId, sessionId);
  return row && { session: { userId, ...row.session }, user: principalUser(row.user) };
}

/** The session and its user (both records hit: no D1 query); undefined when there is no such session of this user. */
export async function findSession(env: RecordEnv, db: DirectoryDb, ctx: WaitUntil, userId: string, sessionId: string): Promise<FoundSession | undefined> {
  const on = recordsOn(env);
  if (!on) return sessionFromDb(db, userId, sessionId);
  const [s, u] = await Promise.all([sessionRecords.read(env, sessionId), readUser(env, userId)]);
  if (s && u) return s.userId === userId ? { session: s, user: u } : undefined;
  const found = await sessionFromDb(db, userId, sessionId);
  if (found) ctx.waitUntil(fillSession(env, on, userId, sessionId, { session: !s, user: !u }));
  return found;
}

/** The session and its user from D1's primary, records aside: for changes a stale record must not allow. */
export function findSessionAtPrimary(env: RecordEnv, userId: string, sessionId: string): Promise<FoundSession | undefined> {
  return sessionFromDb(directoryDb(env), userId, sessionId);
}

/** Fills the missing records from D1's primary, then checks them against it again (platform's race guard). */
async function fillSession(env: RecordEnv, on: On, userId: string, sessionId: string, missing: { session: boolean; user: boolean }) {
  const primary = directoryDb(env);
  const found = await sessionFromDb(primary, userId, sessionId).catch(() => undefined);
  if (!found) return;
  const keys = [...(missing.session ? [sessionRecords.key(env, sessionId)] : []), ...(missing.user ? [userRecords.key(env, userId)] : [])];
  await writeThenVerify(
    keys,
    () =>
      Promise.all([
        missing.session && sessionRecords.write(env, sessionId, found.session, on.seconds),
        missing.user && userRecords.write(env, userId, found.user, on.seconds),
      ]),
    async () => {
      const now = await sessionFromDb(primary, userId, sessionId);
      if (!now) return keys;
      const { session: a, user: b } = now;
      const sessionMoved = a.revokedAt?.getTime() !== found.session.revokedAt?.getTime() || a.expiresAt.getTime() !== found.session.expiresAt.getTime();
      return [...(missing.session && sessionMoved ? [sessionRecords.key(env, sessionId)] : []), ...(missing.user && !sameUser(b, found.user) ? [userRecords.key(env, userId)] : [])];
    },
  );
}

async function keyFromDb(db: DirectoryDb, keyHash: string): Promise<FoundKey | undefined> {
  const row = await db.select({ key: apiKeys, user: users }).from(apiKeys).innerJoin(users, eq(users.id, apiKeys.userId)).where(eq(apiKeys.keyHash, keyHash)).get();
  if (!row) return undefined;
  const { id: keyId, userId, permissions, revokedAt, expiresAt, lastUsedAt } = row.key;
  return { key: { keyId, userId, permissions, revokedAt, expiresAt, lastUsedAt }, user: principalUser(row.user) };
}

/**
 * The key (by the SHA-256 D1 stores) and its user, both from records when hit; undefined for an unknown key.
 * `stampDue` is the caller's rule for writing lastUsedAt: stamp and fill run after the response as one task, stamp
 * first, so the record filled from the primary carries the new lastUsedAt and a hot key writes once per interval.
 */
export async function findKey(env: RecordEnv, db: DirectoryDb, ctx: WaitUntil, keyHash: string, stampDue: (found: FoundKey) => boolean): Promise<FoundKey | undefined> {
  const on = recordsOn(env);
  const k = on ? await keyRecords.read(env, keyHash) : undefined;
  const u = on && k ? await readUser(env, k.userId) : undefined;
  const found = k && u ? { key: k, user: u } : await keyFromDb(db, keyHash);
  if (!found) return undefined;
  const stamp = stampDue(found);
  const fill = { key: !!on && (!k || stamp), user: !!on && !u };
  if (stamp || fill.key || fill.user) ctx.waitUntil(afterKeyUse(env, db, keyHash, stamp ? found.key.keyId : null, fill));
  return found;
}

async function afterKeyUse(env: RecordEnv, db: DirectoryDb, keyHash: string, stampId: string | null, fill: { key: boolean; user: boolean }) {
  try {
    // Not from the record it read: rewriting that could put back a key revoked meanwhile.
    if (stampId) await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, stampId)).run();
    const on = recordsOn(env);
    if (!on || !(fill.key || fill.user)) return;
    const primary = directoryDb(env);
    const found = await keyFromDb(primary, keyHash);
    if (!found) return;
    const keyKey = keyRecords.key(env, keyHash);
    const userKey = userRecords.key(env, found.key.userId);
    const keys = [...(fill.key ? [keyKey] : []), ...(fill.user ? [userKey] : [])];
    await writeThenVerify(
      keys,
      () =>
        Promise.all([
          fill.key && keyRecords.write(env, keyHash, found.key, on.seconds),
          fill.user && userRecords.write(env, found.key.userId, found.user, on.seconds),
        ]),
      async () => {
        const now = await keyFromDb(primary, keyHash);
        if (!now) return keys;
        // lastUsedAt may move meanwhile (another isolate's stamp): informational, not a reason to drop.
        const keyMoved = JSON.stringify({ ...now.key, lastUsedAt: null }) !== JSON.stringify({ ...found.key, lastUsedAt: null });
        return [...(fill.key && keyMoved ? [keyKey] : []), ...(fill.user && !sameUser(now.user, found.user) ? [userKey] : [])];
      },
    );
  } catch {
    // lastUsedAt is informational and the records an optimisation: the next use retries both.
  }
}

// Invalidation: each awaits the local delete (and the global purge, when configured) before the change answers.

/**
 * A user changed (role, plan, ban, unban, deletion, e-mail verification, account settings): drops both records
 * that depend on the users row, their principal record and the byte links' owner state (serving's), so that no change
 * can refresh one and not the other. (Quota columns, uploads/quota.ts, are in neither: no delete needed.)
 */
export function forgetUser(env: EdgeEnv, userId: string): Promise<void> {
  return forget(env, [userRecords.key(env, userId), edgeKey(env, "ownerStates", userId)]);
}

/** A session was revoked (logout, refresh-token reuse). */
export function forgetSession(env: EdgeEnv, sessionId: string): Promise<void> {
  return forgetSessions(env, [sessionId]);
}

/** Several sessions of one account were revoked at once (a password change or reset). */
export function forgetSessions(env: EdgeEnv, sessionIds: string[]): Promise<void> {
  return forget(env, sessionIds.map((id) => sessionRecords.key(env, id)));
}

/** An API key was revoked; `keyHash` is the SHA-256 D1 stores. */
export function forgetKey(env: EdgeEnv, keyHash: string): Promise<void> {
  return forget(env, [keyRecords.key(env, keyHash)]);
}
