// Lean decoder for lossy WebP: the VP8 key frame of a `VP8 ` chunk (RFC 6386), decoded macroblock row by
// macroblock row straight into a BoxReducer. State is O(width): the unfiltered row of pixels above the
// current macroblock row (intra prediction uses pre-filter pixels), the left column, per-column contexts,
// and a small window of filtered rows (the loop filter of a macroblock row rewrites the bottom rows of
// the one above, so rows are converted to RGB a few rows late).
//
// Decoding is bit-exact with photon's decoder (the `image` crate 0.24 VP8 decoder), so the analysis sees
// the same pixels on both paths. That includes where it departs slightly from libwebp: chroma prediction
// borders of 127/129 outside the visible image, loop filtering only inside the visible image, inner edges
// filtered unless the macroblock's skip flag is set, hev threshold 1 below level 40, no reference-frame
// filter delta, the inner-edge p1 sign (webp-vp8-filter.ts), and the colour conversion: BT.601 limited
// range with chroma replicated over 2x2 pixels (no "fancy" upsampling). One deliberate difference:
// without segmentation, image 0.24 dequantizes with index 0 (a bug fixed in image-webp); we use the frame's.
import { BoxReducer, LeanDecodeError, reductionFactor, type LeanDecodeOptions, type ReducedImage } from "./reduce";
import { BoolDecoder, readFrameHeader, type FrameHeader } from "./webp-vp8-bool";
import { innerEdgeFilter, mbEdgeFilter, simpleFilter } from "./webp-vp8-filter";
import { addResidue, CHROMA_STRIDE, idct4x4, iwht4x4, LUMA_STRIDE, predictBlock, predictSubblock } from "./webp-vp8-predict";
import {
  AC_QUANT, B_DC, B_HE, B_PRED, B_TM, B_VE, BMODE_PROBS, BMODE_TREE, CAT_BASE, CAT_PROBS, COEFF_BANDS, DC_QUANT, SEGMENT_ID_TREE,
  UV_MODE_PROBS, UV_MODE_TREE, YMODE_PROBS, YMODE_TREE, ZIGZAG,
} from "./webp-vp8-tables";

/**
 * Decodes the payload of a `VP8 ` chunk (from its frame tag) to RGBA (A = 255), reduced for targetPixels,
 * or by exactly `factor` when given (a container reducing a frame with its canvas's factor: targetPixels
 * cannot always express it, e.g. every factor reduces a 1x1 frame to one pixel).
 */
