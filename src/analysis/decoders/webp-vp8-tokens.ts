// A VP8 block's DCT tokens (RFC 6386 section 13), read and dequantized, and the inverse transform of what
// they gave: the per-block work of a macroblock's residue (webp-vp8.ts).
import type { BoolDecoder } from "./webp-vp8-bool";
import { idct4x4 } from "./webp-vp8-predict";
import { CAT_BASE, CAT_PROBS, COEFF_BANDS, ZIGZAG } from "./webp-vp8-tables";

/**
 * Reads one block's tokens (section 13) into out[off..off+16) dequantized, in raster order.
 * Returns bit 0: at least one token before end-of-block (the "non-zero" context); bit 1: an AC coefficient.
 */
export function readCoefficients(br: BoolDecoder, probs: Uint8Array, plane: number, ctx0: number, dcq: number, acq: number, out: Int32Array, off: number, first: number): number {
  let ctx = ctx0;
  let skipEob = false;
  let result = 0;
  const planeBase = plane * 264;
  for (let i = first; i < 16; i++) {
    const p = planeBase + COEFF_BANDS[i] * 33 + ctx * 11;
    if (!skipEob && !br.readBool(probs[p])) break;
    if (!br.readBool(probs[p + 1])) {
      skipEob = true;
      ctx = 0;
      result |= 1;
      continue;
    }
    let v: number;
    if (!br.readBool(probs[p + 2])) {
      v = 1;
    } else if (!br.readBool(probs[p + 3])) {
      v = !br.readBool(probs[p + 4]) ? 2 : 3 + br.readBool(probs[p + 5]);
    } else {
      let cat: number;
      if (!br.readBool(probs[p + 6])) cat = br.readBool(probs[p + 7]);
      else if (!br.readBool(probs[p + 8])) cat = 2 + br.readBool(probs[p + 9]);
      else cat = 4 + br.readBool(probs[p + 10]);
      const t = CAT_PROBS[cat];
      let extra = 0;
      for (let j = 0; t[j] > 0; j++) extra = extra + extra + br.readBool(t[j]);
      v = CAT_BASE[cat] + extra;
    }
    skipEob = false;
    ctx = v === 1 ? 1 : 2;
    if (br.readBool(128)) v = -v;
    const z = ZIGZAG[i];
    out[off + z] = v * (z > 0 ? acq : dcq);
    result |= z > 0 ? 3 : 1;
  }
  return result;
}

/** Inverse transform of one 4x4 block given what readCoefficients found (DC-only blocks are flat). */
export function inverseTransform(b: Int32Array, off: number, found: number): void {
  if (found & 2) idct4x4(b, off);
  else if (b[off] !== 0) b.fill((b[off] + 4) >> 3, off, off + 16);
}
