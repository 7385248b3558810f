// Recovery codes (extensions.md §5): ten single-use codes, shown once when a second factor is confirmed, for the
// day the authenticator is lost. Each is 16 characters of Crockford base32 (80 random bits, read aloud without
// 0/O or 1/I/L mix-ups, typed in any case, with or without the dashes), stored as its SHA-256: with 80 bits no
// stored hash can be searched back to its code, so a fast hash does (as for refresh tokens).
import { and, count, eq, exists, isNull, sql } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { recoveryCodes } from "../db/schema";
import { sha256Hex } from "../platform/crypto/crypto";
import { MFA } from "../config/auth";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const NORMAL = new RegExp(`^[${ALPHABET}]{${MFA.recoveryCodeChars}}$`);

/** A new code as people see it: "xxxx-xxxx-xxxx-xxxx". 32 divides 256, so `byte & 31` is unbiased. */
export function newRecoveryCode(): string {
  const chars = [...crypto.getRandomValues(new Uint8Array(MFA.recoveryCodeChars))].map((b) => ALPHABET[b & 31]);
  return chars.join("").replace(/(.{4})(?=.)/g, "$1-");
}

/** The code as typed, in its one stored spelling; null when it cannot be a recovery code. */
export function normalizeRecoveryCode(input: string): string | null {
  const s = input.toLowerCase().replace(/[\s-]/g, "").replace(/[il]/g, "1").replace(/o/g, "0");
  return NORMAL.test(s) ? s : null;
}

const hashOf = (normalized: string) => sha256Hex(`recovery-code:${normalized}`);

/** Fresh codes for the account; the statements replace every earlier code (run them in the caller's batch). */
export async function newRecoveryCodes(db: DirectoryDb, userId: string, now: Date) {
  const codes = Array.from({ length: MFA.recoveryCodeCount }, newRecoveryCode);
  const rows = await Promise.all(codes.map(async (code) => ({ userId, codeHash: await hashOf(normalizeRecoveryCode(code)!), createdAt: now })));
  const statements = [db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)), db.insert(recoveryCodes).values(rows)] as const;
  return { codes, statements };
}

/** The stored hash of a typed code; null when the input cannot be a recovery code. */
export async function recoveryCodeHash(input: string): Promise<string | null> {
  const normalized = normalizeRecoveryCode(input);
  return normalized ? hashOf(normalized) : null;
}

const unused = (userId: string, codeHash: string) => and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt));

/** True (in SQL) while that code of the account is unused: a condition for claiming what the code unlocks. */
export const recoveryCodeUnused = (db: DirectoryDb, userId: string, codeHash: string) =>
  exists(db.select({ one: sql`1` }).from(recoveryCodes).where(unused(userId, codeHash)));

/** Uses up one code of the account: of two requests with one code exactly one gets true (conditional UPDATE). */
export async function spendRecoveryCode(db: DirectoryDb, userId: string, codeHash: string): Promise<boolean> {
  const used = await db.update(recoveryCodes).set({ usedAt: new Date() }).where(unused(userId, codeHash)).run();
  return used.meta.changes === 1;
}

/** How many unused codes the account has. */
export async function recoveryCodesLeft(db: DirectoryDb, userId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt))).get();
  return row?.n ?? 0;
}

/** Deletes every code of the account (no second factor is left to recover). */
export const deleteRecoveryCodes = (db: DirectoryDb, userId: string) => db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