export async function decodeVp8Reduced(payload: Uint8Array, options: LeanDecodeOptions & { factor?: number }): Promise<ReducedImage> {
  try {
    const header = readFrameHeader(payload, DC_QUANT, AC_QUANT);
    const f = options.factor;
    const factor = f !== undefined && Number.isInteger(f) && f >= 1 ? f : reductionFactor(header.width, header.height, options.targetPixels);
    return new Vp8Decoder(header, factor).decode();
  } catch (err) {
    if (err instanceof LeanDecodeError) throw err;
    throw new LeanDecodeError(`VP8: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const Y_MODE_TO_BMODE = [B_DC, B_VE, B_HE, B_TM];

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
 * Reads one block's tokens (section 13) into out[off..off+16) dequantized, in raster order.
 * Returns bit 0: at least one token before end-of-block (the "non-zero" context); bit 1: an AC coefficient.
 */
function readCoefficients(br: BoolDecoder, probs: Uint8Array, plane: number, ctx0: number, dcq: number, acq: number, out: Int32Array, off: number, first: number): number {
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
function inverseTransform(b: Int32Array, off: number, found: number): void {
  if (found & 2) idct4x4(b, off);
  else if (b[off] !== 0) b.fill((b[off] + 4) >> 3, off, off + 16);
}

// State lives in fields of one class (not variables captured by closures, which V8 keeps in a context
// object and reloads on every access in the hot loops).
class Vp8Decoder {
  private readonly width: number;
  private readonly height: number;
  private readonly mbw: number;
  private readonly mbh: number;
  /** Chroma size. */
  private readonly cw: number;
  private readonly ch: number;
  private readonly reducer: BoxReducer;
  // Filtered-pixel windows: luma 8 carried rows + 16 rows of the current macroblock row, chroma 4 + 8.
  private readonly yStride: number;
  private readonly cStride: number;
  private readonly Y: Uint8Array;
  private readonly U: Uint8Array;
  private readonly V: Uint8Array;
  // Unfiltered prediction context: the row above (luma: plus 4 above-right), the column to the left.
  private readonly topBorder: Uint8Array;
  private readonly leftBorder = new Uint8Array(17);
  private readonly uTop: Uint8Array;
  private readonly vTop: Uint8Array;
  private readonly uLeft = new Uint8Array(8);
  private readonly vLeft = new Uint8Array(8);
  private uCorner = 0;
  private vCorner = 0;
  // Entropy contexts: sub-block modes and "has coefficients" flags above and to the left.
  private readonly topModes: Uint8Array;
  private readonly leftModes = new Uint8Array(4);
  private readonly topNz: Uint8Array;
  private readonly leftNz = new Uint8Array(9);
  private readonly bmodes = new Uint8Array(16);
  // Per macroblock of the current row, for the loop filter: level (0 = none), interior limit, hev threshold, inner edges.
  private readonly fLevel: Uint8Array;
  private readonly fInterior: Uint8Array;
  private readonly fHev: Uint8Array;
  private readonly fInner: Uint8Array;
  // Workspaces.
  private readonly ws = new Uint8Array(LUMA_STRIDE * 17);
  private readonly uws = new Uint8Array(CHROMA_STRIDE * 9);
  private readonly vws = new Uint8Array(CHROMA_STRIDE * 9);
  private readonly coeffs = new Int32Array(384);
  private readonly y2 = new Int32Array(16);
  // One output row seen two ways: stores through the clamped view saturate to 0..255 for free.
  private readonly rgbaRow: Uint8Array;
  private readonly rgbaClamped: Uint8ClampedArray;
  private outStart = 0;

  constructor(
    private readonly h: FrameHeader,
    factor: number,
  ) {
    const { width, height } = h;
    this.width = width;
    this.height = height;
    const mbw = (this.mbw = (width + 15) >> 4);
    this.mbh = (height + 15) >> 4;
    this.cw = (width + 1) >> 1;
    this.ch = (height + 1) >> 1;
    this.reducer = new BoxReducer(width, height, factor);
    this.yStride = mbw * 16;
    this.cStride = mbw * 8;
    this.Y = new Uint8Array(this.yStride * 24);
    this.U = new Uint8Array(this.cStride * 12);
    this.V = new Uint8Array(this.cStride * 12);
    this.topBorder = new Uint8Array(mbw * 16 + 20).fill(127);
    this.uTop = new Uint8Array(this.cw);
    this.vTop = new Uint8Array(this.cw);
    this.topModes = new Uint8Array(mbw * 4);
    this.topNz = new Uint8Array(mbw * 9);
    this.fLevel = new Uint8Array(mbw);
    this.fInterior = new Uint8Array(mbw);
    this.fHev = new Uint8Array(mbw);
    this.fInner = new Uint8Array(mbw);
    this.rgbaRow = new Uint8Array(width * 4).fill(255);
    this.rgbaClamped = new Uint8ClampedArray(this.rgbaRow.buffer);
  }

  decode(): ReducedImage {
    const { h, mbh, mbw } = this;
    for (let mby = 0; mby < mbh; mby++) {
      const br = h.partitions[mby % h.partitions.length];
      this.leftBorder.fill(129);
      this.leftModes.fill(B_DC);
      this.leftNz.fill(0);
      for (let mbx = 0; mbx < mbw; mbx++) this.decodeMacroblock(br, mbx, mby);
      br.checkOverrun("token partition");
      h.modes.checkOverrun("mode partition");
      this.filterRow(mby);
      this.emitRows(mby);
      // Keep the rows the next row's filter reads or changes, and the rows not yet emitted.
      this.Y.copyWithin(0, 16 * this.yStride, 24 * this.yStride);
      this.U.copyWithin(0, 8 * this.cStride, 12 * this.cStride);
      this.V.copyWithin(0, 8 * this.cStride, 12 * this.cStride);
    }
    return this.reducer.finish();
  }

  private decodeMacroblock(br: BoolDecoder, mbx: number, mby: number): void {
    const { h, topModes, leftModes, bmodes, topNz, leftNz, coeffs, y2 } = this;
    const modes = h.modes;
    const tokenProbs = h.tokenProbs;
    // Macroblock header (first partition).
    const segment = h.segments[h.segmentsEnabled && h.updateMap ? modes.readTree(SEGMENT_ID_TREE, h.segmentProbs) : 0];
    const skip = h.skipProb >= 0 ? modes.readBool(h.skipProb) : 0;
    const ymode = modes.readTree(YMODE_TREE, YMODE_PROBS);
    if (ymode === B_PRED) {
      for (let y = 0; y < 4; y++) {
        for (let x = 0; x < 4; x++) {
          const m = modes.readTree(BMODE_TREE, BMODE_PROBS, (topModes[mbx * 4 + x] * 10 + leftModes[y]) * 9);
          bmodes[y * 4 + x] = m;
          topModes[mbx * 4 + x] = m;
          leftModes[y] = m;
        }
      }
    } else {
      const m = Y_MODE_TO_BMODE[ymode];
      topModes[mbx * 4] = topModes[mbx * 4 + 1] = topModes[mbx * 4 + 2] = topModes[mbx * 4 + 3] = m;
      leftModes[0] = leftModes[1] = leftModes[2] = leftModes[3] = m;
    }
    const uvmode = modes.readTree(UV_MODE_TREE, UV_MODE_PROBS);

    // Residuals (the row's token partition).
    coeffs.fill(0);
    const tn = mbx * 9;
    if (!skip) {
      let plane = 3;
      let first = 0;
      if (ymode !== B_PRED) {
        y2.fill(0);
        const found = readCoefficients(br, tokenProbs, 1, topNz[tn] + leftNz[0], segment.y2dc, segment.y2ac, y2, 0, 0);
        topNz[tn] = leftNz[0] = found & 1;
        iwht4x4(y2);
        for (let k = 0; k < 16; k++) coeffs[16 * k] = y2[k];
        plane = 0;
        first = 1;
      }
      for (let y = 0; y < 4; y++) {
        let left = leftNz[1 + y];
        for (let x = 0; x < 4; x++) {
          const off = (y * 4 + x) * 16;
          const found = readCoefficients(br, tokenProbs, plane, topNz[tn + 1 + x] + left, segment.ydc, segment.yac, coeffs, off, first);
          inverseTransform(coeffs, off, found);
          left = topNz[tn + 1 + x] = found & 1;
        }
        leftNz[1 + y] = left;
      }
      for (let j = 5; j <= 7; j += 2) {
        const base = j === 5 ? 16 : 20;
        for (let y = 0; y < 2; y++) {
          let left = leftNz[j + y];
          for (let x = 0; x < 2; x++) {
            const off = (base + y * 2 + x) * 16;
            const found = readCoefficients(br, tokenProbs, 2, topNz[tn + j + x] + left, segment.uvdc, segment.uvac, coeffs, off, 0);
            inverseTransform(coeffs, off, found);
            left = topNz[tn + j + x] = found & 1;
          }
          leftNz[j + y] = left;
        }
      }
    } else {
      if (ymode !== B_PRED) topNz[tn] = leftNz[0] = 0;
      for (let i = 1; i < 9; i++) topNz[tn + i] = leftNz[i] = 0;
    }

    // Luma: border, prediction, residue.
    const S = LUMA_STRIDE;
    const { ws, topBorder, leftBorder, Y, yStride, mbw } = this;
    if (mby === 0) {
      ws.fill(127, 0, S);
    } else {
      const last = mbx === mbw - 1;
      for (let i = 0; i < 20; i++) ws[1 + i] = topBorder[last && i >= 16 ? mbx * 16 + 15 : mbx * 16 + i];
    }
    for (let i = 17; i < 21; i++) ws[4 * S + i] = ws[8 * S + i] = ws[12 * S + i] = ws[i];
    for (let i = 0; i < 16; i++) ws[(i + 1) * S] = mbx === 0 ? 129 : leftBorder[i + 1];
    ws[0] = mby === 0 ? 127 : mbx === 0 ? 129 : leftBorder[0];
    if (ymode === B_PRED) {
      for (let i = 0; i < 16; i++) {
        const x0 = (i & 3) * 4 + 1, y0 = (i >> 2) * 4 + 1;
        predictSubblock(ws, bmodes[i], x0, y0);
        addResidue(ws, S, x0, y0, coeffs, i * 16);
      }
    } else {
      predictBlock(ws, ymode, 16, S, mby !== 0, mbx !== 0);
      for (let i = 0; i < 16; i++) addResidue(ws, S, (i & 3) * 4 + 1, (i >> 2) * 4 + 1, coeffs, i * 16);
    }
    leftBorder[0] = ws[16];
    for (let i = 0; i < 16; i++) {
      topBorder[mbx * 16 + i] = ws[16 * S + 1 + i];
      leftBorder[i + 1] = ws[(i + 1) * S + 16];
      const src = (i + 1) * S + 1;
      const dst = (8 + i) * yStride + mbx * 16;
      for (let x = 0; x < 16; x++) Y[dst + x] = ws[src + x];
    }

    // Chroma: the `image` crate's borders use only pixels inside the image (127 above / 129 left outside).
    const C = CHROMA_STRIDE;
    const { uws, vws, uTop, vTop, uLeft, vLeft, U, V, cStride, cw, ch } = this;
    const xl = Math.min(cw - mbx * 8, 8);
    const yl = Math.min(ch - mby * 8, 8);
    for (let y = 0; y < 8; y++) {
      const inside = mbx !== 0 && y < yl;
      uws[(y + 1) * C] = inside ? uLeft[y] : 129;
      vws[(y + 1) * C] = inside ? vLeft[y] : 129;
    }
    for (let x = 0; x < 8; x++) {
      const inside = mby !== 0 && x < xl;
      uws[x + 1] = inside ? uTop[mbx * 8 + x] : 127;
      vws[x + 1] = inside ? vTop[mbx * 8 + x] : 127;
    }
    uws[0] = mby === 0 ? 127 : mbx === 0 ? 129 : this.uCorner;
    vws[0] = mby === 0 ? 127 : mbx === 0 ? 129 : this.vCorner;
    predictBlock(uws, uvmode, 8, C, mby !== 0, mbx !== 0);
    predictBlock(vws, uvmode, 8, C, mby !== 0, mbx !== 0);
    for (let i = 0; i < 4; i++) {
      const x0 = (i & 1) * 4 + 1, y0 = (i >> 1) * 4 + 1;
      addResidue(uws, C, x0, y0, coeffs, (16 + i) * 16);
      addResidue(vws, C, x0, y0, coeffs, (20 + i) * 16);
    }
    if (mbx * 8 + 7 < cw) {
      this.uCorner = uTop[mbx * 8 + 7];
      this.vCorner = vTop[mbx * 8 + 7];
    }
    for (let x = 0; x < xl; x++) {
      uTop[mbx * 8 + x] = uws[8 * C + 1 + x];
      vTop[mbx * 8 + x] = vws[8 * C + 1 + x];
    }
    for (let y = 0; y < 8; y++) {
      uLeft[y] = uws[(y + 1) * C + 8];
      vLeft[y] = vws[(y + 1) * C + 8];
      const src = (y + 1) * C + 1;
      const dst = (4 + y) * cStride + mbx * 8;
      for (let x = 0; x < 8; x++) {
        U[dst + x] = uws[src + x];
        V[dst + x] = vws[src + x];
      }
    }

    // Loop-filter strength (the `image` crate's rules: mode delta for B_PRED only, hev 1 below level 40).
    let level = segment.filterLevel;
    level = level < 0 ? 0 : level > 63 ? 63 : level;
    if (ymode === B_PRED) level += h.modeDelta0;
    level = level < 0 ? 0 : level > 63 ? 63 : level;
    let interior = level;
    if (h.sharpness > 0) {
      interior >>= h.sharpness > 4 ? 2 : 1;
      if (interior > 9 - h.sharpness) interior = 9 - h.sharpness;
    }
    if (interior === 0) interior = 1;
    this.fLevel[mbx] = level;
    this.fInterior[mbx] = interior;
    this.fHev[mbx] = level >= 40 ? 2 : 1;
    this.fInner[mbx] = ymode === B_PRED || !skip ? 1 : 0;
  }

  /** Converts the rows that no later filtering changes to RGBA and hands them to the reducer. */
  private emitRows(mby: number): void {
    const { Y, U, V, yStride, cStride, width, height, rgbaRow, rgbaClamped, reducer } = this;
    const outStart = this.outStart;
    const last = mby === this.mbh - 1;
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
    this.outStart = outEnd;
  }

  /** Filters the macroblocks of row mby in raster order, within the visible image as the reference does. */
  private filterRow(mby: number): void {
    const { Y, U, V, yStride, cStride, width, height, ch, cw, mbw, fLevel, fInterior, fHev, fInner } = this;
    const simple = this.h.simpleFilter;
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
}
