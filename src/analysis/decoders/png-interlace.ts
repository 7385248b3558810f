// Adam7 interlacing. Each full-resolution pixel lies in exactly one of the 7 passes, and no full row is
// complete before the last pass that touches it (even rows gather pixels from passes 1-6), so rows cannot be
// handed to BoxReducer.addRow without buffering half the image. Instead every pass pixel is added straight
// into its output block's sums; since each full pixel arrives once, the result is exactly BoxReducer's
// (same block sizes, same rounding), with memory O(output) rather than O(width x height).

import type { ReducedImage } from "./reduce";

export type Pass = { xStart: number; yStart: number; xStep: number; yStep: number; width: number; height: number };

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The image's passes: one for a non-interlaced image, else the non-empty Adam7 passes (empty ones have no bytes). */
export function passesOf(width: number, height: number, interlaced: boolean): Pass[] {
  if (!interlaced) return [{ xStart: 0, yStart: 0, xStep: 1, yStep: 1, width, height }];
  const passes: Pass[] = [];
  for (const [xStart, yStart, xStep, yStep] of ADAM7) {
    const w = width > xStart ? Math.ceil((width - xStart) / xStep) : 0;
    const h = height > yStart ? Math.ceil((height - yStart) / yStep) : 0;
    if (w > 0 && h > 0) passes.push({ xStart, yStart, xStep, yStep, width: w, height: h });
  }
  return passes;
}

/** Block sums over the whole reduced grid, fed pass rows in any order. */
export class InterlacedAccumulator {
  readonly outWidth: number;
  readonly outHeight: number;
  private readonly sums: Uint8Array | Uint32Array | Float64Array;
  /** Output column offset (ox * 4) of each full-resolution column. */
  private readonly colOffset: Uint32Array;

  constructor(
    readonly width: number,
    readonly height: number,
    readonly factor: number,
  ) {
    this.outWidth = Math.ceil(width / factor);
    this.outHeight = Math.ceil(height / factor);
    const cells = this.outWidth * this.outHeight * 4;
    // At factor 1 each cell receives one pixel: the "sums" are the output (4 bytes per pixel, not 16). A block's
    // sum fits 32 bits unless the factor is huge (then the output is tiny anyway).
    this.sums = factor === 1 ? new Uint8Array(cells) : factor * factor * 255 < 2 ** 32 ? new Uint32Array(cells) : new Float64Array(cells);
    this.colOffset = new Uint32Array(width);
    for (let x = 0; x < width; x++) this.colOffset[x] = ((x / factor) | 0) * 4;
  }

  /** Row `passY` of `pass`, as RGBA8 (pass.width pixels). */
  addPassRow(pass: Pass, passY: number, rgba: Uint8Array): void {
    const y = pass.yStart + passY * pass.yStep;
    const base = ((y / this.factor) | 0) * this.outWidth * 4;
    const sums = this.sums;
    const col = this.colOffset;
    const n = pass.width;
    for (let i = 0, x = pass.xStart, p = 0; i < n; i++, x += pass.xStep, p += 4) {
      const s = base + col[x];
      sums[s] += rgba[p];
      sums[s + 1] += rgba[p + 1];
      sums[s + 2] += rgba[p + 2];
      sums[s + 3] += rgba[p + 3];
    }
  }

  /** Averages with BoxReducer's rounding; call only once every pass row was added. */
  finish(): ReducedImage {
    const { factor: f, outWidth: ow, outHeight: oh, sums } = this;
    if (sums instanceof Uint8Array) return { width: this.width, height: this.height, outWidth: ow, outHeight: oh, rgba: sums };
    const out = new Uint8Array(ow * oh * 4);
    for (let oy = 0; oy < oh; oy++) {
      const rows = Math.min(f, this.height - oy * f);
      for (let ox = 0; ox < ow; ox++) {
        const n = Math.min(f, this.width - ox * f) * rows;
        const half = n >>> 1;
        const o = (oy * ow + ox) * 4;
        out[o] = Math.floor((sums[o] + half) / n);
        out[o + 1] = Math.floor((sums[o + 1] + half) / n);
        out[o + 2] = Math.floor((sums[o + 2] + half) / n);
        out[o + 3] = Math.floor((sums[o + 3] + half) / n);
      }
    }
    return { width: this.width, height: this.height, outWidth: ow, outHeight: oh, rgba: out };
  }
}
