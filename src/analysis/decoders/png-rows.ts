// PNG scanline work: undoing the five filters and converting one row of any colour type / bit depth to RGBA8,
// with the same sample conversions as photon (Rust `png` + `image` crates), which the fixtures compare against:
// 16-bit rounding, 1/2/4-bit grey, tRNS keys (low byte only at depths <= 8), short palettes (decoders/README.md § PNG).

import { u16be } from "../containers/bytes";
import { LeanDecodeError } from "./reduce";

/** (v + 128) / 257 for every 16-bit value: photon's u16 -> u8 conversion. */
let to8Table: Uint8Array | null = null;
function to8(): Uint8Array {
  if (!to8Table) {
    to8Table = new Uint8Array(65536);
    for (let v = 0; v < 65536; v++) to8Table[v] = ((v + 128) / 257) | 0;
  }
  return to8Table;
}

/** Samples per pixel for each valid colour type. */
export function channelsOf(colorType: number): number {
  switch (colorType) {
    case 0: return 1;
    case 2: return 3;
    case 3: return 1;
    case 4: return 2;
    case 6: return 4;
    default: return 0;
  }
}

export function validDepth(colorType: number, depth: number): boolean {
  switch (colorType) {
    case 0: return depth === 1 || depth === 2 || depth === 4 || depth === 8 || depth === 16;
    case 3: return depth === 1 || depth === 2 || depth === 4 || depth === 8;
    case 2: case 4: case 6: return depth === 8 || depth === 16;
    default: return false;
  }
}

/**
 * Undoes the row's filter in place on `cur[start .. start+len)` (after the filter-type byte); `prev` is the pass's
 * previous unfiltered row (zeros for the first), `bpp` bytes per pixel (>= 1). Up adds four bytes at a time through
 * `cur32` / `prev32` (views of the same buffers), so `start` is a multiple of 4 and both buffers >= `start + len + 3`.
 */
