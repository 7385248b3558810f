// Seeded randomness for the fill bench: the same rows on every run (ids, owners, hashes), so runs compare.
const URL_SAFE = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict";
const HEX = "0123456789abcdef";
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** mulberry32: uniform in [0, 1). */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (alphabet, random, n) => {
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
};

/** The 21 characters after an id's prefix (platform/data/ids.ts). */
export const randomId = (random) => pick(URL_SAFE, random, 21);
export const randomHex = (random, digits) => pick(HEX, random, digits);
/** Base64 text of `bytes` random bytes (with its padding), e.g. the 384-byte embedding (512 characters). */
export const randomBase64 = (random, bytes) => {
  const chars = Math.ceil(bytes / 3) * 4;
  const pad = (3 - (bytes % 3)) % 3;
  return pick(B64, random, chars - pad) + "=".repeat(pad);
};

/** Flips `bits` random bits of a hex string (a near copy's phash or embedding code). */
export function flipBits(hex, bits, random) {
  const digits = hex.split("").map((d) => parseInt(d, 16));
  for (let i = 0; i < bits; i++) {
    const bit = Math.floor(random() * hex.length * 4);
    digits[bit >> 2] ^= 1 << (bit & 3);
  }
  return digits.map((d) => HEX[d]).join("");
}

/**
 * A 256-bit embedding code whose bits lean the way the shard's do: real codes are signs of features minus a
 * centre, so no bit is a fair coin over a collection; `lean[i]` is bit i's chance of being 1.
 */
export function leaningCode(lean, random) {
  let out = "";
  for (let d = 0; d < 64; d++) {
    let v = 0;
    for (let b = 0; b < 4; b++) if (random() < lean[d * 4 + b]) v |= 8 >> b;
    out += HEX[v];
  }
  return out;
}

const WORDS = "beach sunset cat dog mountain city night street market garden bridge river snow forest portrait family party concert train harbour".split(" ");
/** A title as people type them: empty four times in ten, else two to four words. */
export function title(random) {
  if (random() < 0.4) return "";
  const n = 2 + Math.floor(random() * 3);
  return Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
}
