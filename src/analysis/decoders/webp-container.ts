// The WebP RIFF container for the lean path: simple lossy (VP8), simple lossless (VP8L), extended (VP8X with
// optional ALPH) and animated (ANIM/ANMF: the first frame only, on the full canvas). Lossy frames are decoded
// by the VP8 decoder passed in (webp.ts wires the real one); lossless ones by webp-vp8l.ts.
import { u16le, u24le, u32le } from "../containers/bytes";
import { isWebp, riffChunks, type RiffChunk } from "../containers/riff";
import { decodeAlphaRows } from "./webp-alpha";
import { decodeVp8lRows, readVp8lHeader, RgbaRow } from "./webp-vp8l";
import { BoxReducer, LeanDecodeError, reductionFactor, type LeanDecodeOptions, type ReducedImage } from "./reduce";

/** Reduces by exactly `factor` (the canvas's, for an animation frame smaller than its canvas). */
export type Vp8Decoder = (payload: Uint8Array, options: LeanDecodeOptions & { factor: number }) => Promise<ReducedImage>;

type Chunk = RiffChunk;

/** Canvas limit of the decoder itself (the header guard refuses far smaller images first): VP8X allows 2^24 a
 * side, and compositing walks every canvas row. VP8 and VP8L frames are at most 16383 a side anyway. */
const MAX_CANVAS_PIXELS = 1 << 28;
const MAX_CANVAS_SIDE = 1 << 16;

function fail(what: string): never {
  throw new LeanDecodeError(`WebP: ${what}`);
}

/** The chunks in bytes[start, end); each must fit. A few trailing bytes too short for a chunk are ignored. */
function readChunks(b: Uint8Array, start: number, end: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (const chunk of riffChunks(b, start, end)) {
    if (chunk.end > end) fail(`truncated ${chunk.tag} chunk`);
    chunks.push(chunk);
  }
  return chunks;
}

/** RGBA8 pixels of a frame, row by row, for compositing onto the canvas. */
type FrameRows = (onRow: (y: number, rgba: Uint8Array) => void) => void;

/** A frame's image: a VP8L one decodes to rows; a VP8 one (with its ALPH) only to a reduced image. */
type FrameImage = { width: number; height: number; rows: FrameRows } | { width: number; height: number; reduced: (factor: number) => Promise<ReducedImage> };

function losslessFrame(bytes: Uint8Array, c: Chunk): FrameImage {
  const payload = bytes.subarray(c.start, c.end);
  const { width, height } = readVp8lHeader(payload);
  const rows: FrameRows = (onRow) => {
    const row = new RgbaRow(width);
    decodeVp8lRows(payload, (y, argb) => onRow(y, row.from(argb)));
  };
  return { width, height, rows };
}

/** VP8 frame size from its key-frame header (the decoder checks the rest). */
function vp8Size(bytes: Uint8Array, c: Chunk): { width: number; height: number } {
  const p = c.start;
  if (c.end - p < 10 || bytes[p + 3] !== 0x9d || bytes[p + 4] !== 0x01 || bytes[p + 5] !== 0x2a) fail("bad VP8 frame header");
  return { width: u16le(bytes, p + 6) & 0x3fff, height: u16le(bytes, p + 8) & 0x3fff };
}

function lossyFrame(bytes: Uint8Array, c: Chunk, alph: Chunk | undefined, vp8: Vp8Decoder): FrameImage {
  const { width, height } = vp8Size(bytes, c);
  if (width === 0 || height === 0) fail("empty VP8 frame");
  const reduced = async (factor: number): Promise<ReducedImage> => {
    const outPixels = Math.ceil(width / factor) * Math.ceil(height / factor);
    const image = await vp8(bytes.subarray(c.start, c.end), { targetPixels: outPixels, factor });
    if (image.width !== width || image.height !== height) fail("VP8 frame size mismatch");
    if (image.outWidth !== Math.ceil(width / factor) || image.outHeight !== Math.ceil(height / factor)) fail("VP8 reduction mismatch");
    if (alph) {
      // The reducer averages channels independently, so the alpha plane is reduced on its own (R=G=B=A=alpha)
      // and its alpha written over the opaque VP8 result.
      const reducer = new BoxReducer(width, height, factor);
      const row = new Uint8Array(width * 4);
      decodeAlphaRows(bytes.subarray(alph.start, alph.end), width, height, (y, alpha) => {
        for (let x = 0; x < width; x++) row[x * 4] = row[x * 4 + 1] = row[x * 4 + 2] = row[x * 4 + 3] = alpha[x];
        reducer.addRow(y, row);
      });
      const a = reducer.finish().rgba;
      const out = image.rgba;
      for (let i = 3; i < out.length; i += 4) out[i] = a[i];
    }
    return image;
  };
  return { width, height, reduced };
}

