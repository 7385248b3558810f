// What a security mail says about the account as it stands, so a person who did not make the change knows what
// else to check: the second factors that still sign in and the API keys that still work (a password change or
// reset leaves both in place).
import { and, count, eq, gt, isNull, or } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { apiKeys } from "../db/schema";
import { findTotpFactor } from "./totp-factor";
import { passkeysOf } from "./passkey-store";
import { quoted } from "../mail/layout";


async function liveKeyCount(db: DirectoryDb, userId: string): Promise<number> {
  const live = and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, new Date())));
  return (await db.select({ n: count() }).from(apiKeys).where(live).get())?.n ?? 0;
}

/** Two lines: the second factors left on the account and the number of API keys that still work. */
export async function whatRemains(db: DirectoryDb, userId: string): Promise<string> {
  const [totp, keys, keyCount] = await Promise.all([findTotpFactor(db, userId), passkeysOf(db, userId), liveKeyCount(db, userId)]);
  const factors = [...(totp?.confirmedAt ? ["an authenticator app (TOTP)"] : []), ...keys.map((k) => `passkey ${quoted(k.name)}`)];
  const factorLine = factors.length ? `Second factors on the account: ${factors.join(", ")}.` : "The account has no second factor.";
  const keyLine = keyCount === 0 ? "It has no API keys." : `${keyCount} API key${keyCount === 1 ? "" : "s"} of the account still work${keyCount === 1 ? "s" : ""}.`;
  return `${factorLine}\n${keyLine}`;
}
