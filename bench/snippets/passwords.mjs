// Cases for bench/passwords.bench.mjs, run inside workerd by inWorkerd(). Each export is one operation.
// A fresh random salt per call, like a real signup; the password is a typical length.
import { scrypt } from "@noble/hashes/scrypt.js";
import { argon2id } from "@noble/hashes/argon2.js";
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { hashPassword, verifyPassword } from "../../src/platform/crypto/passwords.ts";

const PASSWORD = "correct horse battery staple";
const passwordBytes = new TextEncoder().encode(PASSWORD);
const salt = () => crypto.getRandomValues(new Uint8Array(16));

/** Baseline: one SHA-256 of the password via WebCrypto. */
export async function sha256WebCrypto() {
  await crypto.subtle.digest("SHA-256", passwordBytes);
}

/** What signup does: src/platform/crypto/passwords.ts hashPassword (PBKDF2-HMAC-SHA256, config iterations). */
export async function ourHashPassword() {
  await hashPassword(PASSWORD);
}

let stored;
/** What login does: verifyPassword against a stored hash. */
export async function ourVerifyPassword() {
  stored ??= await hashPassword(PASSWORD);
  const r = await verifyPassword(PASSWORD, stored);
  if (!r.ok) throw new Error("verify failed");
}

/**
 * PBKDF2-HMAC-SHA256 via WebCrypto, one call. Production Workers refuse more than 100,000 iterations;
 * local workerd does not (probe: pbkdf2SingleCall), so higher counts can be timed here to show their cost.
 */
export async function pbkdf2WebCrypto({ iterations = 100_000 } = {}) {
  const key = await crypto.subtle.importKey("raw", passwordBytes, "PBKDF2", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: salt(), iterations }, key, 256));
}

/** Does this runtime refuse a single PBKDF2 call above 100k iterations? Returns the error text, or "" when it runs. */
export async function pbkdf2SingleCall({ iterations = 600_000 } = {}) {
  try {
    const key = await crypto.subtle.importKey("raw", passwordBytes, "PBKDF2", false, ["deriveBits"]);
    await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: salt(), iterations }, key, 256);
    return "";
  } catch (err) {
    return String(err?.message ?? err);
  }
}

/** PBKDF2-HMAC-SHA256 in pure JS (@noble/hashes), to show what the native WebCrypto path saves. */
export function pbkdf2NobleJs({ iterations = 100_000 } = {}) {
  return pbkdf2(sha256, passwordBytes, salt(), { c: iterations, dkLen: 32 });
}

/** scrypt (@noble/hashes, pure JS): N = 2^logN, r = 8, p = 1. Memory: 128 * r * N bytes (2^15 -> 32 MiB). */
export function scryptNoble({ logN = 15, r = 8, p = 1 } = {}) {
  return scrypt(passwordBytes, salt(), { N: 2 ** logN, r, p, dkLen: 32 });
}

/** argon2id (@noble/hashes, pure JS): OWASP's first option, m = 19 MiB, t = 2, p = 1. */
export function argon2idNoble({ m = 19 * 1024, t = 2, p = 1 } = {}) {
  return argon2id(passwordBytes, salt(), { m, t, p, dkLen: 32 });
}