/** The image chunks of a still image or of an animation frame: optional ALPH, then VP8 or VP8L. */
function frameImage(bytes: Uint8Array, chunks: Chunk[], vp8: Vp8Decoder): FrameImage {
  let alph: Chunk | undefined;
  for (const c of chunks) {
    if (c.tag === "ALPH") alph ??= c;
    else if (c.tag === "VP8L") return losslessFrame(bytes, c);
    else if (c.tag === "VP8 ") return lossyFrame(bytes, c, alph, vp8);
  }
  fail("no image data");
}

async function reduceFrame(frame: FrameImage, options: LeanDecodeOptions): Promise<ReducedImage> {
  const factor = reductionFactor(frame.width, frame.height, options.targetPixels);
  if ("reduced" in frame) return frame.reduced(factor);
  const reducer = new BoxReducer(frame.width, frame.height, factor);
  frame.rows((y, rgba) => reducer.addRow(y, rgba));
  return reducer.finish();
}

type Placement = { x: number; y: number; width: number; height: number; blend: boolean };

/** Alpha-blends src over dst (straight, non-premultiplied RGBA); over the transparent canvas this copies src,
 * except that fully transparent pixels leave the canvas (0, 0, 0, 0), as photon does. */
function blendPixel(src: Uint8Array, s: number, dst: Uint8Array, d: number) {
  const sa = src[s + 3];
  if (sa === 255) {
    dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = 255;
    return;
  }
  if (sa === 0) return;
  const da = dst[d + 3];
  const dscale = (da * (255 - sa)) / 255;
  const a = sa + dscale;
  for (let k = 0; k < 3; k++) dst[d + k] = Math.round((src[s + k] * sa + dst[d + k] * dscale) / a);
  dst[d + 3] = Math.round(a);
}

/**
 * The first animation frame composited onto the canvas, reduced. Like photon (image-webp), the canvas starts
 * transparent black: ANIM's background colour is only a hint and is ignored. With blending, the frame's fully
 * transparent pixels therefore stay (0, 0, 0, 0); without, they are copied as they are.
 */
