// RFC 6238 time-based one-time passwords over WebCrypto's HMAC-SHA-1 (RFC 4226's HOTP of the 30-second step
// number), base32 (RFC 4648) for the secret people type or scan, and the otpauth URL authenticator apps read.
// No library: the algorithm is a dozen lines over a primitive Workers run natively, and the RFC's own test
// vectors hold it (test/platform/crypto/totp.test.ts).
import { MFA } from "../../config/auth";
import { timingSafeEqualString } from "./crypto";

const { digits: DIGITS, stepSeconds: STEP_SECONDS } = MFA.totp;

/** The step number of an instant (ms): whole 30-second periods since the Unix epoch. */
export const totpStep = (ms: number): number => Math.floor(ms / 1000 / STEP_SECONDS);

/** RFC 4226 HOTP: HMAC-SHA-1 of the 8-byte big-endian counter, dynamically truncated to `digits` digits. */
export async function hotp(secret: Uint8Array, counter: number, digits = DIGITS): Promise<string> {
  const message = new Uint8Array(8);
  const view = new DataView(message.buffer);
  view.setUint32(0, Math.floor(counter / 2 ** 32));
  view.setUint32(4, counter >>> 0);
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The code of the step `ms` falls in. */
export const totpAt = (secret: Uint8Array, ms: number): Promise<string> => hotp(secret, totpStep(ms));

const CODE = new RegExp(`^[0-9]{${DIGITS}}$`);

/**
 * The steps within MFA.totpWindowSteps of `ms` whose code is `code`, earliest first (empty: no match). Every
 * step is computed and compared in constant time, so the answer's timing does not say which one matched.
 */
export async function matchingSteps(secret: Uint8Array, code: string, ms: number): Promise<number[]> {
  if (!CODE.test(code)) return [];
  const now = totpStep(ms);
  const steps: number[] = [];
  for (let step = now - MFA.totpWindowSteps; step <= now + MFA.totpWindowSteps; step++) steps.push(step);
  const codes = await Promise.all(steps.map((step) => hotp(secret, step)));
  return steps.filter((_, i) => timingSafeEqualString(codes[i], code));
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding, as authenticator apps take secrets. */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Base32 as people may type it (any case, spaces, padding); null when a character is not base32. */
export function base32Decode(text: string): Uint8Array | null {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = ALPHABET.indexOf(ch);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** The Key Uri Format URL (`otpauth://totp/...`) that a QR code hands to an authenticator app. */
export function otpauthUrl(p: { issuer: string; account: string; secret: string }): string {
  const label = `${encodeURIComponent(p.issuer)}:${encodeURIComponent(p.account)}`;
  const query = new URLSearchParams({ secret: p.secret, issuer: p.issuer, algorithm: "SHA1", digits: String(DIGITS), period: String(STEP_SECONDS) });
  return `otpauth://totp/${label}?${query}`;
}

/** Random bytes for a new secret (RFC 4226 recommends 160 bits). */
export const newTotpSecret = (): Uint8Array => crypto.getRandomValues(new Uint8Array(MFA.totp.secretBytes));

