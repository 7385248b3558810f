// The last steps of each macroblock row of a VP8 frame (webp-vp8.ts): the loop filter over the row, then the
// conversion to RGBA of the rows that no later filtering changes (the filter of the next macroblock row
// rewrites the bottom rows of this one, so rows are emitted a few rows late).
import type { BoxReducer } from "./reduce";
import { innerEdgeFilter, mbEdgeFilter, simpleFilter } from "./webp-vp8-filter";

/**
 * What these steps use of the decoder: the planes' window of rows (filtered in place), sizes, the row's filter
 * parameters, and the output row and reducer the converted rows go to.
 */
export interface Vp8Rows {
  readonly width: number;
  readonly height: number;
  readonly mbw: number;
  readonly mbh: number;
  /** Chroma size. */
  readonly cw: number;
  readonly ch: number;
  readonly yStride: number;
  readonly cStride: number;
  readonly Y: Uint8Array;
  readonly U: Uint8Array;
  readonly V: Uint8Array;
  /** Per macroblock of the current row, for the loop filter: level (0 = none), interior limit, hev threshold, inner edges (1). */
  readonly fLevel: Uint8Array;
  readonly fInterior: Uint8Array;
  readonly fHev: Uint8Array;
  readonly fInner: Uint8Array;
  /** One output row seen two ways: stores through the clamped view saturate to 0..255 for free. */
  readonly rgbaRow: Uint8Array;
  readonly rgbaClamped: Uint8ClampedArray;
  readonly reducer: BoxReducer;
}

// BT.601 limited-range YCbCr -> RGB in 8.8 fixed point, as photon's decoder: R = (298(Y-16) + 409(V-128) + 128) >> 8 ...
const Y_C = new Int32Array(256), V_R = new Int32Array(256), U_G = new Int32Array(256), V_G = new Int32Array(256), U_B = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  Y_C[i] = (i - 16) * 298 + 128;
  V_R[i] = 409 * (i - 128);
  U_G[i] = 100 * (i - 128);
  V_G[i] = 208 * (i - 128);
  U_B[i] = 516 * (i - 128);
}

/**
 * Converts the rows that no later filtering changes to RGBA and hands them to the reducer: from `outStart` (the
 * first row not yet emitted) up to 16 * mby + 8, or to the image's end after the last macroblock row. Returns
 * the next row to emit.
 */
export function emitRows(d: Vp8Rows, mby: number, outStart: number): number {
  const { Y, U, V, yStride, cStride, width, height, rgbaRow, rgbaClamped, reducer } = d;
  const last = mby === d.mbh - 1;
  const outEnd = last ? height : Math.min(height, 16 * mby + 8);
  const yOrigin = 16 * mby - 8;
  const cOrigin = 8 * mby - 4;
  for (let y = outStart; y < outEnd; y++) {
    const yr = (y - yOrigin) * yStride;
    const cr = ((y >> 1) - cOrigin) * cStride;
    // Each chroma sample covers two pixels of the row (photon replicates chroma, no interpolation).
    for (let x = 0, o = 0; x < width; x += 2, o += 8) {
      const ci = cr + (x >> 1);
      const u = U[ci], v = V[ci];
      const rc = V_R[v], gc = U_G[u] + V_G[v], bc = U_B[u];
      let l = Y_C[Y[yr + x]];
      rgbaClamped[o] = (l + rc) >> 8;
      rgbaClamped[o + 1] = (l - gc) >> 8;
      rgbaClamped[o + 2] = (l + bc) >> 8;
      if (x + 1 < width) {
        l = Y_C[Y[yr + x + 1]];
        rgbaClamped[o + 4] = (l + rc) >> 8;
        rgbaClamped[o + 5] = (l - gc) >> 8;
        rgbaClamped[o + 6] = (l + bc) >> 8;
      }
    }
    reducer.addRow(y, rgbaRow);
  }
  return outEnd;
}

/** Filters the macroblocks of row mby in raster order, within the visible image as the reference does. */
export function filterRow(d: Vp8Rows, mby: number, simple: boolean): void {
  const { Y, U, V, yStride, cStride, width, height, ch, cw, mbw, fLevel, fInterior, fHev, fInner } = d;
  const yBase = 8 * yStride;
  const cBase = 4 * cStride;
  const ly = Math.min(height - 16 * mby, 16);
  const cyl = Math.min(ch - 8 * mby, 8);
  for (let mbx = 0; mbx < mbw; mbx++) {
    const level = fLevel[mbx];
    if (level === 0) continue;
    const interior = fInterior[mbx];
    const hev = fHev[mbx];
    const mbEdge = (level + 2) * 2 + interior;
    const subEdge = level * 2 + interior;
    const inner = fInner[mbx] === 1;
    const lx = Math.min(width - 16 * mbx, 16);
    const cxl = Math.min(cw - 8 * mbx, 8);
    const y0 = yBase + mbx * 16;
    const c0 = cBase + mbx * 8;
    if (simple) {
      if (mbx > 0 && lx >= 2) simpleFilter(Y, y0, yStride, ly, 1, mbEdge);
      if (inner) for (let x = 4; x < lx - 1; x += 4) simpleFilter(Y, y0 + x, yStride, ly, 1, subEdge);
      if (mby > 0 && ly >= 2) simpleFilter(Y, y0, 1, lx, yStride, mbEdge);
      if (inner) for (let y = 4; y < ly - 1; y += 4) simpleFilter(Y, y0 + y * yStride, 1, lx, yStride, subEdge);
      continue;
    }
    if (mbx > 0) {
      if (lx >= 4) mbEdgeFilter(Y, y0, yStride, ly, 1, hev, interior, mbEdge);
      if (cxl >= 4) {
        mbEdgeFilter(U, c0, cStride, cyl, 1, hev, interior, mbEdge);
        mbEdgeFilter(V, c0, cStride, cyl, 1, hev, interior, mbEdge);
      }
    }
    if (inner) {
      for (let x = 4; x < lx - 3; x += 4) innerEdgeFilter(Y, y0 + x, yStride, ly, 1, hev, interior, subEdge);
      if (cxl === 8) {
        innerEdgeFilter(U, c0 + 4, cStride, cyl, 1, hev, interior, subEdge);
        innerEdgeFilter(V, c0 + 4, cStride, cyl, 1, hev, interior, subEdge);
      }
    }
    if (mby > 0) {
      if (ly >= 4) mbEdgeFilter(Y, y0, 1, lx, yStride, hev, interior, mbEdge);
      if (cyl >= 4) {
        mbEdgeFilter(U, c0, 1, cxl, cStride, hev, interior, mbEdge);
        mbEdgeFilter(V, c0, 1, cxl, cStride, hev, interior, mbEdge);
      }
    }
    if (inner) {
      for (let y = 4; y < ly - 3; y += 4) innerEdgeFilter(Y, y0 + y * yStride, 1, lx, yStride, hev, interior, subEdge);
      if (cyl === 8) {
        innerEdgeFilter(U, c0 + 4 * cStride, 1, cxl, cStride, hev, interior, subEdge);
        innerEdgeFilter(V, c0 + 4 * cStride, 1, cxl, cStride, hev, interior, subEdge);
      }
    }
  }
}
