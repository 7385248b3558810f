// Secrets the server must read back (a TOTP seed cannot be hashed: the server computes codes from it) are stored
// sealed with AES-256-GCM under a key derived by HKDF-SHA-256 from a server secret (a Worker secret, never in
// D1) and a purpose label, so one server secret can key several uses without their keys meeting. The record
// the secret belongs to (e.g. the user id) is the additional data: a sealed value copied onto another record
// does not open. Format: "v1.<iv>.<ciphertext+tag>", base64url; the version leaves room for a rotation.
import { base64url, fromBase64url, utf8 } from "./crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const SALT = utf8("imghost secret-box v1");

async function keyFor(serverSecret: string, purpose: string): Promise<CryptoKey> {
  if (!serverSecret || serverSecret.length < 32) throw new Error("The server secret that seals stored secrets must be at least 32 characters");
  const material = await crypto.subtle.importKey("raw", utf8(serverSecret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: SALT, info: utf8(purpose) }, material, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

/** Seals `secret` for the record named `boundTo`. */
export async function sealSecret(serverSecret: string, purpose: string, secret: Uint8Array, boundTo: string): Promise<string> {
  const key = await keyFor(serverSecret, purpose);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: utf8(boundTo) }, key, secret));
  return `${VERSION}.${base64url(iv)}.${base64url(sealed)}`;
}

/** The secret, or null when the value was not sealed by this server secret, for this purpose and record. */
export async function openSecret(serverSecret: string, purpose: string, sealed: string, boundTo: string): Promise<Uint8Array | null> {
  const parts = sealed.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) return null;
  const key = await keyFor(serverSecret, purpose);
  try {
    const iv = fromBase64url(parts[1]);
    if (iv.byteLength !== IV_BYTES) return null;
    return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: utf8(boundTo) }, key, fromBase64url(parts[2])));
  } catch {
    return null; // a changed byte, a cut, a foreign key: AES-GCM's tag does not verify
  }
}