export function unfilter(filter: number, cur: Uint8Array, prev: Uint8Array, cur32: Uint32Array, prev32: Uint32Array, start: number, len: number, bpp: number): void {
  const end = start + len;
  switch (filter) {
    case 0:
      return;
    case 1: // Sub
      for (let k = 0; k < bpp && k < len; k++) {
        let a = cur[start + k];
        for (let i = start + k + bpp; i < end; i += bpp) cur[i] = a = (cur[i] + a) & 255;
      }
      return;
    case 2: { // Up: bytewise addition without carries between bytes, four lanes per 32-bit word
      for (let w = start >>> 2, last = (end + 3) >>> 2; w < last; w++) {
        const x = cur32[w];
        const y = prev32[w];
        cur32[w] = (((x & 0x7f7f7f7f) + (y & 0x7f7f7f7f)) ^ ((x ^ y) & 0x80808080)) >>> 0;
      }
      return;
    }
    case 3: // Average
      for (let k = 0; k < bpp && k < len; k++) {
        let a = (cur[start + k] = (cur[start + k] + (prev[start + k] >>> 1)) & 255);
        for (let i = start + k + bpp; i < end; i += bpp) cur[i] = a = (cur[i] + ((a + prev[i]) >>> 1)) & 255;
      }
      return;
    case 4: // Paeth
      for (let k = 0; k < bpp && k < len; k++) {
        let c = prev[start + k];
        let a = (cur[start + k] = (cur[start + k] + c) & 255);
        for (let i = start + k + bpp; i < end; i += bpp) {
          const b = prev[i];
          // p = a + b - c; |p - a| = |b - c|, |p - b| = |a - c|, |p - c| = |a + b - 2c|
          const da = b - c;
          const db = a - c;
          const pa = da < 0 ? -da : da;
          const pb = db < 0 ? -db : db;
          const pc = da + db < 0 ? -(da + db) : da + db;
          a = cur[i] = (cur[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
          c = b;
        }
      }
      return;
    default:
      throw new LeanDecodeError(`PNG: unknown filter type ${filter}`);
  }
}

export type RowFormat = {
  colorType: number;
  depth: number;
  /**
   * For palette images and grey at depths <= 8: the RGBA pixel of each sample value (palette with tRNS
   * alphas, or grey with the key's alpha), as native 32-bit words over RGBA bytes, so copying one into a
   * 32-bit view of the RGBA row writes R, G, B, A in order on any platform.
   */
  lut: Uint32Array | null;
  /** tRNS key for colour types 0 (one value) and 2 (three), as compared (see top), or null. */
  key: number[] | null;
};

/** The lookup of a palette (PLTE data) and its tRNS alphas (or null); opaque black past the palette's end. */
export function paletteLut(plte: Uint8Array, trns: Uint8Array | null): Uint32Array {
  const table = new Uint8Array(256 * 4);
  for (let i = 0; i < 256; i++) table[i * 4 + 3] = 255;
  const entries = Math.min(256, (plte.length / 3) | 0);
  for (let i = 0; i < entries; i++) {
    table[i * 4] = plte[i * 3];
    table[i * 4 + 1] = plte[i * 3 + 1];
    table[i * 4 + 2] = plte[i * 3 + 2];
  }
  // The png crate ignores a tRNS with more entries than the palette.
  if (trns && trns.length <= entries) for (let i = 0; i < trns.length; i++) table[i * 4 + 3] = trns[i];
  return new Uint32Array(table.buffer);
}

/** The lookup of grey samples at depth <= 8, scaled to 0..255 (x255, x85, x17, x1), alpha 0 for the key. */
export function greyLut(depth: number, key: number[] | null): Uint32Array {
  const table = new Uint8Array(256 * 4);
  const max = (1 << depth) - 1;
  const k = key ? key[0] & 255 : -1;
  for (let v = 0; v <= max; v++) {
    table.fill((v * 255) / max, v * 4, v * 4 + 3);
    table[v * 4 + 3] = v === k ? 0 : 255;
  }
  return new Uint32Array(table.buffer);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Converts `n` pixels of an unfiltered row (`src` from `start`) to RGBA8 in `out` from 0; `out32` is a 32-bit
 * view of `out` (one store per pixel where possible).
 */
export function toRgba8(fmt: RowFormat, src: Uint8Array, start: number, n: number, out: Uint8Array, out32: Uint32Array): void {
  const { colorType, depth, key, lut } = fmt;
  if (lut) {
    if (depth === 8) {
      for (let x = 0; x < n; x++) out32[x] = lut[src[start + x]];
      return;
    }
    // Samples packed MSB first.
    const mask = (1 << depth) - 1;
    for (let x = 0, bit = 0; x < n; x++, bit += depth) out32[x] = lut[(src[start + (bit >>> 3)] >>> (8 - depth - (bit & 7))) & mask];
    return;
  }
  if (depth === 8) {
    switch (colorType) {
      case 2: {
        if (!key && LITTLE_ENDIAN) {
          for (let x = 0, s = start; x < n; x++, s += 3) out32[x] = (src[s] | (src[s + 1] << 8) | (src[s + 2] << 16) | 0xff000000) >>> 0;
          return;
        }
        const kr = key ? key[0] & 255 : -1, kg = key ? key[1] & 255 : -1, kb = key ? key[2] & 255 : -1;
        for (let x = 0, s = start, o = 0; x < n; x++, s += 3, o += 4) {
          const r = src[s], g = src[s + 1], b = src[s + 2];
          out[o] = r; out[o + 1] = g; out[o + 2] = b;
          out[o + 3] = r === kr && g === kg && b === kb ? 0 : 255;
        }
        return;
      }
      case 4:
        for (let x = 0, s = start, o = 0; x < n; x++, s += 2, o += 4) {
          const v = src[s];
          out[o] = v; out[o + 1] = v; out[o + 2] = v; out[o + 3] = src[s + 1];
        }
        return;
      case 6:
        out.set(src.subarray(start, start + n * 4), 0);
        return;
    }
  }
  // 16 bits per sample.
  const t = to8();
  switch (colorType) {
    case 0: {
      const k = key ? key[0] : -1;
      for (let x = 0, s = start, o = 0; x < n; x++, s += 2, o += 4) {
        const v16 = u16be(src, s);
        const v = t[v16];
        out[o] = v; out[o + 1] = v; out[o + 2] = v;
        out[o + 3] = v16 === k ? 0 : 255;
      }
      return;
    }
    case 2: {
      const kr = key ? key[0] : -1, kg = key ? key[1] : -1, kb = key ? key[2] : -1;
      for (let x = 0, s = start, o = 0; x < n; x++, s += 6, o += 4) {
        const r = u16be(src, s), g = u16be(src, s + 2), b = u16be(src, s + 4);
        out[o] = t[r]; out[o + 1] = t[g]; out[o + 2] = t[b];
        out[o + 3] = r === kr && g === kg && b === kb ? 0 : 255;
      }
      return;
    }
    case 4:
      for (let x = 0, s = start, o = 0; x < n; x++, s += 4, o += 4) {
        const v = t[u16be(src, s)];
        out[o] = v; out[o + 1] = v; out[o + 2] = v;
        out[o + 3] = t[u16be(src, s + 2)];
      }
      return;
    case 6:
      for (let x = 0, s = start, o = 0; x < n; x++, s += 8, o += 4) {
        out[o] = t[u16be(src, s)];
        out[o + 1] = t[u16be(src, s + 2)];
        out[o + 2] = t[u16be(src, s + 4)];
        out[o + 3] = t[u16be(src, s + 6)];
      }
      return;
  }
  throw new LeanDecodeError(`PNG: unsupported colour type ${colorType} at depth ${depth}`);
}
