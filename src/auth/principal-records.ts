// Edge-cached principal records: what a credential check needs about a session or an API key and its user,
// kept in caches.default like the byte links' access records (serving/access-records.ts, whose reasoning
// holds here too), so a warm authenticated request resolves its principal with no D1 query.
//
// Three records, so that a change to a user (ban, role, plan, deletion...) is one delete:
//   principals/users/<userId>         the AuthUser, and when the user was banned or deleted;
//   principals/sessions/<sessionId>   the session's user, revokedAt and expiresAt;
//   principals/keys/<sha256 of key>   the key's id, user, permissions, revokedAt, expiresAt and lastUsedAt.
// Keys are named by the hash D1 stores: no secret (key, token, password hash) is in a cache key or body.
// Every change deletes the record here at once (awaited before the change answers) and, with global purge
// configured, everywhere; otherwise another data centre may keep deciding from it for ACCESS_RECORD_SECONDS,
// the bound on how long a revoked session or key, or a banned user, can still be let in there.
// Expiry needs no delete: the records carry expiresAt.
// A miss answers from the request's handle (a replica, the same one query as without records) and fills the
// missing records after the response from D1's primary, never from a replica: a replica behind a revocation
// would otherwise put the revoked credential back for a whole TTL.
import { eq } from "drizzle-orm";
import type { AuthUser, Permission } from "../env";
import { apiKeys, users, type UserRow } from "../db/schema";
import { createDb, type Db } from "../platform/db";
import { accessRecordSeconds } from "../serving/access-records";
import { defaultCache, forgetEdgeKeys, ownerAccessKey, readRecord, recordKey, writeRecord, type EdgeEnv } from "../serving/edge-cache";
import { findSessionUser, toAuthUser } from "./queries";

type WaitUntil = { waitUntil(promise: Promise<unknown>): void };
type RecordEnv = Pick<Env, "CDN_URL" | "ACCESS_RECORD_SECONDS" | "DB">;

/** A user as a credential check needs them. */
export type PrincipalUser = { authUser: AuthUser; bannedAt: Date | null; deletedAt: Date | null };
export type FoundSession = { session: { userId: string; revokedAt: Date | null; expiresAt: Date }; user: PrincipalUser };
export type KeyFacts = { keyId: string; userId: string; permissions: Permission[]; revokedAt: Date | null; expiresAt: Date | null; lastUsedAt: Date | null };
export type FoundKey = { key: KeyFacts; user: PrincipalUser };

type UserRecord = { v: 1; user: AuthUser; bannedAt: number | null; deletedAt: number | null };
type SessionRecord = { v: 1; userId: string; revokedAt: number | null; expiresAt: number };
type KeyRecord = { v: 1; keyId: string; userId: string; permissions: Permission[]; revokedAt: number | null; expiresAt: number | null; lastUsedAt: number | null };

const userKey = (env: Pick<Env, "CDN_URL">, userId: string) => recordKey(env, `principals/users/${userId}`);
const sessionKey = (env: Pick<Env, "CDN_URL">, sessionId: string) => recordKey(env, `principals/sessions/${sessionId}`);
const keyKey = (env: Pick<Env, "CDN_URL">, keyHash: string) => recordKey(env, `principals/keys/${keyHash}`);

const ms = (d: Date | null) => (d ? d.getTime() : null);
const date = (n: number | null) => (n === null ? null : new Date(n));

function principalUser(u: UserRow): PrincipalUser {
  return { authUser: toAuthUser(u), bannedAt: u.bannedAt, deletedAt: u.deletedAt };
}
const encodeUser = (u: PrincipalUser): UserRecord => ({ v: 1, user: u.authUser, bannedAt: ms(u.bannedAt), deletedAt: ms(u.deletedAt) });
const decodeUser = (r: UserRecord): PrincipalUser => ({ authUser: r.user, bannedAt: date(r.bannedAt), deletedAt: date(r.deletedAt) });

function encodeKey(k: KeyFacts): KeyRecord {
  return { v: 1, keyId: k.keyId, userId: k.userId, permissions: k.permissions, revokedAt: ms(k.revokedAt), expiresAt: ms(k.expiresAt), lastUsedAt: ms(k.lastUsedAt) };
}
function decodeKey(r: KeyRecord): KeyFacts {
  return { keyId: r.keyId, userId: r.userId, permissions: r.permissions, revokedAt: date(r.revokedAt), expiresAt: date(r.expiresAt), lastUsedAt: date(r.lastUsedAt) };
}

type On = { cache: Cache; seconds: number };
/** The cache and the records' lifetime, or null when records are off (ACCESS_RECORD_SECONDS=0) or there is no cache. */
function records(env: RecordEnv): On | null {
  const seconds = accessRecordSeconds(env);
  const cache = defaultCache();
  return seconds > 0 && cache ? { cache, seconds } : null;
}

async function sessionFromDb(db: Db, userId: string, sessionId: string): Promise<FoundSession | undefined> {
  const row = await findSessionUser(db, userId, sessionId);
  return row && { session: { userId, ...row.session }, user: principalUser(row.user) };
}

