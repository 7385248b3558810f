// Lean JPEG decoder: DCT-domain scaling to 1/8, keeping only each block's DC coefficient (its mean), so a 40 MP
// photo never needs a full-resolution buffer. Memory, progressive scans, EXIF orientation (not applied) and what is
// not supported: decoders/README.md § JPEG. Here: the markers (tables, frame, scan headers) and the image at the
// end; a scan's data is jpeg-scan.ts's.
import { u16be } from "../containers/bytes";
import { jpegSegments, nextMarker, SOS, type JpegWalkEnd } from "../containers/jpeg-segments";
import { BitReader, buildHuffmanTable, type HuffmanTable } from "./jpeg-bits";
import { colorTransform, dcImage, detailWeights } from "./jpeg-color";
import { BASELINE, DC_FIRST, DC_REFINE, decodeScan, type Component, type Frame } from "./jpeg-scan";
import { BoxReducer, LeanDecodeError, reductionFactor, type LeanDecoder, type ReducedImage } from "./reduce";

/** Above the 40 MP the header guard allows, with room: bounds the DC and detail planes for any input. */
const MAX_PIXELS = 1 << 26;
/** Real files have tens of segments; bounds the table building a file of tiny segments could cause. */
const MAX_SEGMENTS = 1 << 16;

const UNSUPPORTED_SOF: Record<number, string> = {
  0xc3: "lossless",
  0xc5: "differential sequential (hierarchical)",
  0xc6: "differential progressive (hierarchical)",
  0xc7: "differential lossless (hierarchical)",
  0xc9: "arithmetic coding",
  0xca: "arithmetic coding",
  0xcb: "arithmetic coding",
  0xcd: "arithmetic coding",
  0xce: "arithmetic coding",
  0xcf: "arithmetic coding",
};

class JpegState {
  frame: Frame | null = null;
  readonly qtables: (Uint16Array | null)[] = [null, null, null, null];
  readonly dcTables: (HuffmanTable | null)[] = [null, null, null, null];
  readonly acTables: (HuffmanTable | null)[] = [null, null, null, null];
  restartInterval = 0;
  adobeTransform: number | null = null;
  jfif = false;
  scans = 0;
  /**
   * Blocks the scans may still decode: bounds the work of a file made of many scans over little or no data (each
   * can run ~500 blocks on zero padding). A valid file decodes each block once per scan covering it: 4 passes over
   * every block for baseline, 32 for progressive (DC scans only, ~1 symbol per block).
   */
  blockBudget = 0;

  constructor(readonly data: Uint8Array) {}

  readDqt(p: number, end: number) {
    while (p < end) {
      const pq = this.data[p] >> 4, tq = this.data[p] & 15;
      const size = pq === 0 ? 64 : 128;
      if (tq > 3 || pq > 1 || p + 1 + size > end) throw new LeanDecodeError("corrupt JPEG: bad DQT segment");
      const t = new Uint16Array(64);
      for (let i = 0; i < 64; i++) t[i] = pq === 0 ? this.data[p + 1 + i] : u16be(this.data, p + 1 + 2 * i);
      this.qtables[tq] = t;
      p += 1 + size;
    }
  }

  readDht(p: number, end: number) {
    while (p < end) {
      if (p + 17 > end) throw new LeanDecodeError("corrupt JPEG: bad DHT segment");
      const tc = this.data[p] >> 4, th = this.data[p] & 15;
      const counts = this.data.subarray(p + 1, p + 17);
      let total = 0;
      for (let i = 0; i < 16; i++) total += counts[i];
      if (tc > 1 || th > 3 || total > 256 || p + 17 + total > end) throw new LeanDecodeError("corrupt JPEG: bad DHT segment");
      const table = buildHuffmanTable(counts, this.data.subarray(p + 17, p + 17 + total));
      (tc === 0 ? this.dcTables : this.acTables)[th] = table;
      p += 17 + total;
    }
  }

