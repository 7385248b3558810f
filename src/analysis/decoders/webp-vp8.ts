// Lean decoder for lossy WebP: the VP8 key frame of a `VP8 ` chunk (RFC 6386), decoded macroblock row by macroblock
// row into a BoxReducer in O(width) state. Bit-exact with photon's `image` 0.24 decoder, its departures from libwebp
// included, but for one deliberate difference (the quantiser of unsegmented frames): decoders/README.md § WebP lossy.
// Here: the frame's rows and macroblocks (modes, prediction, residue). Beside it: a block's tokens
// (webp-vp8-tokens.ts) and each row's loop filter and colour conversion (webp-vp8-rows.ts).
import { BoxReducer, LeanDecodeError, reductionFactor, type LeanDecodeOptions, type ReducedImage } from "./reduce";
import { BoolDecoder, readFrameHeader, type FrameHeader } from "./webp-vp8-bool";
import { addResidue, CHROMA_STRIDE, iwht4x4, LUMA_STRIDE, predictBlock, predictSubblock } from "./webp-vp8-predict";
import { emitRows, filterRow, type Vp8Rows } from "./webp-vp8-rows";
import { inverseTransform, readCoefficients } from "./webp-vp8-tokens";
import {
  AC_QUANT, B_DC, B_HE, B_PRED, B_TM, B_VE, BMODE_PROBS, BMODE_TREE, DC_QUANT, SEGMENT_ID_TREE, UV_MODE_PROBS, UV_MODE_TREE,
  YMODE_PROBS, YMODE_TREE,
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

// State lives in fields of one class (not variables captured by closures, which V8 keeps in a context
// object and reloads on every access in the hot loops).
class Vp8Decoder implements Vp8Rows {
  readonly width: number;
  readonly height: number;
  readonly mbw: number;
  readonly mbh: number;
  /** Chroma size. */
  readonly cw: number;
  readonly ch: number;
  readonly reducer: BoxReducer;
  // Filtered-pixel windows: luma 8 carried rows + 16 rows of the current macroblock row, chroma 4 + 8.
  readonly yStride: number;
  readonly cStride: number;
  readonly Y: Uint8Array;
  readonly U: Uint8Array;
  readonly V: Uint8Array;
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
  readonly fLevel: Uint8Array;
  readonly fInterior: Uint8Array;
  readonly fHev: Uint8Array;
  readonly fInner: Uint8Array;
  // Workspaces.
  private readonly ws = new Uint8Array(LUMA_STRIDE * 17);
  private readonly uws = new Uint8Array(CHROMA_STRIDE * 9);
  private readonly vws = new Uint8Array(CHROMA_STRIDE * 9);
  private readonly coeffs = new Int32Array(384);
  private readonly y2 = new Int32Array(16);
  // One output row seen two ways: stores through the clamped view saturate to 0..255 for free.
  readonly rgbaRow: Uint8Array;
  readonly rgbaClamped: Uint8ClampedArray;
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
      filterRow(this, mby, h.simpleFilter);
      this.outStart = emitRows(this, mby, this.outStart);
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
}