/** The session and its user (both records hit: no D1 query); undefined when there is no such session of this user. */
export async function findSession(env: RecordEnv, db: Db, ctx: WaitUntil, userId: string, sessionId: string): Promise<FoundSession | undefined> {
  const on = records(env);
  if (!on) return sessionFromDb(db, userId, sessionId);
  const [s, u] = await Promise.all([
    readRecord<SessionRecord>(on.cache, sessionKey(env, sessionId)),
    readRecord<UserRecord>(on.cache, userKey(env, userId)),
  ]);
  if (s && u) {
    if (s.userId !== userId) return undefined;
    return { session: { userId, revokedAt: date(s.revokedAt), expiresAt: new Date(s.expiresAt) }, user: decodeUser(u) };
  }
  const found = await sessionFromDb(db, userId, sessionId);
  if (found) ctx.waitUntil(fillSession(env, on, userId, sessionId, { session: !s, user: !u }));
  return found;
}

async function fillSession(env: RecordEnv, on: On, userId: string, sessionId: string, missing: { session: boolean; user: boolean }) {
  const found = await sessionFromDb(createDb(env.DB), userId, sessionId).catch(() => undefined);
  if (!found) return;
  const { revokedAt, expiresAt } = found.session;
  const writes: Promise<void>[] = [];
  if (missing.session) writes.push(writeRecord(on.cache, sessionKey(env, sessionId), { v: 1, userId, revokedAt: ms(revokedAt), expiresAt: expiresAt.getTime() } satisfies SessionRecord, on.seconds));
  if (missing.user) writes.push(writeRecord(on.cache, userKey(env, userId), encodeUser(found.user), on.seconds));
  await Promise.all(writes);
}

async function keyFromDb(db: Db, keyHash: string): Promise<FoundKey | undefined> {
  const row = await db.select({ key: apiKeys, user: users }).from(apiKeys).innerJoin(users, eq(users.id, apiKeys.userId)).where(eq(apiKeys.keyHash, keyHash)).get();
  if (!row) return undefined;
  const { id: keyId, userId, permissions, revokedAt, expiresAt, lastUsedAt } = row.key;
  return { key: { keyId, userId, permissions, revokedAt, expiresAt, lastUsedAt }, user: principalUser(row.user) };
}

/**
 * The key (by the SHA-256 D1 stores) and its user (both records hit: no D1 query); undefined for an unknown key.
 * `stampDue` is the caller's rule for writing lastUsedAt (a live key not stamped within the interval): the
 * stamp and the fill run after the response as one task, stamp first, so the record filled from the primary
 * carries the new lastUsedAt and a hot key writes once per interval, not on every request.
 */
export async function findKey(env: RecordEnv, db: Db, ctx: WaitUntil, keyHash: string, stampDue: (found: FoundKey) => boolean): Promise<FoundKey | undefined> {
  const on = records(env);
  const k = on ? await readRecord<KeyRecord>(on.cache, keyKey(env, keyHash)) : undefined;
  const u = on && k ? await readRecord<UserRecord>(on.cache, userKey(env, k.userId)) : undefined;
  const found = k && u ? { key: decodeKey(k), user: decodeUser(u) } : await keyFromDb(db, keyHash);
  if (!found) return undefined;
  const stamp = stampDue(found);
  const fill = { key: !!on && (!k || stamp), user: !!on && !u };
  if (stamp || fill.key || fill.user) ctx.waitUntil(afterKeyUse(env, db, keyHash, stamp ? found.key.keyId : null, fill));
  return found;
}

async function afterKeyUse(env: RecordEnv, db: Db, keyHash: string, stampId: string | null, fill: { key: boolean; user: boolean }) {
  try {
    // Not from the record it read: rewriting that could put back a key revoked meanwhile.
    if (stampId) await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, stampId)).run();
    const on = records(env);
    if (!on || !(fill.key || fill.user)) return;
    const found = await keyFromDb(createDb(env.DB), keyHash);
    if (!found) return;
    const writes: Promise<void>[] = [];
    if (fill.key) writes.push(writeRecord(on.cache, keyKey(env, keyHash), encodeKey(found.key), on.seconds));
    if (fill.user) writes.push(writeRecord(on.cache, userKey(env, found.key.userId), encodeUser(found.user), on.seconds));
    await Promise.all(writes);
  } catch {
    // lastUsedAt is informational and the records an optimisation: the next use retries both.
  }
}

// Invalidation: each awaits the local delete (and the global purge, when configured) before the change answers.

/**
 * A user changed (role, plan, ban, unban, deletion, e-mail verification, account settings): drops both records
 * that depend on the users row, their principal record and the byte links' owner record, so that no change
 * can refresh one and not the other. (Quota columns, uploads/quota.ts, are in neither: no delete needed.)
 */
export function forgetUser(env: EdgeEnv, userId: string): Promise<void> {
  return forgetEdgeKeys(env, [userKey(env, userId), ownerAccessKey(env, userId)]);
}

/** A session was revoked (logout, refresh-token reuse). */
export function forgetSession(env: EdgeEnv, sessionId: string): Promise<void> {
  return forgetEdgeKeys(env, [sessionKey(env, sessionId)]);
}

/** An API key was revoked; `keyHash` is the SHA-256 D1 stores. */
export function forgetKey(env: EdgeEnv, keyHash: string): Promise<void> {
  return forgetEdgeKeys(env, [keyKey(env, keyHash)]);
}