  readSof(marker: number, p: number, end: number) {
    if (this.frame) throw new LeanDecodeError("unsupported JPEG: more than one frame");
    if (p + 6 > end) throw new LeanDecodeError("corrupt JPEG: short SOF segment");
    const precision = this.data[p];
    const height = u16be(this.data, p + 1);
    const width = u16be(this.data, p + 3);
    const n = this.data[p + 5];
    if (precision !== 8 && precision !== 12) throw new LeanDecodeError(`unsupported JPEG: ${precision}-bit samples`);
    if (height === 0) throw new LeanDecodeError("unsupported JPEG: height defined by DNL");
    if (width === 0) throw new LeanDecodeError("corrupt JPEG: zero width");
    if (width * height > MAX_PIXELS) throw new LeanDecodeError(`unsupported JPEG: ${width}x${height} is too large`);
    if (n < 1 || n > 4 || n === 2 || p + 6 + 3 * n > end) throw new LeanDecodeError(`unsupported JPEG: ${n} components`);
    const raw = [];
    for (let i = 0; i < n; i++) {
      const q = p + 6 + 3 * i;
      const h = this.data[q + 1] >> 4, v = this.data[q + 1] & 15, tq = this.data[q + 2];
      if (h < 1 || h > 4 || v < 1 || v > 4 || tq > 3) throw new LeanDecodeError("corrupt JPEG: bad component in SOF");
      raw.push({ id: this.data[q], h, v, tq });
    }
    const hmax = Math.max(...raw.map((c) => c.h));
    const vmax = Math.max(...raw.map((c) => c.v));
    const mcusX = Math.ceil(width / (8 * hmax));
    const mcusY = Math.ceil(height / (8 * vmax));
    const comps: Component[] = raw.map((c) => {
      const stride = mcusX * c.h;
      const rows = mcusY * c.v;
      return {
        ...c,
        stride,
        rows,
        dc: new Int32Array(stride * rows),
        q0: 0,
        fx: hmax / c.h,
        fy: vmax / c.v,
        detail: null,
        wantsDetail: marker !== 0xc2 && (c.h < hmax || c.v < vmax) && 8 % (hmax / c.h) === 0 && 8 % (vmax / c.v) === 0,
        weights: null,
        dcComplete: false,
        pred: 0,
        dcTable: null,
        acTable: null,
        // Blocks that hold image samples; a single-component scan covers only these (T.81 A.2.2).
        bw: Math.ceil(Math.ceil((width * c.h) / hmax) / 8),
        bh: Math.ceil(Math.ceil((height * c.v) / vmax) / 8),
      };
    });
    this.frame = { progressive: marker === 0xc2, precision, width, height, comps, hmax, vmax, mcusX, mcusY };
    this.blockBudget = (marker === 0xc2 ? 32 : 4) * comps.reduce((n, c) => n + c.dc.length, 0);
  }

  readApp(marker: number, p: number, end: number) {
    const d = this.data;
    if (marker === 0xe0 && end - p >= 5 && d[p] === 0x4a && d[p + 1] === 0x46 && d[p + 2] === 0x49 && d[p + 3] === 0x46 && d[p + 4] === 0) this.jfif = true;
    // "Adobe" APP14: the transform flag is the byte after version (2), flags0 (2), flags1 (2).
    if (marker === 0xee && end - p >= 12 && d[p] === 0x41 && d[p + 1] === 0x64 && d[p + 2] === 0x6f && d[p + 3] === 0x62 && d[p + 4] === 0x65) this.adobeTransform = d[p + 11];
  }

  /** Decodes one scan starting at its SOS payload; returns the position of the marker that ends it. */
  readScan(p: number, end: number): number {
    const frame = this.frame;
    if (!frame) throw new LeanDecodeError("corrupt JPEG: scan before frame header");
    const d = this.data;
    const ns = d[p];
    if (ns < 1 || ns > 4 || p + 1 + 2 * ns + 3 > end) throw new LeanDecodeError("corrupt JPEG: bad SOS segment");
    const comps: Component[] = [];
    for (let i = 0; i < ns; i++) {
      const id = d[p + 1 + 2 * i], tables = d[p + 2 + 2 * i];
      const c = frame.comps.find((x) => x.id === id);
      if (!c || comps.includes(c)) throw new LeanDecodeError("corrupt JPEG: scan names an unknown component");
      c.dcTable = this.dcTables[tables >> 4] ?? null;
      c.acTable = this.acTables[tables & 15] ?? null;
      comps.push(c);
    }
    const q = p + 1 + 2 * ns;
    const ss = d[q], se = d[q + 1], ah = d[q + 2] >> 4, al = d[q + 2] & 15;
    this.scans++;
    // Progressive AC scans carry nothing the block means need.
    if (frame.progressive && ss > 0) return nextMarker(d, end);
    if (frame.progressive && se !== 0) throw new LeanDecodeError("corrupt JPEG: progressive scan mixes DC and AC");
    for (const c of comps) {
      if (c.q0 === 0) {
        const qt = this.qtables[c.tq];
        if (!qt) throw new LeanDecodeError("corrupt JPEG: missing quantisation table");
        c.q0 = qt[0];
        if (c.wantsDetail) {
          c.weights = detailWeights(c.fx, c.fy, qt);
          c.detail = new Float32Array(c.stride * c.fx * c.rows * c.fy);
        }
      }
      if (!(ah > 0 && frame.progressive) && !c.dcTable) throw new LeanDecodeError("corrupt JPEG: missing Huffman table");
      if (!frame.progressive && !c.acTable) throw new LeanDecodeError("corrupt JPEG: missing Huffman table");
      c.pred = 0;
    }
    const reader = new BitReader(d, end);
    const mode = !frame.progressive ? BASELINE : ah === 0 ? DC_FIRST : DC_REFINE;
    const blocks = decodeScan(reader, frame, comps, mode, al, this.restartInterval, this.blockBudget);
    this.blockBudget -= blocks;
    const expected = ns === 1 ? comps[0].bw * comps[0].bh : frame.mcusX * frame.mcusY * comps.reduce((n, c) => n + c.h * c.v, 0);
    if (mode !== DC_REFINE && blocks >= expected) for (const c of comps) c.dcComplete = true;
    return nextMarker(d, reader.pos);
  }
}

