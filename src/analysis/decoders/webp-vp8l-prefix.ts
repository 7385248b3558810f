// VP8L prefix (canonical Huffman) codes: reading the code lengths (simple 1-2 symbol codes, or lengths coded
// with the code-length code) and two-level lookup tables, as in libwebp: an up-to-8-bit root table whose long
// entries point at second-level tables. Entries are (length << 16) | symbol; second-level lengths are stored
// minus the root bits.
import { BitReader } from "./webp-vp8l-bits";
import { LeanDecodeError } from "./reduce";

export type PrefixCode = { table: Int32Array; rootBits: number; rootMask: number };

/** Table entries left for this image: a hostile stream could otherwise ask for millions of prefix codes. */
export type TableBudget = { left: number };

const MAX_LENGTH = 15;
const CODE_LENGTH_ORDER = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

function fail(what: string): never {
  throw new LeanDecodeError(`lossless WebP: ${what}`);
}

function reverseBits(code: number, len: number): number {
  let r = 0;
  for (let i = 0; i < len; i++) {
    r = (r << 1) | (code & 1);
    code >>>= 1;
  }
  return r;
}

export function readSymbol(br: BitReader, code: PrefixCode): number {
  br.fill();
  const bits = br.peek();
  let e = code.table[bits & code.rootMask];
  let len = e >>> 16;
  if (len > code.rootBits) {
    br.skip(code.rootBits);
    e = code.table[(e & 0xffff) + ((bits >>> code.rootBits) & ((1 << (len - code.rootBits)) - 1))];
    len = e >>> 16;
  }
  br.skip(len);
  return e & 0xffff;
}

/** Builds the lookup table for code lengths[0..n); the code must be complete (or a single symbol). */
export function buildPrefixCode(lengths: Uint8Array, n: number, budget: TableBudget): PrefixCode {
  const count = new Int32Array(MAX_LENGTH + 1);
  let symbols = 0;
  let last = 0;
  let maxLen = 0;
  for (let s = 0; s < n; s++) {
    const len = lengths[s];
    if (len === 0) continue;
    count[len]++;
    symbols++;
    last = s;
    if (len > maxLen) maxLen = len;
  }
  if (symbols === 0) fail("empty prefix code");
  if (symbols === 1) {
    // A lone symbol takes no bits.
    budget.left -= 1;
    return { table: Int32Array.of(last), rootBits: 0, rootMask: 0 };
  }
  let left = 1;
  for (let len = 1; len <= MAX_LENGTH; len++) {
    left = (left << 1) - count[len];
    if (left < 0) fail("over-subscribed prefix code");
  }
  if (left !== 0) fail("incomplete prefix code");

  const rootBits = Math.min(8, maxLen);
  const rootSize = 1 << rootBits;
  const rootMask = rootSize - 1;
  const nextCode = new Int32Array(MAX_LENGTH + 2);
  for (let len = 1, code = 0; len <= MAX_LENGTH; len++) {
    code = (code + count[len - 1]) << 1;
    nextCode[len] = code;
  }
  // Codes in canonical order (by length, then symbol), bit-reversed for LSB-first lookup.
  const rev = new Int32Array(n);
  const subBits = new Uint8Array(rootSize);
  for (let s = 0; s < n; s++) {
    const len = lengths[s];
    if (len === 0) continue;
    const r = reverseBits(nextCode[len]++, len);
    rev[s] = r;
    if (len > rootBits) {
      const p = r & rootMask;
      if (len - rootBits > subBits[p]) subBits[p] = len - rootBits;
    }
  }
  let total = rootSize;
  for (let p = 0; p < rootSize; p++) if (subBits[p]) total += 1 << subBits[p];
  budget.left -= total;
  if (budget.left < 0) fail("too many prefix codes");
  const table = new Int32Array(total);
  const subOffset = new Int32Array(rootSize);
  for (let p = 0, off = rootSize; p < rootSize; p++) {
    if (!subBits[p]) continue;
    subOffset[p] = off;
    table[p] = ((rootBits + subBits[p]) << 16) | off;
    off += 1 << subBits[p];
  }
  for (let s = 0; s < n; s++) {
    const len = lengths[s];
    if (len === 0) continue;
    const r = rev[s];
    if (len <= rootBits) {
      for (let i = r; i < rootSize; i += 1 << len) table[i] = (len << 16) | s;
    } else {
      const p = r & rootMask;
      const sub = len - rootBits;
      const size = 1 << subBits[p];
      const off = subOffset[p];
      for (let i = r >>> rootBits; i < size; i += 1 << sub) table[off + i] = (sub << 16) | s;
    }
  }
  return { table, rootBits, rootMask };
}

/** Reads one prefix code's lengths for an alphabet of `size` symbols into `lengths` (cleared first). */
export function readCodeLengths(br: BitReader, size: number, lengths: Uint8Array, budget: TableBudget): void {
  lengths.fill(0, 0, size);
  if (br.read(1)) {
    // Simple code: one or two symbols, each of length 1 (a lone symbol then takes no bits).
    const two = br.read(1);
    const first = br.read(br.read(1) ? 8 : 1);
    if (first < size) lengths[first] = 1;
    if (two) {
      const second = br.read(8);
      if (second < size) lengths[second] = 1;
    }
    return;
  }
  const clLengths = new Uint8Array(19);
  const num = 4 + br.read(4);
  for (let i = 0; i < num; i++) clLengths[CODE_LENGTH_ORDER[i]] = br.read(3);
  const clCode = buildPrefixCode(clLengths, 19, budget);
  budget.left += clCode.table.length; // only needed during this call
  let maxSymbol = size;
  if (br.read(1)) {
    const nbits = 2 + 2 * br.read(3);
    maxSymbol = 2 + br.read(nbits);
    if (maxSymbol > size) fail("code length count over the alphabet size");
  }
  let prev = 8;
  let s = 0;
  while (s < size) {
    if (maxSymbol-- === 0) break;
    const cl = readSymbol(br, clCode);
    if (cl < 16) {
      lengths[s++] = cl;
      if (cl !== 0) prev = cl;
      continue;
    }
    const repeat = cl === 16 ? 3 + br.read(2) : cl === 17 ? 3 + br.read(3) : 11 + br.read(7);
    if (s + repeat > size) fail("code length repeat past the alphabet");
    const v = cl === 16 ? prev : 0;
    for (let k = 0; k < repeat; k++) lengths[s++] = v;
  }
  br.check();
}
