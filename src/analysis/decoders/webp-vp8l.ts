// VP8L (lossless WebP) decoding to rows. Backward references may reach anywhere earlier in the image, so the
// decoded (pre-transform) ARGB pixels are kept whole: one Uint32Array of width x height, hence the pixel
// limit below. The inverse transforms then run row by row into a single full-width row buffer.
import { u32le } from "../containers/bytes";
import { BitReader } from "./webp-vp8l-bits";
import { decodePixels } from "./webp-vp8l-pixels";
import { TableBudget } from "./webp-vp8l-prefix";
import { inverseTransforms, Transform } from "./webp-vp8l-transforms";
import { LeanDecodeError } from "./reduce";

/**
 * 48 MB of decoded pixels. With the job's file (up to 32 MB) held alongside, photon's wasm memory and the NSFW
 * model, a 128 MB isolate has no room for more. (A 12 MP phone photo fits; lossless WebP that large is rare.)
 */
export const VP8L_MAX_PIXELS = 12_000_000;

/** Prefix-table entries (4 bytes each) one image may build: 16 MB, far above what encoders emit. */
const TABLE_BUDGET = 4 << 20;

function fail(what: string): never {
  throw new LeanDecodeError(`lossless WebP: ${what}`);
}

function checkSize(width: number, height: number) {
  if (width * height > VP8L_MAX_PIXELS) throw new LeanDecodeError(`lossless WebP too large to analyze: ${width}x${height} is over ${VP8L_MAX_PIXELS / 1e6} megapixels`);
}

function add(a: number, b: number): number {
  return (((a & 0xff00ff00) + (b & 0xff00ff00)) & 0xff00ff00) | (((a & 0x00ff00ff) + (b & 0x00ff00ff)) & 0x00ff00ff);
}

/** A sub-image (transform data, entropy image, palette): colour cache header, one group, pixels. */
function decodeSubImage(br: BitReader, width: number, height: number, budget: TableBudget): Uint32Array {
  const cacheBits = readCacheBits(br);
  const out = new Uint32Array(width * height);
  decodePixels(br, width, height, out, null, cacheBits, budget);
  return out;
}

function readCacheBits(br: BitReader): number {
  if (!br.read(1)) return 0;
  const bits = br.read(4);
  if (bits < 1 || bits > 11) fail("bad colour cache size");
  return bits;
}

type Decoded = { argb: Uint32Array; transforms: Transform[]; packedWidth: number };

/** The main image stream: transforms, colour cache, meta prefix codes, then the pixels. */
function decodeImageStream(br: BitReader, width: number, height: number, maxPixels: number): Decoded {
  const budget: TableBudget = { left: TABLE_BUDGET };
  const transforms: Transform[] = [];
  let xsize = width;
  let seen = 0;
  while (br.read(1)) {
    const type = br.read(2);
    if (seen & (1 << type)) fail("repeated transform");
    seen |= 1 << type;
    if (type === 0 || type === 1) {
      const bits = br.read(3) + 2;
      const tilesX = Math.ceil(xsize / (1 << bits));
      const data = decodeSubImage(br, tilesX, Math.ceil(height / (1 << bits)), budget);
      if (type === 0) transforms.push({ kind: "predictor", width: xsize, bits, tilesX, data, prev: new Uint32Array(xsize) });
      else transforms.push({ kind: "color", width: xsize, bits, tilesX, data });
    } else if (type === 2) {
      transforms.push({ kind: "subtractGreen", width: xsize });
    } else {
      const size = br.read(8) + 1;
      const colors = decodeSubImage(br, size, 1, budget);
      const palette = new Uint32Array(256);
      palette[0] = colors[0];
      for (let i = 1; i < size; i++) palette[i] = add(colors[i], palette[i - 1]);
      const bits = size > 16 ? 0 : size > 4 ? 1 : size > 2 ? 2 : 3;
      transforms.push({ kind: "colorIndexing", width: xsize, bits, palette });
      xsize = Math.ceil(xsize / (1 << bits));
    }
  }
  const cacheBits = readCacheBits(br);
  let entropy: { data: Uint32Array; bits: number; tilesX: number } | null = null;
  if (br.read(1)) {
    const bits = br.read(3) + 2;
    const tilesX = Math.ceil(xsize / (1 << bits));
    entropy = { data: decodeSubImage(br, tilesX, Math.ceil(height / (1 << bits)), budget), bits, tilesX };
  }
  br.check();
  if (xsize * height > maxPixels) throw new LeanDecodeError(`WebP alpha plane too large to analyze: ${width}x${height}`);
  const argb = new Uint32Array(xsize * height);
  decodePixels(br, xsize, height, argb, entropy, cacheBits, budget);
  return { argb, transforms, packedWidth: xsize };
}