// A target below one pixel would make reductionFactor loop forever; NaN would make no factor at all.
export const decodeJpegReduced: LeanDecoder = async (bytes, options) => decodeJpeg(bytes, Math.max(1, Math.floor(options.targetPixels) || 1));

function decodeJpeg(d: Uint8Array, targetPixels: number): ReducedImage {
  if (d.length < 4 || d[0] !== 0xff || d[1] !== 0xd8) throw new LeanDecodeError("not a JPEG: no SOI marker");
  const state = new JpegState(d);
  let segments = 0;
  const walk = jpegSegments(d, { resync: true, scans: true });
  let stop: JpegWalkEnd | "cut-off";
  for (;;) {
    const step = walk.next();
    if (step.done) {
      stop = step.value;
      break;
    }
    const segment = step.value;
    const { marker, start, end } = segment;
    if (++segments > MAX_SEGMENTS) throw new LeanDecodeError("corrupt JPEG: too many segments");
    if (end > d.length) {
      stop = "cut-off";
      break;
    }
    const unsupported = UNSUPPORTED_SOF[marker];
    if (unsupported) throw new LeanDecodeError(`unsupported JPEG: ${unsupported}`);
    switch (marker) {
      case 0xc0:
      case 0xc1:
      case 0xc2:
        state.readSof(marker, start, end);
        break;
      case 0xc4:
        state.readDht(start, end);
        break;
      case 0xcc:
        throw new LeanDecodeError("unsupported JPEG: arithmetic coding");
      case 0xdb:
        state.readDqt(start, end);
        break;
      case 0xdd:
        if (segment.length < 4) throw new LeanDecodeError("corrupt JPEG: bad DRI segment");
        state.restartInterval = u16be(d, start);
        break;
      case 0xde:
      case 0xdf:
        throw new LeanDecodeError("unsupported JPEG: hierarchical");
      case SOS:
        segment.next = state.readScan(start, end);
        break;
      default:
        if (marker >= 0xe0 && marker <= 0xef) state.readApp(marker, start, end);
    }
  }
  // A segment cut off (or with a bad length) after some image data: decode what is there.
  if ((stop === "cut-off" || stop === "bad-length") && state.scans === 0) throw new LeanDecodeError("corrupt JPEG: truncated segment");
  const frame = state.frame;
  if (!frame) throw new LeanDecodeError("corrupt JPEG: no frame header");
  if (state.scans === 0) throw new LeanDecodeError("corrupt JPEG: no image data");
  // Like photon and Pillow (and unlike libjpeg's warning), a file cut before every block has its mean is refused:
  // the hash and thumbnail of a half-grey picture would be wrong. A progressive file cut in its AC scans is fine.
  if (frame.comps.some((c) => !c.dcComplete)) throw new LeanDecodeError("corrupt JPEG: image data cut short");
  const transform = colorTransform(frame.comps.length, state.adobeTransform, state.jfif, frame.comps.map((c) => c.id));
  const small = dcImage(frame.width, frame.height, frame.precision, frame.hmax, frame.vmax, frame.comps, transform);
  if (small.w * small.h <= targetPixels) return { width: frame.width, height: frame.height, outWidth: small.w, outHeight: small.h, rgba: small.rgba };
  const reducer = new BoxReducer(small.w, small.h, reductionFactor(small.w, small.h, targetPixels));
  for (let y = 0; y < small.h; y++) reducer.addRow(y, small.rgba, y * small.w * 4);
  const out = reducer.finish();
  return { ...out, width: frame.width, height: frame.height };
}
