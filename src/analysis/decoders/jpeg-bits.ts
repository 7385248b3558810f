// Huffman tables and the entropy-coded-segment bit reader of the lean JPEG decoder (jpeg.ts builds the tables,
// jpeg-scan.ts reads the scans).
// Every AC symbol of a baseline scan must still be decoded to find where the next block starts, so this is
// the hot path: a 9-bit lookup table answers most codes in one step, longer codes fall back to the
// canonical maxcode walk (ITU T.81 F.2.2.3).
import { LeanDecodeError } from "./reduce";

const LOOKUP_BITS = 9;

export type HuffmanTable = {
  /** (length << 8) | symbol for every 9-bit prefix whose code is at most 9 bits long; 0 otherwise. */
  lookup: Uint16Array;
  /** Largest code of each length (index 1..16), -1 when there is none. */
  maxcode: Int32Array;
  /** values[valptr[len] + code] is the symbol of a code of that length. */
  valptr: Int32Array;
  values: Uint8Array;
};

/** counts: the 16 code-length counts of a DHT table; values: its symbols. */
export function buildHuffmanTable(counts: Uint8Array, values: Uint8Array): HuffmanTable {
  const lookup = new Uint16Array(1 << LOOKUP_BITS);
  const maxcode = new Int32Array(18).fill(-1);
  const valptr = new Int32Array(17);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    const n = counts[len - 1];
    valptr[len] = k - code;
    if (code + n > 1 << len) throw new LeanDecodeError("corrupt JPEG: Huffman table has too many codes");
    for (let i = 0; i < n; i++, code++, k++) {
      if (len <= LOOKUP_BITS) {
        const shift = LOOKUP_BITS - len;
        const entry = (len << 8) | values[k];
        lookup.fill(entry, code << shift, (code + 1) << shift);
      }
    }
    if (n > 0) maxcode[len] = code - 1;
    code <<= 1;
  }
  return { lookup, maxcode, valptr, values };
}

/**
 * Reads bits MSB first from entropy-coded data, undoing byte stuffing (FF 00). It never consumes a marker:
 * at a marker or at the end of the data it feeds zero bytes and counts them in `padding`, which the scan
 * decoder uses to notice truncated or corrupt data (libjpeg does the same, with a warning).
 */
export class BitReader {
  private buf = 0;
  private count = 0;
  /** Zero bytes fed in place of data (at a marker or past the end). */
  padding = 0;

  constructor(
    private readonly data: Uint8Array,
    public pos: number,
  ) {}

  private fill() {
    const data = this.data;
    const end = data.length;
    while (this.count <= 24) {
      let b = 0;
      const p = this.pos;
      if (p < end) {
        b = data[p];
        if (b !== 0xff) this.pos = p + 1;
        else if (p + 1 < end && data[p + 1] === 0) this.pos = p + 2;
        else {
          b = 0;
          this.padding++;
        }
      } else {
        this.padding++;
      }
      this.buf = (this.buf << 8) | b;
      this.count += 8;
    }
  }

  decode(t: HuffmanTable): number {
    if (this.count < 16) this.fill();
    const e = t.lookup[(this.buf >>> (this.count - LOOKUP_BITS)) & ((1 << LOOKUP_BITS) - 1)];
    if (e !== 0) {
      this.count -= e >> 8;
      return e & 0xff;
    }
    for (let len = LOOKUP_BITS + 1; len <= 16; len++) {
      const code = (this.buf >>> (this.count - len)) & ((1 << len) - 1);
      if (code <= t.maxcode[len]) {
        this.count -= len;
        return t.values[t.valptr[len] + code];
      }
    }
    throw new LeanDecodeError("corrupt JPEG: invalid Huffman code");
  }

  /** The next s bits (s <= 16) as an unsigned number. */
  bits(s: number): number {
    if (s === 0) return 0;
    if (this.count < s) this.fill();
    this.count -= s;
    return (this.buf >>> this.count) & ((1 << s) - 1);
  }

  /** A DC difference or AC value of category s (T.81 F.2.2.1 EXTEND). */
  receiveExtend(s: number): number {
    if (s === 0) return 0;
    const v = this.bits(s);
    return v < 1 << (s - 1) ? v - (1 << s) + 1 : v;
  }

  /** Decodes the AC symbols of one block (coefficients 1..63) without keeping them. */
  skipAc(t: HuffmanTable): void {
    for (let k = 1; k < 64; ) {
      const rs = this.decode(t);
      const s = rs & 15;
      const r = rs >> 4;
      if (s !== 0) {
        if (this.count < s) this.fill();
        this.count -= s;
        k += r + 1;
      } else if (r === 15) {
        k += 16;
      } else {
        return; // EOB
      }
    }
  }

  /** Like skipAc, but keeps the coefficients before zigzag index `low` in out[1..low-1]. */
  readAcLow(t: HuffmanTable, out: Float64Array, low: number): void {
    out.fill(0);
    for (let k = 1; k < 64; ) {
      const rs = this.decode(t);
      const s = rs & 15;
      const r = rs >> 4;
      if (s !== 0) {
        k += r;
        const v = this.receiveExtend(s);
        if (k < low) out[k] = v;
        k++;
      } else if (r === 15) {
        k += 16;
      } else {
        return;
      }
    }
  }

  /**
   * At the end of a restart interval: drops the buffered bits and moves past the next RSTn marker, skipping
   * anything before it (libjpeg resynchronises the same way). False if another marker or the end comes first.
   */
  restart(): boolean {
    this.buf = 0;
    this.count = 0;
    this.padding = 0;
    const d = this.data;
    for (let p = this.pos; p + 1 < d.length; p++) {
      if (d[p] !== 0xff) continue;
      const m = d[p + 1];
      if (m >= 0xd0 && m <= 0xd7) {
        this.pos = p + 2;
        return true;
      }
      if (m !== 0 && m !== 0xff) {
        this.pos = p;
        return false;
      }
    }
    this.pos = d.length;
    return false;
  }
}
