// Reads an image's format, dimensions and frame count from its header bytes WITHOUT decoding, so a pixel
// bomb (a small file claiming 100000 x 100000 pixels) is refused before the decoder allocates w x h x 4 bytes.
// Pure and total: any byte sequence gives a result, never an exception.
import { ascii, i32le, startsWith, u16be, u16le, u24le, u32be, u32le } from "./containers/bytes";
import { sniffFormat, type ImageFormat } from "./containers/format";
import { jpegSegments, type JpegWalkEnd } from "./containers/jpeg-segments";
import { pngChunks } from "./containers/png-chunks";
import { riffChunks } from "./containers/riff";

export type ImageHeader = {
  format: ImageFormat;
  width: number;
  height: number;
  frames: number;
  /** Largest pixel count a decoder allocates (a GIF frame may exceed the logical screen); >= width x height. */
  decodePixels: number;
};

/** Why an image is refused before decoding: a limit that protects the decoder, or a header that cannot be read. */
export type HeaderRefusal = "pixel_limit" | "frame_limit" | "unreadable";
export type HeaderResult = ({ ok: true } & ImageHeader) | { ok: false; code: HeaderRefusal; reason: string };

export type HeaderLimits = { maxPixels: number; maxFrames: number };

/** Parses the header, then applies the limits: the one question the job asks before decoding. */
export function inspectImage(bytes: Uint8Array, limits: HeaderLimits): HeaderResult {
  const header = parseImageHeader(bytes);
  if (!header.ok) return header;
  const { width, height, frames, format, decodePixels } = header;
  if (width <= 0 || height <= 0) return { ok: false, code: "unreadable", reason: `${format} header has no dimensions` };
  if (decodePixels > limits.maxPixels) {
    return { ok: false, code: "pixel_limit", reason: `image too large: ${width}x${height} is over ${limits.maxPixels / 1e6} megapixels` };
  }
  if (frames < 1) return { ok: false, code: "unreadable", reason: `${format} header has no frames` };
  if (frames > limits.maxFrames) return { ok: false, code: "frame_limit", reason: `too many frames: ${frames} (limit ${limits.maxFrames})` };
  return header;
}

export function parseImageHeader(bytes: Uint8Array): HeaderResult {
  try {
    const format = sniffFormat(bytes);
    return format ? PARSERS[format](checkedReader(bytes)) : fail("unrecognised image format");
  } catch (err) {
    // Reader throws Truncated when a field lies past the end; anything else is a bug worth surfacing.
    if (err instanceof Truncated) return fail("truncated image header");
    throw err;
  }
}

class Truncated extends Error {}

const fail = (reason: string): HeaderResult => ({ ok: false, code: "unreadable", reason });
const ok = (format: ImageFormat, width: number, height: number, frames = 1, decodePixels = width * height): HeaderResult => ({
  ok: true,
  format,
  width,
  height,
  frames,
  decodePixels: Math.max(decodePixels, width * height),
});

/** Bounds-checked reads (containers/bytes.ts); an out-of-range read throws Truncated. */
function checkedReader(b: Uint8Array) {
  const checked = (read: (b: Uint8Array, o: number) => number, size: number) => (o: number) => {
    if (o < 0 || o + size > b.length) throw new Truncated();
    return read(b, o);
  };
  return {
    b,
    length: b.length,
    u8: checked((b, o) => b[o], 1),
    u16be: checked(u16be, 2),
    u16le: checked(u16le, 2),
    u24le: checked(u24le, 3),
    u32be: checked(u32be, 4),
    u32le: checked(u32le, 4),
    i32le: checked(i32le, 4),
    ascii: (o: number, n: number) => ascii(b, o, n),
  };
}

type Reader = ReturnType<typeof checkedReader>;

// PNG: IHDR is the first chunk; an APNG's acTL (frame count) must come before the first IDAT.
function parsePng(r: Reader): HeaderResult {
  if (r.ascii(12, 4) !== "IHDR") return fail("png: first chunk is not IHDR");
  const width = r.u32be(16);
  const height = r.u32be(20);
  let frames = 1;
  for (const chunk of pngChunks(r.b)) {
    if (chunk.type === "IDAT" || chunk.type === "IEND") break;
    if (chunk.type === "acTL") frames = r.u32be(chunk.start);
  }
  return ok("png", width, height, frames);
}

// JPEG: walk marker segments to the first SOFn (baseline, progressive, lossless, arithmetic variants).
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
const JPEG_WALK_END: Record<JpegWalkEnd, string> = {
  truncated: "truncated image header",
  "not-a-marker": "jpeg: expected a marker",
  eoi: "jpeg: no frame header before scan data",
  scan: "jpeg: no frame header before scan data",
  "bad-length": "jpeg: bad segment length",
};
function parseJpeg(r: Reader): HeaderResult {
  const segments = jpegSegments(r.b);
  let step;
  while (!(step = segments.next()).done) {
    const { marker, start } = step.value;
    if (!JPEG_SOF.has(marker)) continue;
    const height = r.u16be(start + 1);
    const width = r.u16be(start + 3);
    if (height === 0) return fail("jpeg: height defined by DNL is not supported");
    return ok("jpeg", width, height);
  }
  return fail(JPEG_WALK_END[step.value]);
}

