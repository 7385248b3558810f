// API keys: `pk_` + 32 base58 characters, shown once, stored as SHA-256 only.
import { and, count, desc, eq, gt, isNull, or } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { apiKeys } from "../db/schema";
import { API_KEYS } from "../config/auth";
import { ApiError } from "../platform/errors/errors";
import { isBase58, randomBase58 } from "../platform/formats/base58";
import { sha256Hex } from "../platform/crypto/crypto";
import { newId } from "../platform/data/ids";
import type { AuthUser, Permission } from "../platform/http/env";
import { findKey, forgetKey, type FoundKey } from "./principal-records";

export function generateApiKey(): string {
  return API_KEYS.prefix + randomBase58(API_KEYS.bodyLength);
}

export function isWellFormedApiKey(token: string): boolean {
  const body = token.slice(API_KEYS.prefix.length);
  return token.startsWith(API_KEYS.prefix) && body.length === API_KEYS.bodyLength && isBase58(body);
}


/**
 * Why a found key may not be used now, or null when it may: the contract's 401s for a key that is revoked (or
 * whose account was deleted) or expired, which no unban undoes; else 403 account_banned while its account is
 * suspended (the key itself is fine, and works again after an unban).
 */
function keyRefusal({ key, user }: FoundKey, now: number): ApiError | null {
  if (key.revokedAt || user.deletedAt) return new ApiError("api_key_revoked", "This API key has been revoked");
  if (key.expiresAt && key.expiresAt.getTime() <= now) return new ApiError("api_key_expired", "This API key has expired");
  if (user.bannedAt) return new ApiError("account_suspended", "The account that owns this API key is suspended");
  return null;
}

/**
 * Checks a presented key; answers with the contract's exact 401 texts, or 403 account_banned (keyRefusal). Warm,
 * the key's and its owner's edge-cached records decide (auth/principal-records.ts) with no D1 query.
 */
export async function authenticateApiKey(
  env: Env,
  db: DirectoryDb,
  token: string,
  ctx: { waitUntil(promise: Promise<unknown>): void },
): Promise<{ keyId: string; user: AuthUser; permissions: Permission[] }> {
  if (!isWellFormedApiKey(token)) throw new ApiError("invalid_api_key", "The API key is malformed or unknown");
  const now = Date.now();
  // lastUsedAt is written at most once per interval per key, after the response: keys are not a D1 write per request.
  const stampDue = (found: FoundKey) =>
    !keyRefusal(found, now) && now - (found.key.lastUsedAt?.getTime() ?? 0) > API_KEYS.lastUsedWriteIntervalSeconds * 1000;
  const found = await findKey(env, db, ctx, await sha256Hex(token), stampDue);
  if (!found) throw new ApiError("invalid_api_key", "The API key is malformed or unknown");
  const refusal = keyRefusal(found, now);
  if (refusal) throw refusal;
  return { keyId: found.key.keyId, user: found.user.authUser, permissions: found.key.permissions };
}

export function keyResource(k: typeof apiKeys.$inferSelect) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    permissions: k.permissions,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

export async function createApiKey(
  db: DirectoryDb,
  user: AuthUser,
  input: { name: string; permissions: Permission[]; expiresAt?: Date },
) {
  if (!user.emailVerified) {
    throw new ApiError("email_not_verified", "Verify your e-mail address before creating API keys");
  }
  const now = new Date();
  const active = await db
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, user.id), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))))
    .get();
  if ((active?.n ?? 0) >= API_KEYS.maxPerUser) {
    throw new ApiError("too_many_keys", `At most ${API_KEYS.maxPerUser} active API keys per account; revoke one first`);
  }
  const key = generateApiKey();
  const row = {
    id: newId("key"),
    userId: user.id,
    name: input.name,
    keyHash: await sha256Hex(key),
    prefix: key.slice(0, API_KEYS.displayPrefixLength),
    permissions: [...new Set(input.permissions)],
    expiresAt: input.expiresAt ?? null,
    lastUsedAt: null,
    revokedAt: null,
    createdAt: now,
  };
  await db.insert(apiKeys).values(row);
  return { key, resource: keyResource(row) };
}

export async function listApiKeys(db: DirectoryDb, userId: string, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.userId, userId)).get(),
  ]);
  const n = total?.n ?? 0;
  return { keys: rows.map(keyResource), pagination: { total: n, limit, offset, hasMore: offset + rows.length < n } };
}

export async function revokeApiKey(db: DirectoryDb, env: Env, userId: string, keyId: string) {
  const row = await db.select().from(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId))).get();
  if (!row) throw new ApiError("not_found", "API key not found");
  if (!row.revokedAt) await db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, keyId));
  await forgetKey(env, row.keyHash); // the key stops working at once, also where its record is warm
}
