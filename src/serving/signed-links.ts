// Signed, expiring links (extensions.md § 3) and the pages' owner links (`osig`). A share link's key is derived from
// SIGNED_URL_SECRET and the file's salt, so a revoke voids one file's links; an owner link's from the owner's id, so
// a page signs dozens of files without reading a row. Each has one spelling: what was signed is all there is
// (docs/files-and-serving.md § Signed, expiring links).
import { ApiError } from "../platform/errors/errors";
import { base64url, randomToken, timingSafeEqualString, utf8 } from "../platform/crypto/crypto";
import { VARIANT_PARAMS } from "./variants";
import type { Variant } from "./edge-cache";
import { goneError, goneReason, type LoadedFile, type ReadableFile } from "./access";
import { SIGNED_LINKS } from "../config";

const KEY_PURPOSE = "signed-link key v1\u0000";
const OWNER_KEY_PURPOSE = "owner-link key v1\u0000";
/** The query parameter of an owner link's signature (a share link's is `sig`). */
export const OWNER_SIG = "osig";
const SIG_CHARS = /^[A-Za-z0-9_-]{43}$/; // 32 bytes, base64url without padding
const EXP_DIGITS = /^[1-9]\d{0,11}$/; // as String(number) writes it: no leading zero

export const invalidSignature = () => new ApiError("invalid_link_signature", "The link's signature does not match: it was changed, or revoked");
export const linkExpired = () => new ApiError("signed_url_expired", "This signed link has expired");

/** A new salt for a file: 16 random bytes, base64url. */
export const newSigningSalt = () => randomToken(16);

/** What a byte link's query says about its signature: none (a plain link), or what to check. */
export type SignedQuery = { exp: number; sig: string; owner: boolean } | { malformed: true };

export function signedQuery(url: URL): SignedQuery | undefined {
  const q = url.searchParams;
  if (!q.has("sig") && !q.has(OWNER_SIG) && !q.has("exp")) return undefined;
  const owner = q.has(OWNER_SIG);
  const exp = q.get("exp") ?? "";
  const sigName = owner ? OWNER_SIG : "sig";
  const sig = q.get(sigName) ?? "";
  if ((owner && q.has("sig")) || !EXP_DIGITS.test(exp) || !SIG_CHARS.test(sig) || url.search !== canonicalSearch(q, exp, sigName, sig)) return { malformed: true };
  return { exp: Number(exp), sig, owner };
}

/** The query as the API writes it for these values: the variant parameters present, in their order, then exp and sig (or osig). */
function canonicalSearch(q: URLSearchParams, exp: string, sigName: string, sig: string): string {
  const canonical = new URLSearchParams();
  for (const name of VARIANT_PARAMS) {
    const value = q.get(name);
    if (value !== null) canonical.set(name, value);
  }
  canonical.set("exp", exp);
  canonical.set(sigName, sig);
  return `?${canonical}`;
}

let secretKey: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function hmac(key: CryptoKey, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(message)));
}

/** A key derived from SIGNED_URL_SECRET: HMAC(secret, purpose ‖ input). The secret's CryptoKey is kept per isolate. */
async function derivedKey(secret: string, purposeAndInput: string): Promise<CryptoKey> {
  if (!secret || secret.length < 32) throw new Error("SIGNED_URL_SECRET must be at least 32 characters");
  if (secretKey?.secret !== secret) secretKey = { secret, key: hmacKey(utf8(secret)) };
  return hmacKey(await hmac(await secretKey.key, purposeAndInput));
}

/** The file's link key: keyed by its salt, so a revoke (a new salt) voids its links. */
const fileKey = (secret: string, salt: string) => derivedKey(secret, KEY_PURPOSE + salt);

// Owners' keys, kept per isolate (a page render signs many links with one key), at most 256 of them.
let ownerKeys = { secret: "", keys: new Map<string, Promise<CryptoKey>>() };
function ownerKey(secret: string, userId: string): Promise<CryptoKey> {
  if (ownerKeys.secret !== secret) ownerKeys = { secret, keys: new Map() };
  const keys = ownerKeys.keys;
  let key = keys.get(userId);
  if (!key) {
    if (keys.size >= 256) keys.clear();
    key = derivedKey(secret, OWNER_KEY_PURPOSE + userId);
    keys.set(userId, key);
    key.catch(() => keys.delete(userId));
  }
  return key;
}

/** What is signed: unambiguous (JSON), every variant parameter in a fixed order, null when absent. */
function message(kind: "v1" | "owner-v1", fileId: string, variant: Variant, params: URLSearchParams, exp: number): string {
  return JSON.stringify([kind, fileId, variant, ...VARIANT_PARAMS.map((p) => params.get(p)), exp]);
}

/** The signature of a link to `variant` of the file with these variant parameters, valid until `exp` (unix seconds). */
export async function signLink(secret: string, salt: string, fileId: string, variant: Variant, params: URLSearchParams, exp: number): Promise<string> {
  return base64url(await hmac(await fileKey(secret, salt), message("v1", fileId, variant, params, exp)));
}

/** An owner link's signature: `ownerId`'s own view of `variant` of the file with these parameters, until `exp`. */
export async function signOwnerLink(secret: string, ownerId: string, fileId: string, variant: Variant, params: URLSearchParams, exp: number): Promise<string> {
  return base64url(await hmac(await ownerKey(secret, ownerId), message("owner-v1", fileId, variant, params, exp)));
}

/**
 * When owner links minted at `now` expire: the end of the next whole bucket, so they live one to two buckets and
 * a page rendered again within the bucket names the same URLs (the browser keeps its copy: a 304 at most).
 */
export function ownerLinkExp(now: number): number {
  const bucket = SIGNED_LINKS.ownerBucketSeconds;
  return (Math.floor(now / 1000 / bucket) + 2) * bucket;
}

/**
 * Throws 403 invalid_signature unless `query` signs this request for this file: under its current salt (a share
 * link; a file without a salt has never had one, so nothing matches) or its owner's key (an owner link).
 * Compared in constant time.
 */
export async function assertSignature(secret: string, file: SignedFile, variant: Variant, url: URL, query: SignedQuery): Promise<void> {
  if ("malformed" in query) throw invalidSignature();
  // An owner link is checked against the file's owner now: one minted by anybody else (or for an anonymous
  // upload, which has no owner) matches nothing.
  if (query.owner ? !file.userId : !file.signingSalt) throw invalidSignature();
  const expected = query.owner
    ? await signOwnerLink(secret, file.userId!, file.id, variant, url.searchParams, query.exp)
    : await signLink(secret, file.signingSalt!, file.id, variant, url.searchParams, query.exp);
  // The strings, not the decoded bytes: a 43-character base64url value has two spare bits in its last character,
  // so decoding would accept four spellings of one signature.
  if (!timingSafeEqualString(expected, query.sig)) throw invalidSignature();
}

type SignedFile = { id: string; userId: string | null; signingSalt?: string | null };

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
export async function signedFile<F extends ReadableFile & SignedFile>(
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
