// Sign-in with a second factor (extensions.md §5): for an account with a factor the password step (service.ts login)
// answers an mfaToken, which POST /auth/login/2fa trades with a proof (a TOTP or recovery code, or a passkey's answer:
// secondStepPasskeyOptions, passkey-sign-in.ts) for the normal login response. The token is claimed when the proof is
// good, or before a recovery code is spent; a wrong code leaves it usable, since the login guard, not the token,
// bounds the guesses (docs/accounts.md § Two-factor sign-in).
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { directoryDb, type DirectoryDb } from "../platform/data/db";
import { mfaTokens, passkeyChallenges, recoveryCodes, totpFactors, users, type UserRow } from "../db/schema";
import { randomToken, sha256Hex } from "../platform/crypto/crypto";
import { ApiError } from "../platform/errors/errors";
import { MFA } from "../config/auth";
import { createSession, type SessionBody } from "./sessions";
import { guardedCheck } from "./login-guard";
import { findTotpFactor, totpCodeOk } from "./totp-factor";
import { deleteRecoveryCodes, recoveryCodeHash, recoveryCodeUnused, recoveryCodesLeft, spendRecoveryCode } from "./recovery-codes";
import { deletePasskeys, passkeyCount, passkeysOf } from "./passkey-store";
import { claimSecondStepChallenge, newSecondStepChallenge } from "./passkey-challenges";
import { invalidPasskey, requestOptions, secondStepAnswerOk } from "./passkey-sign-in";
import type { AuthenticationCredential } from "./passkey-schemas";

/** The ways to finish a sign-in, as `methods` names them. */
export type SecondFactorMethod = "totp" | "passkey" | "recovery";

/** What the second step may carry: a code (TOTP or recovery), or a passkey's answer to the token's challenge. */
export type SecondFactorProof = { code: string } | { response: z.output<typeof AuthenticationCredential> };

/**
 * The methods that can finish this account's sign-in; empty when the password alone signs in. Always read from
 * D1's primary (the binding, not the request's session): a replica behind a just-enabled factor, or a client's
 * old bookmark, must not let a password alone sign in.
 */
export async function signInMethods(env: Env, userId: string): Promise<SecondFactorMethod[]> {
  return (await factorsAtPrimary(env, userId)).methods;
}

async function factorsAtPrimary(env: Env, userId: string) {
  const primary = directoryDb(env);
  const [totp, recoveryLeft, passkeys] = await Promise.all([findTotpFactor(primary, userId), recoveryCodesLeft(primary, userId), passkeyCount(primary, userId)]);
  const methods: SecondFactorMethod[] = [];
  if (totp?.confirmedAt) methods.push("totp");
  if (passkeys > 0) methods.push("passkey");
  if (methods.length > 0 && recoveryLeft > 0) methods.push("recovery");
  return { totp, recoveryLeft, methods };
}

export type MfaChallenge = { mfaRequired: true; mfaToken: string; methods: SecondFactorMethod[] };

/** The password was right and the account has a factor: a single-use token for the second step. */
export async function startSecondStep(db: DirectoryDb, userId: string, methods: SecondFactorMethod[]): Promise<MfaChallenge> {
  const mfaToken = randomToken();
  const now = Date.now();
  await db.insert(mfaTokens).values({ tokenHash: await sha256Hex(mfaToken), userId, createdAt: new Date(now), expiresAt: new Date(now + MFA.tokenSeconds * 1000) });
  return { mfaRequired: true, mfaToken, methods };
}

const liveToken = (tokenHash: string) => and(eq(mfaTokens.tokenHash, tokenHash), isNull(mfaTokens.usedAt), gt(mfaTokens.expiresAt, new Date()));

/** Whether the proof is good, and whether checking it already claimed the token. */
type ProofResult = { ok: boolean; claimed: boolean };

/** A passkey's answer to the token's challenge; a code: six digits are a TOTP code, anything else a recovery code. */
async function proofOk(db: DirectoryDb, env: Env, userId: string, tokenHash: string, proof: SecondFactorProof): Promise<ProofResult> {
  if ("response" in proof) {
    return { ok: await secondStepAnswerOk(db, env, userId, proof.response, (challenge) => claimSecondStepChallenge(db, tokenHash, challenge)), claimed: false };
  }
  const code = proof.code.replace(/\s/g, "");
  if (/^[0-9]{6}$/.test(code)) return { ok: await totpCodeOk(db, env, userId, code), claimed: false };
  return recoveryProofOk(db, userId, tokenHash, code);
}

const NOT_OK: ProofResult = { ok: false, claimed: false };

/**
 * A recovery code is spent only with the token it opens: the token is claimed first, and only for a code still
 * unused, so of parallel requests with one token and several codes one claims it and spends its code, and the others
 * spend nothing (TOTP codes and passkey answers are no stock to burn: their token is claimed after the check).
 */
async function recoveryProofOk(db: DirectoryDb, userId: string, tokenHash: string, code: string): Promise<ProofResult> {
  const codeHash = await recoveryCodeHash(code);
  if (!codeHash) return NOT_OK;
  const claim = await db.update(mfaTokens).set({ usedAt: new Date() }).where(and(liveToken(tokenHash), recoveryCodeUnused(db, userId, codeHash))).run();
  if (claim.meta.changes !== 1) return NOT_OK;
  if (await spendRecoveryCode(db, userId, codeHash)) return { ok: true, claimed: true };
  // The same code was spent meanwhile with another token of the account: this token goes back, unused.
  await db.update(mfaTokens).set({ usedAt: null }).where(eq(mfaTokens.tokenHash, tokenHash)).run();
  return NOT_OK;
}

