// Signed, expiring links to a file's bytes (extensions.md § 3): `{image_url}/<id>?<variant params>&exp=<unix>&sig=`.
// The signature is HMAC-SHA-256 over the file id, the path (original or thumbnail), every variant parameter
// (w, h, fit, q, format: present or absent, as the URL has them, so adding `q` or changing `w` breaks it) and
// `exp`, under a key derived from the Worker secret SIGNED_URL_SECRET and the file's own random salt
// (files.signing_salt). Replacing the salt (a revoke) voids every link made before; the secret alone would void
// every link of every file. The salt travels in the edge-cached access records (access.ts, SERVED_FIELDS), so a
// signed view whose records hit is checked with no D1 read; the secret never leaves the Worker.
// A signed link has one spelling, the one the API writes (the variant parameters, then exp, then sig, each once):
// any other parameter, a repeat or another spelling of a value is refused, so what was signed is all there is.
import { ApiError } from "../platform/errors";
import { base64url, randomToken, timingSafeEqualString, utf8 } from "../platform/crypto";
import { VARIANT_PARAMS } from "./variants";
import type { Variant } from "./edge-cache";
import { goneError, goneReason, type LoadedFile, type ReadableFile } from "./access";

const KEY_PURPOSE = "signed-link key v1\u0000";
const SIG_CHARS = /^[A-Za-z0-9_-]{43}$/; // 32 bytes, base64url without padding
const EXP_DIGITS = /^[1-9]\d{0,11}$/; // as String(number) writes it: no leading zero

export const invalidSignature = () => new ApiError("invalid_link_signature", "The link's signature does not match: it was changed, or revoked");
export const linkExpired = () => new ApiError("signed_url_expired", "This signed link has expired");

/** A new salt for a file: 16 random bytes, base64url. */
export const newSigningSalt = () => randomToken(16);

/** What a byte link's query says about its signature: none (a plain link), or what to check. */
export type SignedQuery = { exp: number; sig: string } | { malformed: true };

export function signedQuery(url: URL): SignedQuery | undefined {
  const q = url.searchParams;
  if (!q.has("sig") && !q.has("exp")) return undefined;
  const exp = q.get("exp") ?? "";
  const sig = q.get("sig") ?? "";
  if (!EXP_DIGITS.test(exp) || !SIG_CHARS.test(sig) || url.search !== canonicalSearch(q, exp, sig)) return { malformed: true };
  return { exp: Number(exp), sig };
}

/** The query as the API writes it for these values: the variant parameters present, in their order, then exp and sig. */
function canonicalSearch(q: URLSearchParams, exp: string, sig: string): string {
  const canonical = new URLSearchParams();
  for (const name of VARIANT_PARAMS) {
    const value = q.get(name);
    if (value !== null) canonical.set(name, value);
  }
  canonical.set("exp", exp);
  canonical.set("sig", sig);
  return `?${canonical}`;
}

let secretKey: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function hmac(key: CryptoKey, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(message)));
}

/** The file's link key: HMAC(SIGNED_URL_SECRET, purpose ‖ salt). The secret's CryptoKey is kept per isolate. */
async function fileKey(secret: string, salt: string): Promise<CryptoKey> {
  if (!secret || secret.length < 32) throw new Error("SIGNED_URL_SECRET must be at least 32 characters");
  if (secretKey?.secret !== secret) secretKey = { secret, key: hmacKey(utf8(secret)) };
  return hmacKey(await hmac(await secretKey.key, KEY_PURPOSE + salt));
}

/** What is signed: unambiguous (JSON), every variant parameter in a fixed order, null when absent. */
function message(fileId: string, variant: Variant, params: URLSearchParams, exp: number): string {
  return JSON.stringify(["v1", fileId, variant, ...VARIANT_PARAMS.map((p) => params.get(p)), exp]);
}

/** The signature of a link to `variant` of the file with these variant parameters, valid until `exp` (unix seconds). */
export async function signLink(secret: string, salt: string, fileId: string, variant: Variant, params: URLSearchParams, exp: number): Promise<string> {
  return base64url(await hmac(await fileKey(secret, salt), message(fileId, variant, params, exp)));
}

/**
 * Throws 403 invalid_signature unless `query` signs this request for this file under its current salt
 * (compared in constant time). A file without a salt has never had a link: nothing matches.
 */
export async function assertSignature(secret: string, file: { id: string; signingSalt?: string | null }, variant: Variant, url: URL, query: SignedQuery): Promise<void> {
  if ("malformed" in query || !file.signingSalt) throw invalidSignature();
  // The strings, not the decoded bytes: a 43-character base64url value has two spare bits in its last character,
  // so decoding would accept four spellings of one signature.
  const expected = await signLink(secret, file.signingSalt, file.id, variant, url.searchParams, query.exp);
  if (!timingSafeEqualString(expected, query.sig)) throw invalidSignature();
}

/** 403 signed_url_expired once `exp` has passed; checked before the file is looked up (it tells nothing). */
export function assertNotExpired(query: SignedQuery, now: number): void {
  if ("malformed" in query) throw invalidSignature();
  if (query.exp * 1000 <= now) throw linkExpired();
}

/**
 * The file a signed link may serve: the signature must hold for it (else 403, whether or not the file exists:
 * the answer tells a stranger nothing), then the file must be live apart from its visibility (410: deleted,
 * hidden, quarantined, banned, expired, its owner gone).
 */
export async function signedFile<F extends ReadableFile & { id: string; signingSalt?: string | null }>(
  secret: string,
  loaded: LoadedFile<F> | undefined,
  variant: Variant,
  url: URL,
  query: SignedQuery,
  now: number,
): Promise<F> {
  if (!loaded || loaded.file.state !== "finalized") throw invalidSignature();
  await assertSignature(secret, loaded.file, variant, url, query);
  const reason = goneReason(loaded, now);
  if (reason) throw goneError(reason);
  return loaded.file;
}
