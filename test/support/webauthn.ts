// A software authenticator for the passkey tests (no real one runs in workerd): an ES256 key pair from WebCrypto,
// "none" attestation, and the authenticator data, COSE key and CBOR written here byte by byte (WebAuthn L3 § 6.1
// and § 6.5, RFC 9052's COSE_Key, RFC 8949's CBOR), so the server verifies real signatures made without any of
// its own code or its library's. Each ceremony can be bent one way (origin, RP ID, type, counter, flags...) to
// show one rule at a time.

const enc = new TextEncoder();

export function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromB64url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// CBOR, the four kinds WebAuthn's structures use: integers, byte strings, text strings and maps.
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;
function head(major: number, n: number): Uint8Array {
  const m = major << 5;
  if (n < 24) return Uint8Array.of(m | n);
  if (n < 0x100) return Uint8Array.of(m | 24, n);
  if (n < 0x10000) return Uint8Array.of(m | 25, n >> 8, n & 0xff);
  return Uint8Array.of(m | 26, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}
export function cbor(v: Cbor): Uint8Array {
  if (typeof v === "number") return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === "string") {
    const b = enc.encode(v);
    return concat(head(3, b.length), b);
  }
  if (v instanceof Uint8Array) return concat(head(2, v.length), v);
  return concat(head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)]));
}

const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
const u32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);

/** WebCrypto signs ECDSA as r‖s; WebAuthn wants the ASN.1 DER SEQUENCE { INTEGER r, INTEGER s }. */
function derSignature(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b[i] & 0x80 ? concat(Uint8Array.of(0), b.slice(i)) : b.slice(i);
    return concat(Uint8Array.of(0x02, v.length), v);
  };
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(Uint8Array.of(0x30, body.length), body);
}

const FLAG = { UP: 0x01, UV: 0x04, AT: 0x40 };

export type SoftAuthenticator = {
  credentialId: Uint8Array;
  keys: CryptoKeyPair;
  /** The signature counter of the last ceremony; `counts: false` keeps it at 0 (as many passkey providers do). */
  counter: number;
  counts: boolean;
  /** The user handle the registration options gave (base64url), answered back by assertions. */
  userHandle?: string;
};

export async function newAuthenticator(opts: { counts?: boolean } = {}): Promise<SoftAuthenticator> {
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  return { credentialId: crypto.getRandomValues(new Uint8Array(32)), keys, counter: 0, counts: opts.counts ?? true };
}

export const credentialIdOf = (a: SoftAuthenticator) => b64url(a.credentialId);

/** How a ceremony is bent for a test; by default everything is as the server asked. */
export type Bend = {
  origin?: string;
  rpId?: string;
  challenge?: string;
  type?: string;
  /** The counter this answer reports, instead of the next one. */
  counter?: number;
  userPresent?: boolean;
  userVerified?: boolean;
  userHandle?: string | null;
  /** Sign with another key (the signature then does not match the stored public key). */
  signWith?: CryptoKeyPair;
  credentialId?: Uint8Array;
};

export const SITE_ORIGIN = "http://localhost:8787";
export const RP_ID = "localhost";

async function clientData(type: string, challenge: string, bend: Bend) {
  return enc.encode(JSON.stringify({ type: bend.type ?? type, challenge: bend.challenge ?? challenge, origin: bend.origin ?? SITE_ORIGIN, crossOrigin: false }));
}

async function authData(a: SoftAuthenticator, rpId: string | undefined, bend: Bend, attested?: Uint8Array) {
  const flags = (bend.userPresent === false ? 0 : FLAG.UP) | (bend.userVerified === false ? 0 : FLAG.UV) | (attested ? FLAG.AT : 0);
  const counter = bend.counter ?? a.counter;
  return concat(await sha256(enc.encode(bend.rpId ?? rpId ?? RP_ID)), Uint8Array.of(flags), u32(counter), attested ?? new Uint8Array());
}

/** The COSE_Key of an ES256 public key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y. */
async function coseKey(keys: CryptoKeyPair): Promise<Uint8Array> {
  const jwk = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey;
  return cbor(new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, fromB64url(jwk.x!)], [-3, fromB64url(jwk.y!)]]));
}

type CreationOptions = { challenge: string; rp: { id?: string }; user: { id: string } };
type RequestOptions = { challenge: string; rpId?: string };

/** navigator.credentials.create() as the browser would answer it (RegistrationResponseJSON), "none" attestation. */
export async function attest(a: SoftAuthenticator, options: CreationOptions, bend: Bend = {}) {
  a.userHandle = options.user.id;
  const credentialId = bend.credentialId ?? a.credentialId;
  const attested = concat(new Uint8Array(16), Uint8Array.of(credentialId.length >> 8, credentialId.length & 0xff), credentialId, await coseKey(a.keys));
  const data = await authData(a, options.rp.id, bend, attested);
  const attestationObject = cbor(new Map<Cbor, Cbor>([["fmt", "none"], ["attStmt", new Map()], ["authData", data]]));
  const id = b64url(credentialId);
  return {
    id,
    rawId: id,
    type: "public-key",
    response: { clientDataJSON: b64url(await clientData("webauthn.create", options.challenge, bend)), attestationObject: b64url(attestationObject), transports: ["internal"] },
    clientExtensionResults: {},
    authenticatorAttachment: "platform",
  };
}

/** navigator.credentials.get() as the browser would answer it (AuthenticationResponseJSON); the counter moves on. */
export async function assertWith(a: SoftAuthenticator, options: RequestOptions, bend: Bend = {}) {
  if (a.counts && bend.counter === undefined) a.counter += 1;
  const data = await authData(a, options.rpId, bend);
  const client = await clientData("webauthn.get", options.challenge, bend);
  const signed = concat(data, await sha256(client));
  const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, (bend.signWith ?? a.keys).privateKey, signed));
  const id = b64url(bend.credentialId ?? a.credentialId);
  const userHandle = bend.userHandle === undefined ? a.userHandle : bend.userHandle;
  return {
    id,
    rawId: id,
    type: "public-key",
    response: { clientDataJSON: b64url(client), authenticatorData: b64url(data), signature: b64url(derSignature(raw)), ...(userHandle ? { userHandle } : {}) },
    clientExtensionResults: {},
    authenticatorAttachment: "platform",
  };
}