const invalidToken = () => new ApiError("invalid_mfa_token", "This sign-in expired or was already used: sign in with your password again");

/**
 * The second step: a live token, then the proof (counted in the login guard like a password: a wrong code is a
 * failed login for the account and the IP, and past the limit a 429), then the token claimed and a session made.
 */
export async function completeSecondStep(db: DirectoryDb, env: Env, mfaToken: string, proof: SecondFactorProof, ip: string): Promise<{ user: UserRow; session: SessionBody }> {
  const tokenHash = await sha256Hex(mfaToken);
  const found = await db.select({ user: users }).from(mfaTokens).innerJoin(users, eq(users.id, mfaTokens.userId)).where(and(liveToken(tokenHash), isNull(users.deletedAt))).get();
  if (!found) throw invalidToken();
  const { user } = found;
  let result: ProofResult = { ok: false, claimed: false };
  await guardedCheck(env, user.email, ip, async () => (result = await proofOk(db, env, user.id, tokenHash, proof)).ok);
  if (!result.ok) {
    // A parallel request took the token meanwhile: say so, as for a token already used.
    if (!(await db.select({ one: sql`1` }).from(mfaTokens).where(liveToken(tokenHash)).get())) throw invalidToken();
    throw "response" in proof ? invalidPasskey() : new ApiError("invalid_mfa_code", "The code is wrong, already used or outside its time window");
  }
  // Single use: of two requests with one token, exactly one gets a session.
  if (!result.claimed) {
    const claimed = await db.update(mfaTokens).set({ usedAt: new Date() }).where(liveToken(tokenHash)).run();
    if (claimed.meta.changes !== 1) throw invalidToken();
  }
  if (user.bannedAt) throw new ApiError("account_suspended", "This account has been suspended");
  return { user, session: await createSession(db, env, user.id) };
}

/**
 * The request options of a second step with a passkey: the token's account's passkeys named, a fresh challenge
 * stored beside the token (replacing an earlier one), user verification not asked for (the password was the first
 * factor). A dead token is 401 like at the second step; an account without passkeys, 404.
 */
export async function secondStepPasskeyOptions(db: DirectoryDb, env: Env, mfaToken: string) {
  const tokenHash = await sha256Hex(mfaToken);
  const found = await db
    .select({ userId: mfaTokens.userId })
    .from(mfaTokens)
    .innerJoin(users, eq(users.id, mfaTokens.userId))
    .where(and(liveToken(tokenHash), isNull(users.deletedAt)))
    .get();
  if (!found) throw invalidToken();
  const keys = await passkeysOf(db, found.userId);
  if (keys.length === 0) throw new ApiError("passkey_not_found", "This account has no passkey: finish with a code");
  const challenge = await newSecondStepChallenge(db, tokenHash);
  if (!challenge) throw invalidToken();
  return requestOptions(env, challenge, "discouraged", keys);
}

/** What the account page shows: the methods, TOTP's state, and how many recovery codes are left. */
export async function secondFactorStatus(env: Env, userId: string) {
  const { totp, recoveryLeft, methods } = await factorsAtPrimary(env, userId);
  const state: "off" | "pending" | "on" = !totp ? "off" : totp.confirmedAt ? "on" : "pending";
  return { methods, totp: { state, confirmedAt: totp?.confirmedAt?.toISOString() ?? null }, recoveryCodesRemaining: recoveryLeft };
}

/** What two-factor sign-in holds about the account, for its export: states and dates, never a seed or a hash. */
export async function secondFactorRecords(db: DirectoryDb, userId: string) {
  const [totp, keys, codes] = await Promise.all([
    findTotpFactor(db, userId),
    passkeysOf(db, userId),
    db.select({ createdAt: recoveryCodes.createdAt, usedAt: recoveryCodes.usedAt }).from(recoveryCodes).where(eq(recoveryCodes.userId, userId)).orderBy(asc(recoveryCodes.createdAt)),
  ]);
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  const lastUsedAt = totp?.lastUsedStep == null ? null : new Date(totp.lastUsedStep * MFA.totp.stepSeconds * 1000);
  return [
    ...(totp ? [{ method: "totp" as const, createdAt: totp.createdAt.toISOString(), confirmedAt: iso(totp.confirmedAt), usedAt: iso(lastUsedAt) }] : []),
    // A passkey is confirmed when it is registered; its name is the person's, its key material stays out.
    ...keys.map((k) => ({ method: "passkey" as const, name: k.name, createdAt: k.createdAt.toISOString(), confirmedAt: k.createdAt.toISOString(), usedAt: iso(k.lastUsedAt) })),
    ...codes.map((c) => ({ method: "recovery" as const, createdAt: c.createdAt.toISOString(), confirmedAt: null, usedAt: iso(c.usedAt) })),
  ];
}

/** The statements that drop the account's factors and waiting sign-ins and registrations (account deletion's batch). */
export const secondFactorDeletions = (db: DirectoryDb, userId: string) =>
  [
    db.delete(totpFactors).where(eq(totpFactors.userId, userId)),
    deleteRecoveryCodes(db, userId),
    db.delete(mfaTokens).where(eq(mfaTokens.userId, userId)),
    deletePasskeys(db, userId),
    db.delete(passkeyChallenges).where(eq(passkeyChallenges.userId, userId)),
  ] as const;