async function reduceOnCanvas(frame: FrameImage, canvasW: number, canvasH: number, at: Placement, options: LeanDecodeOptions): Promise<ReducedImage> {
  const factor = reductionFactor(canvasW, canvasH, options.targetPixels);
  const reducer = new BoxReducer(canvasW, canvasH, factor);
  const row = new Uint8Array(canvasW * 4);
  const fillBackground = () => row.fill(0);
  if ("rows" in frame) {
    fillBackground();
    for (let y = 0; y < at.y; y++) reducer.addRow(y, row);
    frame.rows((fy, rgba) => {
      fillBackground();
      if (at.blend) for (let x = 0; x < frame.width; x++) blendPixel(rgba, x * 4, row, (at.x + x) * 4);
      else row.set(rgba.subarray(0, frame.width * 4), at.x * 4);
      reducer.addRow(at.y + fy, row);
    });
    fillBackground();
    for (let y = at.y + frame.height; y < canvasH; y++) reducer.addRow(y, row);
    return reducer.finish();
  }
  // A lossy frame is only available reduced (with the canvas factor, blocks aligned to the frame's corner).
  // Each canvas block takes the frame blocks it overlaps, weighted by the overlap, over the transparent
  // canvas: exact but for rounding when the offset is a multiple of the factor (always at factor 1 or 2,
  // offsets being even) and no blended pixel is fully transparent (photon leaves those (0, 0, 0, 0));
  // an area-weighted approximation otherwise.
  const image = await frame.reduced(factor);
  const out = reducer.finish(); // all transparent
  const f = factor;
  const sums = new Float64Array(4);
  const yEnd = Math.ceil((at.y + frame.height) / f);
  const xEnd = Math.ceil((at.x + frame.width) / f);
  for (let oy = Math.floor(at.y / f); oy < yEnd; oy++) {
    const cy0 = oy * f, cy1 = Math.min(cy0 + f, canvasH);
    const fy0 = Math.max(cy0, at.y) - at.y, fy1 = Math.min(cy1, at.y + frame.height) - at.y;
    for (let ox = Math.floor(at.x / f); ox < xEnd; ox++) {
      const cx0 = ox * f, cx1 = Math.min(cx0 + f, canvasW);
      const fx0 = Math.max(cx0, at.x) - at.x, fx1 = Math.min(cx1, at.x + frame.width) - at.x;
      sums.fill(0);
      for (let j = Math.floor(fy0 / f); j <= Math.floor((fy1 - 1) / f); j++) {
        const h = Math.min(fy1, (j + 1) * f) - Math.max(fy0, j * f);
        for (let i = Math.floor(fx0 / f); i <= Math.floor((fx1 - 1) / f); i++) {
          const area = h * (Math.min(fx1, (i + 1) * f) - Math.max(fx0, i * f));
          const s = (j * image.outWidth + i) * 4;
          for (let k = 0; k < 4; k++) sums[k] += image.rgba[s + k] * area;
        }
      }
      const n = (cx1 - cx0) * (cy1 - cy0);
      const d = (oy * out.outWidth + ox) * 4;
      for (let k = 0; k < 4; k++) out.rgba[d + k] = Math.round(sums[k] / n);
    }
  }
  return out;
}

export async function decodeWebpWith(bytes: Uint8Array, options: LeanDecodeOptions, vp8: Vp8Decoder): Promise<ReducedImage> {
  if (!isWebp(bytes)) fail("not a RIFF WEBP file");
  const riffEnd = 8 + u32le(bytes, 4);
  if (riffEnd < 12) fail("bad RIFF size");
  if (riffEnd > bytes.length) fail("truncated file");
  const chunks = readChunks(bytes, 12, riffEnd);
  const first = chunks[0];
  if (!first) fail("no chunks");
  if (first.tag === "VP8 " || first.tag === "VP8L") return reduceFrame(frameImage(bytes, [first], vp8), options);
  if (first.tag !== "VP8X") fail(`unexpected first chunk ${JSON.stringify(first.tag)}`);
  if (first.end - first.start < 10) fail("short VP8X chunk");
  const flags = bytes[first.start];
  const canvasW = u24le(bytes, first.start + 4) + 1;
  const canvasH = u24le(bytes, first.start + 7) + 1;
  if (canvasW > MAX_CANVAS_SIDE || canvasH > MAX_CANVAS_SIDE || canvasW * canvasH > MAX_CANVAS_PIXELS) fail(`${canvasW}x${canvasH} canvas is too large`);
  if (flags & 0x02) {
    const anmf = chunks.find((c) => c.tag === "ANMF");
    if (!anmf) fail("animation without frames");
    if (anmf.end - anmf.start < 16) fail("short ANMF chunk");
    const p = anmf.start;
    const at: Placement = {
      x: u24le(bytes, p) * 2,
      y: u24le(bytes, p + 3) * 2,
      width: u24le(bytes, p + 6) + 1,
      height: u24le(bytes, p + 9) + 1,
      blend: (bytes[p + 15] & 0x02) === 0,
    };
    if (at.x + at.width > canvasW || at.y + at.height > canvasH) fail("frame outside the canvas");
    const frame = frameImage(bytes, readChunks(bytes, p + 16, anmf.end), vp8);
    if (frame.width !== at.width || frame.height !== at.height) fail("frame size mismatch");
    return reduceOnCanvas(frame, canvasW, canvasH, at, options);
  }
  const frame = frameImage(bytes, chunks.slice(1), vp8);
  if (frame.width !== canvasW || frame.height !== canvasH) fail("image size differs from the canvas");
  return reduceFrame(frame, options);
}
