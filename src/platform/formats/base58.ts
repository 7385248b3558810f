export const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/**
 * `length` characters drawn uniformly from the base58 alphabet with WebCrypto randomness.
 * Bytes >= 232 (= 58 * 4) are rejected so that `byte % 58` has no bias.
 */
export function randomBase58(length: number): string {
  let out = "";
  while (out.length < length) {
    // getRandomValues refuses more than 65,536 bytes per call.
    const bytes = crypto.getRandomValues(new Uint8Array(Math.min((length - out.length) * 2, 65_536)));
    for (const b of bytes) {
      if (b >= 232) continue;
      out += BASE58_ALPHABET[b % 58];
      if (out.length === length) break;
    }
  }
  return out;
}

const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;
export function isBase58(value: string): boolean {
  return BASE58_RE.test(value);
}
