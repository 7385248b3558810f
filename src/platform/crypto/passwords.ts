// Password hashes are self-describing: `pbkdf2-sha256$i=<iterations>$<salt>$<hash>` (salt and hash base64url).
// PBKDF2-HMAC-SHA256 runs natively in WebCrypto; production Workers refuse more than 100,000 iterations,
// so that is both our target and our ceiling. bench/passwords.bench.mjs compares it with scrypt and argon2id
// from @noble/hashes (pure JS inside workerd) and docs/accounts.md explains the choice.
import { base64url, fromBase64url, timingSafeEqual, utf8 } from "./crypto";
import { PASSWORD_HASH } from "../../config/auth";

const ALGORITHM = "pbkdf2-sha256";
const KEY_BITS = 256;

type Parsed = { algorithm: string; iterations: number; salt: Uint8Array; hash: Uint8Array };

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", utf8(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, KEY_BITS);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, iterations = PASSWORD_HASH.iterations): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await pbkdf2(password, salt, iterations);
  return `${ALGORITHM}$i=${iterations}$${base64url(salt)}$${base64url(hash)}`;
}

function parse(stored: string): Parsed | null {
  const parts = stored.split("$");
  if (parts.length !== 4 || parts[0] !== ALGORITHM) return null;
  const m = /^i=(\d{1,7})$/.exec(parts[1]);
  if (!m) return null;
  const iterations = Number(m[1]);
  if (iterations < 1 || iterations > PASSWORD_HASH.maxIterations) return null;
  return { algorithm: parts[0], iterations, salt: fromBase64url(parts[2]), hash: fromBase64url(parts[3]) };
}

export type VerifyResult = { ok: boolean; needsRehash: boolean };

export async function verifyPassword(password: string, stored: string): Promise<VerifyResult> {
  const parsed = parse(stored);
  if (!parsed) return { ok: false, needsRehash: false };
  const candidate = await pbkdf2(password, parsed.salt, parsed.iterations);
  const ok = timingSafeEqual(candidate, parsed.hash);
  return { ok, needsRehash: ok && parsed.iterations !== PASSWORD_HASH.iterations };
}

let dummyHash: Promise<string> | undefined;
/** Spends the same work as a real verification, so an unknown e-mail is not faster than a wrong password. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword("dummy-password-for-timing");
  await verifyPassword(password, await dummyHash);
}