// GIF: logical screen size, then count image descriptors (walking every block, since frames have no index).
function parseGif(r: Reader): HeaderResult {
  const width = r.u16le(6);
  const height = r.u16le(8);
  const flags = r.u8(10);
  let pos = 13;
  if (flags & 0x80) pos += 3 * (2 << (flags & 7));
  let frames = 0;
  let maxFramePixels = 0;
  const skipSubBlocks = () => {
    for (;;) {
      const size = r.u8(pos);
      pos += 1 + size;
      if (size === 0) return;
    }
  };
  while (pos < r.length) {
    const block = r.u8(pos);
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      pos += 2; // introducer + label
      skipSubBlocks();
    } else if (block === 0x2c) {
      const fw = r.u16le(pos + 5);
      const fh = r.u16le(pos + 7);
      maxFramePixels = Math.max(maxFramePixels, fw * fh);
      const fflags = r.u8(pos + 9);
      pos += 10;
      if (fflags & 0x80) pos += 3 * (2 << (fflags & 7));
      pos += 1; // LZW minimum code size
      skipSubBlocks();
      frames++;
    } else {
      break; // garbage after the last frame: decoders stop here too
    }
  }
  if (frames === 0) return fail("gif: no image frames");
  // A frame may be larger than the logical screen; decoders allocate the larger of the two.
  return ok("gif", width, height, frames, maxFramePixels);
}

// WebP: RIFF container; simple lossy (VP8), lossless (VP8L) or extended (VP8X, with ANMF frames).
function parseWebp(r: Reader): HeaderResult {
  const chunk = r.ascii(12, 4);
  const data = 20;
  if (chunk === "VP8 ") {
    if (!startsWith(r.b, [0x9d, 0x01, 0x2a], data + 3)) return fail("webp: bad VP8 start code");
    return ok("webp", r.u16le(data + 6) & 0x3fff, r.u16le(data + 8) & 0x3fff);
  }
  if (chunk === "VP8L") {
    if (r.u8(data) !== 0x2f) return fail("webp: bad VP8L signature");
    const bits = r.u32le(data + 1);
    return ok("webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === "VP8X") {
    const animated = (r.u8(data) & 0x02) !== 0;
    const width = r.u24le(data + 4) + 1;
    const height = r.u24le(data + 7) + 1;
    let frames = 0;
    if (animated) {
      for (const chunk of riffChunks(r.b)) if (chunk.tag === "ANMF") frames++;
    }
    return ok("webp", width, height, Math.max(frames, 1));
  }
  return fail("webp: unknown first chunk");
}

function parseBmp(r: Reader): HeaderResult {
  const dib = r.u32le(14);
  if (dib === 12) return ok("bmp", r.u16le(18), r.u16le(20));
  if (dib < 40) return fail("bmp: unknown header");
  const width = r.i32le(18);
  const height = Math.abs(r.i32le(22)); // negative height = top-down rows
  if (width <= 0) return fail("bmp: bad width");
  return ok("bmp", width, height);
}

// AVIF (ISO BMFF): `ispe` properties carry each image item's size; take the largest (grid, alpha and
// thumbnail items all have one). Sequences (avis) count samples in `stsz`.
const AVIF_CONTAINERS = new Set(["meta", "iprp", "ipco", "moov", "trak", "mdia", "minf", "stbl"]);
function parseAvif(r: Reader): HeaderResult {
  const brands = r.ascii(8, Math.max(0, Math.min(r.u32be(0), r.length) - 8));
  if (!/avif|avis/.test(brands)) return fail("unrecognised image format");
  let width = 0;
  let height = 0;
  let frames = 0;
  let boxes = 0;
  const walk = (start: number, end: number) => {
    let pos = start;
    while (pos + 8 <= end) {
      if (++boxes > 10_000) throw new Truncated();
      let size = r.u32be(pos);
      const type = r.ascii(pos + 4, 4);
      let header = 8;
      if (size === 1) {
        const high = r.u32be(pos + 8);
        if (high !== 0) return; // > 4 GiB: not in a file we hold in memory
        size = r.u32be(pos + 12);
        header = 16;
      } else if (size === 0) size = end - pos;
      if (size < header) return;
      const boxEnd = Math.min(pos + size, end);
      if (type === "ispe") {
        const w = r.u32be(pos + header + 4);
        const h = r.u32be(pos + header + 8);
        if (w * h > width * height) [width, height] = [w, h];
      } else if (type === "stsz") {
        frames = Math.max(frames, r.u32be(pos + header + 8));
      } else if (AVIF_CONTAINERS.has(type)) {
        walk(pos + header + (type === "meta" ? 4 : 0), boxEnd);
      }
      pos += size;
    }
  };
  walk(0, r.length);
  if (!width || !height) return fail("avif: no image size (ispe) found");
  return ok("avif", width, height, Math.max(frames, 1));
}

const PARSERS: Record<ImageFormat, (r: Reader) => HeaderResult> = {
  png: parsePng,
  jpeg: parseJpeg,
  gif: parseGif,
  webp: parseWebp,
  bmp: parseBmp,
  avif: parseAvif,
};
