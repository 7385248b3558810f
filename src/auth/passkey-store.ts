// The passkeys table as the rest of auth/ reads it (auth/passkeys.ts registers and removes, passkey-sign-in.ts
// signs in, second-factor.ts counts): an account's credentials, one credential by the ID an answer names, and
// the resource the API shows (never the public key or the credential ID: they are of no use to a client).
import { and, asc, count, eq, isNull, lt } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { passkeys, users } from "../db/schema";
import { base64url, utf8 } from "../platform/crypto/crypto";

export type PasskeyRow = typeof passkeys.$inferSelect;

export const passkeysOf = (db: DirectoryDb, userId: string): Promise<PasskeyRow[]> =>
  db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id));

export async function passkeyCount(db: DirectoryDb, userId: string): Promise<number> {
  return (await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId)).get())?.n ?? 0;
}

/** The credential an answer names, with its live account; undefined when unknown or the account is deleted. */
export const findCredential = (db: DirectoryDb, credentialId: string) =>
  db
    .select({ passkey: passkeys, user: users })
    .from(passkeys)
    .innerJoin(users, eq(users.id, passkeys.userId))
    .where(and(eq(passkeys.credentialId, credentialId), isNull(users.deletedAt)))
    .get();

/**
 * Records a use: the counter moves to `counter` only forward (or stays 0 for an authenticator that keeps none), in
 * one conditional UPDATE, so two answers with one counter value cannot both pass. False: a clone, or a race lost.
 */
export async function recordUse(db: DirectoryDb, row: PasskeyRow, counter: number): Promise<boolean> {
  const moved = await db
    .update(passkeys)
    .set({ counter, lastUsedAt: new Date() })
    .where(and(eq(passkeys.id, row.id), counter === 0 ? eq(passkeys.counter, 0) : lt(passkeys.counter, counter)))
    .run();
  return moved.meta.changes === 1;
}

/** The WebAuthn user handle of an account: its id's bytes (random, no personal data), base64url as answers carry it. */
export const userHandleOf = (userId: string) => base64url(utf8(userId));

export function passkeyResource(row: Pick<PasskeyRow, "id" | "name" | "createdAt" | "lastUsedAt">) {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString(), lastUsedAt: row.lastUsedAt?.toISOString() ?? null };
}

/** Account deletion's statement. */
export const deletePasskeys = (db: DirectoryDb, userId: string) => db.delete(passkeys).where(eq(passkeys.userId, userId));
