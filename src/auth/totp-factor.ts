// The TOTP factor (extensions.md §5): enrol (a pending seed), confirm with a first code (recovery codes issued),
// check a code at sign-in, turn off. The seed is stored sealed (platform/crypto/secret-box.ts) under a key derived
// from TOTP_ENCRYPTION_SECRET. A code is accepted once: the factor remembers the last step it accepted, and a
// conditional UPDATE moves it forward, so of two requests with one code exactly one passes.
// Everything here reads and writes D1's primary (the `db` handed in by a POST/DELETE route, or the binding).
import { and, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import { runBatch, type DirectoryDb } from "../platform/data/db";
import { totpFactors } from "../db/schema";
import { base32Encode, matchingSteps, newTotpSecret, otpauthUrl } from "../platform/crypto/totp";
import { openSecret, sealSecret } from "../platform/crypto/secret-box";
import { ApiError, unauthorized } from "../platform/errors/errors";
import { MFA } from "../config/auth";
import { queueMail } from "../mail/outbox";
import { findUserById } from "./queries";
import { guardedCheck, reenteredPasswordOk } from "./login-guard";
import { deleteRecoveryCodes, newRecoveryCodes } from "./recovery-codes";
import { passkeyCount } from "./passkey-store";
import { revokeOtherSessions } from "./sessions";
import { forgetSessions } from "./principal-records";
import { config } from "../config/env";

const SEAL_PURPOSE = "totp seed v1";
type FactorRow = typeof totpFactors.$inferSelect;

export const findTotpFactor = (db: DirectoryDb, userId: string): Promise<FactorRow | undefined> => db.select().from(totpFactors).where(eq(totpFactors.userId, userId)).get();

/** Starts (or restarts) an enrolment: a new pending seed, answered once in base32 and as an otpauth URL. */
export async function enrolTotp(db: DirectoryDb, env: Env, user: { id: string; email: string }): Promise<{ secret: string; otpauthUrl: string }> {
  const seed = newTotpSecret();
  const secretSealed = await sealSecret(config(env).totpEncryptionSecret, SEAL_PURPOSE, seed, user.id);
  const now = new Date();
  // A pending enrolment is replaced; a confirmed factor is not (the WHERE of the upsert leaves it alone).
  const written = await db
    .insert(totpFactors)
    .values({ userId: user.id, secretSealed, lastUsedStep: null, confirmedAt: null, createdAt: now })
    .onConflictDoUpdate({ target: totpFactors.userId, set: { secretSealed, lastUsedStep: null, createdAt: now }, where: isNull(totpFactors.confirmedAt) })
    .run();
  if (written.meta.changes !== 1) throw new ApiError("totp_already_enabled", "TOTP is already on; turn it off first to enrol another authenticator");
  const secret = base32Encode(seed);
  return { secret, otpauthUrl: otpauthUrl({ issuer: MFA.issuer, account: user.email, secret }) };
}

/** Codes are typed with spaces at times ("123 456"). */
const cleanCode = (code: string) => code.replace(/\s/g, "");

/**
 * Takes `code` for the factor `row` when it matches a step of the window later than the last one accepted,
 * moving lastUsedStep there in one conditional UPDATE (also pinned to this seed and state, so an enrolment
 * restarted meanwhile is not touched). `confirm` also marks a pending factor confirmed.
 */
async function takeCode(db: DirectoryDb, env: Env, row: FactorRow, code: string, confirm = false): Promise<boolean> {
  const seed = await openSecret(config(env).totpEncryptionSecret, SEAL_PURPOSE, row.secretSealed, row.userId);
  if (!seed) {
    console.error("a TOTP seed does not open: was TOTP_ENCRYPTION_SECRET changed?", row.userId);
    return false;
  }
  const fresh = (await matchingSteps(seed, cleanCode(code), Date.now())).filter((s) => row.lastUsedStep === null || s > row.lastUsedStep);
  if (fresh.length === 0) return false;
  const step = fresh[0];
  const taken = await db
    .update(totpFactors)
    .set(confirm ? { lastUsedStep: step, confirmedAt: new Date() } : { lastUsedStep: step })
    .where(
      and(
        eq(totpFactors.userId, row.userId),
        eq(totpFactors.secretSealed, row.secretSealed),
        row.confirmedAt ? isNotNull(totpFactors.confirmedAt) : isNull(totpFactors.confirmedAt),
        or(isNull(totpFactors.lastUsedStep), lt(totpFactors.lastUsedStep, step)),
      ),
    )
    .run();
  return taken.meta.changes === 1;
}

/** Confirms a pending enrolment with a first code; answers the recovery codes, shown this once. */
export async function confirmTotp(db: DirectoryDb, env: Env, userId: string, code: string): Promise<string[]> {
  const row = await findTotpFactor(db, userId);
  if (!row || row.confirmedAt) throw new ApiError("totp_not_pending", "No TOTP enrolment is waiting for confirmation; start one first");
  if (!(await takeCode(db, env, row, code, true))) throw invalidTotpCode();
  const now = new Date();
  const { codes, statements } = await newRecoveryCodes(db, userId, now);
  await runBatch(db, statements);
  const user = await findUserById(db, userId);
  // Like a passkey's addition: a factor put on by someone else would lock the owner out.
  if (user) {
    await queueMail(db, env, user.email, { kind: "totp_enabled", username: user.username, email: user.email, at: now });
  }
  return codes;
}

/** A sign-in's second step: a code of the account's confirmed factor, accepted once. */
export async function totpCodeOk(db: DirectoryDb, env: Env, userId: string, code: string): Promise<boolean> {
  const row = await findTotpFactor(db, userId);
  return Boolean(row?.confirmedAt) && takeCode(db, env, row!, code);
}

export type TurnOffProof = { code: string } | { password: string };

/**
 * Turns TOTP off (or drops a pending enrolment) with a current code or the password, either counted in the login
 * guard. The recovery codes go too unless a passkey remains (they recover it as well). Removing a confirmed factor
 * is mailed and ends every other session of the account (its codes may have opened them); the caller's stays.
 */
export async function turnOffTotp(db: DirectoryDb, env: Env, userId: string, sessionId: string, proof: TurnOffProof, ip: string): Promise<void> {
  const user = await findUserById(db, userId);
  if (!user || user.deletedAt) throw unauthorized();
  const row = await findTotpFactor(db, userId);
  if (!row) throw new ApiError("totp_not_enabled", "This account has no TOTP factor");
  if ("password" in proof) {
    if (!(await reenteredPasswordOk(env, user, proof.password, ip))) throw new ApiError("invalid_password", "The password is not correct");
  } else if (!(await guardedCheck(env, user.email, ip, () => takeCode(db, env, row, proof.code)))) {
    throw invalidTotpCode();
  }
  const passkeysLeft = (await passkeyCount(db, userId)) > 0;
  // A pending enrolment opened nothing: only a confirmed factor's removal ends the other sessions.
  const [, ...rest] = await runBatch<{ id: string }>(db, [
    db.delete(totpFactors).where(eq(totpFactors.userId, userId)),
    ...(row.confirmedAt ? [revokeOtherSessions(db, userId, sessionId, "totp_disabled")] : []),
    ...(passkeysLeft ? [] : [deleteRecoveryCodes(db, userId)]),
  ]);
  if (!row.confirmedAt) return;
  await forgetSessions(env, rest[0].results.map((r) => r.id)); // their access tokens stop at once, also where warm
  const confirmedWith = "password" in proof ? "password" : "code";
  await queueMail(db, env, user.email, { kind: "totp_disabled", username: user.username, email: user.email, at: new Date(), confirmedWith, passkeysLeft });
}

const invalidTotpCode = () => new ApiError("invalid_totp_code", "The authenticator code is wrong, already used or outside its time window");