/** Runs the inverse transforms row by row; `onRow` gets a full-width ARGB row, reused between calls. */
function emitRows(d: Decoded, width: number, height: number, onRow: (y: number, argb: Uint32Array) => void) {
  const row = new Uint32Array(width);
  const pw = d.packedWidth;
  for (let y = 0; y < height; y++) {
    row.set(d.argb.subarray(y * pw, (y + 1) * pw));
    inverseTransforms(d.transforms, row, y);
    onRow(y, row);
  }
}

export type Vp8lHeader = { width: number; height: number; hasAlpha: boolean };

/** The 5-byte header of a VP8L chunk payload. */
export function readVp8lHeader(payload: Uint8Array): Vp8lHeader {
  if (payload.length < 5 || payload[0] !== 0x2f) fail("bad signature");
  const bits = u32le(payload, 1);
  if (bits >>> 29 !== 0) fail("unknown version");
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, hasAlpha: ((bits >>> 28) & 1) === 1 };
}

/** Decodes a VP8L chunk payload, handing each ARGB row (full width, reused) to `onRow` in increasing y. */
export function decodeVp8lRows(payload: Uint8Array, onRow: (y: number, argb: Uint32Array) => void): Vp8lHeader {
  const header = readVp8lHeader(payload);
  checkSize(header.width, header.height);
  const br = new BitReader(payload, 5, payload.length);
  const decoded = decodeImageStream(br, header.width, header.height, VP8L_MAX_PIXELS);
  emitRows(decoded, header.width, header.height, onRow);
  return header;
}

/**
 * An ALPH chunk's lossless stream (no VP8L header): the alpha values are the green channel. The size limit
 * applies to the decoded array, which colour indexing packs (up to 8 pixels per entry for 2 alpha levels),
 * so large lossy images with simple alpha still decode.
 */
export function decodeVp8lAlphaRows(data: Uint8Array, start: number, width: number, height: number, onRow: (y: number, argb: Uint32Array) => void): void {
  const br = new BitReader(data, start, data.length);
  const decoded = decodeImageStream(br, width, height, VP8L_MAX_PIXELS);
  emitRows(decoded, width, height, onRow);
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Converts ARGB rows to RGBA bytes into one reused row (`rgba`), writing whole words on little-endian hosts. */
export class RgbaRow {
  readonly rgba: Uint8Array;
  private readonly words: Uint32Array | null;

  constructor(readonly width: number) {
    this.rgba = new Uint8Array(width * 4);
    this.words = LITTLE_ENDIAN ? new Uint32Array(this.rgba.buffer) : null;
  }

  from(argb: Uint32Array): Uint8Array {
    const w = this.width;
    const words = this.words;
    if (words) {
      // RGBA bytes read as a little-endian uint32 are ABGR: swap red and blue.
      for (let x = 0; x < w; x++) {
        const p = argb[x];
        words[x] = (p & 0xff00ff00) | ((p >>> 16) & 0xff) | ((p & 0xff) << 16);
      }
      return this.rgba;
    }
    const rgba = this.rgba;
    for (let x = 0, o = 0; x < w; x++, o += 4) {
      const p = argb[x];
      rgba[o] = (p >>> 16) & 255;
      rgba[o + 1] = (p >>> 8) & 255;
      rgba[o + 2] = p & 255;
      rgba[o + 3] = p >>> 24;
    }
    return rgba;
  }
}
