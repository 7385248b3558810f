// WebAuthn challenges (extensions.md §5) and the relying party they are for. Stored only as a hash and claimed once,
// by one conditional statement, before the answer is verified: of two answers to one challenge one goes on, and a
// failed answer spends it too. Where each kind lives and for how long: docs/accounts.md § Passkeys (Challenges).
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { mfaTokens, passkeyChallenges } from "../db/schema";
import { base64url, fromBase64url, sha256Hex } from "../platform/crypto/crypto";
import { MFA, PASSKEYS } from "../config/auth";
import { config } from "../config/env";

/** The relying party is the site: its host is the RP ID, its origin the only one an answer may come from. */
export function relyingParty(env: Env) {
  const site = new URL(config(env).siteUrl);
  return { id: site.hostname, origin: site.origin, name: MFA.issuer };
}

/** A fresh challenge: the bytes for the options, and the base64url text the browser's answer will carry. */
function freshChallenge() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return { bytes, text: base64url(bytes) };
}

const hashOf = (challenge: string) => sha256Hex(`webauthn-challenge:${challenge}`);

export type ChallengePurpose = "register" | "login";

/** A challenge for a registration (`userId`: the account's) or a sign-in without a password (`userId` null). */
export async function newChallenge(db: DirectoryDb, purpose: ChallengePurpose, userId: string | null): Promise<Uint8Array<ArrayBuffer>> {
  const { bytes, text } = freshChallenge();
  const now = Date.now();
  await db.insert(passkeyChallenges).values({ challengeHash: await hashOf(text), purpose, userId, createdAt: new Date(now), expiresAt: new Date(now + PASSKEYS.challengeSeconds * 1000) });
  return bytes;
}

/** Uses up the challenge if it is live and was given for this purpose and account: true for exactly one caller. */
export async function claimChallenge(db: DirectoryDb, challenge: string, purpose: ChallengePurpose, userId: string | null): Promise<boolean> {
  const claimed = await db
    .delete(passkeyChallenges)
    .where(
      and(
        eq(passkeyChallenges.challengeHash, await hashOf(challenge)),
        eq(passkeyChallenges.purpose, purpose),
        userId === null ? isNull(passkeyChallenges.userId) : eq(passkeyChallenges.userId, userId),
        gt(passkeyChallenges.expiresAt, new Date()),
      ),
    )
    .run();
  return claimed.meta.changes === 1;
}

const liveToken = (tokenHash: string) => and(eq(mfaTokens.tokenHash, tokenHash), isNull(mfaTokens.usedAt), gt(mfaTokens.expiresAt, new Date()));

/** The second step's challenge, stored beside its live token (replacing an earlier one); null when the token is dead. */
export async function newSecondStepChallenge(db: DirectoryDb, tokenHash: string): Promise<Uint8Array<ArrayBuffer> | null> {
  const { bytes, text } = freshChallenge();
  const set = await db.update(mfaTokens).set({ passkeyChallengeHash: await hashOf(text) }).where(liveToken(tokenHash)).run();
  return set.meta.changes === 1 ? bytes : null;
}

/** Uses up the challenge beside a live token: true for exactly one caller, and only for that token's latest one. */
export async function claimSecondStepChallenge(db: DirectoryDb, tokenHash: string, challenge: string): Promise<boolean> {
  const claimed = await db
    .update(mfaTokens)
    .set({ passkeyChallengeHash: null })
    .where(and(liveToken(tokenHash), eq(mfaTokens.passkeyChallengeHash, await hashOf(challenge))))
    .run();
  return claimed.meta.changes === 1;
}

/** The challenge an answer says it signed (clientDataJSON's), or null when it cannot be read. */
export function challengeOf(response: { response: { clientDataJSON: string } }): string | null {
  try {
    const client: unknown = JSON.parse(new TextDecoder().decode(fromBase64url(response.response.clientDataJSON)));
    const challenge = (client as { challenge?: unknown })?.challenge;
    return typeof challenge === "string" && challenge.length > 0 && challenge.length <= 128 ? challenge : null;
  } catch {
    return null;
  }
}

/** The cron's purge: challenges past their life (a claimed one is already gone). */
export const deleteExpiredChallenges = (db: DirectoryDb, now: Date) => db.delete(passkeyChallenges).where(lt(passkeyChallenges.expiresAt, now)).run();
