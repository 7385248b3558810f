// Signing in with a passkey (extensions.md §5), both ways: without a password (POST /auth/passkeys/login) and as the
// second step after the password (second-factor.ts). The challenge is used up before the answer is checked, and
// failed answers count in the login guard like wrong passwords and codes. What an answer must carry, and why user
// verification is asked for only without a password: docs/accounts.md § Passkeys.
import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { z } from "@hono/zod-openapi";
import { directoryDb, type DirectoryDb } from "../platform/data/db";
import type { UserRow } from "../db/schema";
import { fromBase64url } from "../platform/crypto/crypto";
import { ApiError } from "../platform/errors/errors";
import { PASSKEYS } from "../config/auth";
import { createSession, type SessionBody } from "./sessions";
import { countIpLoginAttempt, passkeyAnswerGuarded } from "./login-guard";
import { challengeOf, claimChallenge, newChallenge, relyingParty } from "./passkey-challenges";
import { findCredential, recordUse, userHandleOf, type PasskeyRow } from "./passkey-store";
import { asAuthenticationResponse, type AuthenticationCredential } from "./passkey-schemas";

type Credential = z.output<typeof AuthenticationCredential>;

/** Request options for `challenge`: `allow` names the credentials of a second step; empty, any discoverable one. */
export function requestOptions(env: Env, challenge: Uint8Array<ArrayBuffer>, userVerification: "required" | "discouraged", allow: PasskeyRow[] = []) {
  return generateAuthenticationOptions({
    rpID: relyingParty(env).id,
    challenge,
    timeout: PASSKEYS.challengeSeconds * 1000,
    userVerification,
    allowCredentials: allow.map((k) => ({ id: k.credentialId, ...(k.transports ? { transports: k.transports } : {}) })),
  });
}

/** The options of a sign-in without a password: no account is named (the authenticator offers its passkeys). */
export async function passwordlessOptions(db: DirectoryDb, env: Env) {
  return requestOptions(env, await newChallenge(db, "login", null), "required");
}

export const invalidPasskey = () => new ApiError("invalid_passkey", "The passkey was not accepted: try again");

/** An answer naming a user handle names the credential's account (WebAuthn L3 § 7.2 step 6). */
const handleMatches = (response: AuthenticationResponseJSON, userId: string) => !response.response.userHandle || response.response.userHandle === userHandleOf(userId);

/** Verifies `row`'s answer to `challenge` (already claimed) and records the use; false on any failure. */
async function answerOk(db: DirectoryDb, env: Env, row: PasskeyRow, response: AuthenticationResponseJSON, challenge: string, requireUserVerification: boolean): Promise<boolean> {
  const rp = relyingParty(env);
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    expectedType: "webauthn.get",
    requireUserVerification,
    credential: { id: row.credentialId, publicKey: new Uint8Array(fromBase64url(row.publicKey)), counter: row.counter },
  }).catch(() => null); // a malformed answer, a bad signature, a counter gone backwards...: all a refusal
  if (!verified?.verified) return false;
  return recordUse(db, row, verified.authenticationInfo.newCounter);
}

/**
 * POST /auth/passkeys/login without an mfaToken: the challenge claimed, the credential looked up, the answer checked
 * inside the login guard (counted for the credential and the IP first, never the address, so wrong passwords for the
 * address never refuse a good answer; an unknown credential counts for the IP).
 */
export async function signInWithPasskey(db: DirectoryDb, env: Env, credential: Credential, ip: string): Promise<{ user: UserRow; session: SessionBody }> {
  const response = asAuthenticationResponse(credential);
  const challenge = challengeOf(response);
  const claimed = challenge !== null && (await claimChallenge(db, challenge, "login", null));
  // The credential and its account's ban flag from D1's primary (a client's old bookmark may point `db` at a
  // replica that has not seen a removal or a ban yet).
  const found = await findCredential(directoryDb(env), response.id);
  if (!found) {
    await countIpLoginAttempt(env, ip);
    throw invalidPasskey();
  }
  const { passkey, user } = found;
  const ok = await passkeyAnswerGuarded(env, passkey.id, ip, async () => claimed && handleMatches(response, user.id) && answerOk(db, env, passkey, response, challenge!, true));
  if (!ok) throw invalidPasskey();
  if (user.bannedAt) throw new ApiError("account_suspended", "This account has been suspended");
  return { user, session: await createSession(db, env, user.id) };
}

/**
 * The second step's proof (second-factor.ts, inside its login guard): an answer of one of `userId`'s passkeys to
 * the challenge `claim` uses up (the one beside the mfaToken).
 */
export async function secondStepAnswerOk(db: DirectoryDb, env: Env, userId: string, credential: Credential, claim: (challenge: string) => Promise<boolean>): Promise<boolean> {
  const response = asAuthenticationResponse(credential);
  const challenge = challengeOf(response);
  if (challenge === null || !(await claim(challenge))) return false;
  const found = await findCredential(db, response.id);
  if (!found || found.user.id !== userId || !handleMatches(response, userId)) return false;
  return answerOk(db, env, found.passkey, response, challenge, false);
}
