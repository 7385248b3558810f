// Registering and removing passkeys (extensions.md §5) with @simplewebauthn/server (WebCrypto only: it runs on Workers
// as it is); the relying party is SITE_URL's (./passkey-challenges.ts). Only "none" attestation is asked for (which
// maker built the authenticator is not our business), so only the public key and the counter are kept. Factors,
// recovery codes and mails: docs/accounts.md § Passkeys.
import { generateRegistrationOptions, verifyRegistrationResponse } from "@simplewebauthn/server";
import type { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { runBatch, type DirectoryDb } from "../platform/data/db";
import { passkeys, type UserRow } from "../db/schema";
import { base64url, utf8 } from "../platform/crypto/crypto";
import { newId } from "../platform/data/ids";
import { ApiError, unauthorized } from "../platform/errors/errors";
import { PASSKEYS } from "../config/auth";
import { queueMail } from "../mail/outbox";
import { findUserById } from "./queries";
import { guardedCheck, reenteredPasswordOk } from "./login-guard";
import { findTotpFactor, totpCodeOk } from "./totp-factor";
import { deleteRecoveryCodes, newRecoveryCodes } from "./recovery-codes";
import { challengeOf, claimChallenge, newChallenge, relyingParty } from "./passkey-challenges";
import { passkeyCount, passkeyResource, passkeysOf } from "./passkey-store";
import { asRegistrationResponse, type RegistrationCredential } from "./passkey-schemas";
import { revokeOtherSessions } from "./sessions";
import { forgetSessions } from "./principal-records";

/** COSE algorithms offered: EdDSA, ES256 (what nearly every authenticator makes), RS256 (Windows Hello). */
const ALGORITHMS = [-8, -7, -257];

async function liveUser(db: DirectoryDb, userId: string): Promise<UserRow> {
  const user = await findUserById(db, userId);
  if (!user || user.deletedAt) throw unauthorized();
  return user;
}

/**
 * The options for navigator.credentials.create(): discoverable credentials required (a passkey is what "Sign in with
 * a passkey" finds without a name typed), user verification preferred (required only when signing in without
 * the password), the account's passkeys excluded so one authenticator is not registered twice.
 */
export async function registrationOptions(db: DirectoryDb, env: Env, userId: string) {
  const user = await liveUser(db, userId);
  const rp = relyingParty(env);
  const [existing, challenge] = await Promise.all([passkeysOf(db, userId), newChallenge(db, "register", userId)]);
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.username,
    userID: new Uint8Array(utf8(user.id)),
    challenge,
    timeout: PASSKEYS.challengeSeconds * 1000,
    attestationType: "none",
    excludeCredentials: existing.map((k) => ({ id: k.credentialId, ...(k.transports ? { transports: k.transports } : {}) })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
}

/** Verifies the answer to the account's registration options and stores the credential. */
export async function registerPasskey(db: DirectoryDb, env: Env, userId: string, name: string, credential: z.output<typeof RegistrationCredential>) {
  const user = await liveUser(db, userId);
  const [count, totp] = await Promise.all([passkeyCount(db, userId), findTotpFactor(db, userId)]);
  if (count >= PASSKEYS.maxPerUser) throw new ApiError("too_many_passkeys", `An account can have at most ${PASSKEYS.maxPerUser} passkeys; remove one first`);
  const response = asRegistrationResponse(credential);
  const challenge = challengeOf(response);
  if (challenge === null) throw invalidRegistration();
  // Claimed before the answer is checked: whatever the outcome, a challenge serves one answer.
  if (!(await claimChallenge(db, challenge, "register", userId))) {
    throw new ApiError("invalid_passkey_challenge", "This registration expired or was already used, or is another account's: start again");
  }
  const rp = relyingParty(env);
  const verified = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    expectedType: "webauthn.create",
    requireUserVerification: false,
    supportedAlgorithmIDs: ALGORITHMS,
  }).catch(() => null);
  if (!verified?.verified) throw invalidRegistration();
  const { credential: made } = verified.registrationInfo;
  const row = {
    id: newId("psk"),
    userId,
    name,
    credentialId: made.id,
    publicKey: base64url(made.publicKey),
    counter: made.counter,
    transports: made.transports?.length ? [...made.transports] : null,
    createdAt: new Date(),
    lastUsedAt: null,
  };
  // The credential ID is unique across accounts: the same authenticator key cannot belong to two.
  const stored = await db.insert(passkeys).values(row).onConflictDoNothing({ target: passkeys.credentialId }).run();
  if (stored.meta.changes !== 1) throw new ApiError("passkey_already_registered", "This passkey is already registered");
  // The account's first second factor: the recovery codes come with it (TOTP's confirmation issues them likewise).
  let recoveryCodes: string[] | undefined;
  if (count === 0 && !totp?.confirmedAt) {
    const issued = await newRecoveryCodes(db, userId, row.createdAt);
    await runBatch(db, issued.statements);
    recoveryCodes = issued.codes;
  }
  await queueMail(db, env, user.email, { kind: "passkey_added", username: user.username, email: user.email, at: row.createdAt, name });
  return { ...passkeyResource(row), ...(recoveryCodes ? { recoveryCodes } : {}) };
}

const invalidRegistration = () => new ApiError("invalid_passkey_registration", "The authenticator's answer could not be verified for this site: try again");

export const listPasskeys = async (db: DirectoryDb, userId: string) => ({ passkeys: (await passkeysOf(db, userId)).map(passkeyResource) });

export type RemovalProof = { code: string } | { password: string };

/**
 * Removes one of the account's passkeys with the password or a current TOTP code (either counted in the login
 * guard like a login), and mails the account. When no second factor is left, the recovery codes go too. Every
 * other session of the account ends (the passkey may have opened it; the caller's, `sessionId`, stays).
 */
export async function removePasskey(db: DirectoryDb, env: Env, userId: string, sessionId: string, passkeyId: string, proof: RemovalProof, ip: string): Promise<void> {
  const user = await liveUser(db, userId);
  const row = await db.select().from(passkeys).where(and(eq(passkeys.id, passkeyId), eq(passkeys.userId, userId))).get();
  if (!row) throw new ApiError("passkey_not_found", "No such passkey on this account");
  if ("password" in proof) {
    if (!(await reenteredPasswordOk(env, user, proof.password, ip))) throw new ApiError("invalid_password", "The password is not correct");
  } else if (!(await guardedCheck(env, user.email, ip, () => totpCodeOk(db, env, userId, proof.code)))) {
    throw new ApiError("invalid_totp_code", "The authenticator code is wrong, already used or outside its time window");
  }
  const [count, totp] = await Promise.all([passkeyCount(db, userId), findTotpFactor(db, userId)]);
  const lastFactor = count === 1 && !totp?.confirmedAt;
  const [, revoked] = await runBatch<{ id: string }>(db, [
    db.delete(passkeys).where(eq(passkeys.id, row.id)),
    revokeOtherSessions(db, userId, sessionId, "passkey_removed"),
    ...(lastFactor ? [deleteRecoveryCodes(db, userId)] : []),
  ]);
  await forgetSessions(env, revoked.results.map((r) => r.id)); // their access tokens stop at once, also where warm
  const confirmedWith = "password" in proof ? "password" : "code";
  await queueMail(db, env, user.email, { kind: "passkey_removed", username: user.username, email: user.email, at: new Date(), name: row.name, confirmedWith, lastFactor });
}
