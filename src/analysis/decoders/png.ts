// Lean PNG decoder: PNG straight to a block-reduced RGBA8 image without ever holding width x height pixels.
// The concatenated IDAT data is inflated by the runtime's DecompressionStream("deflate") (zlib format) and
// consumed chunk by chunk: two filtered rows (previous and current) and one RGBA8 row are all the
// full-resolution state; rows go to BoxReducer, or, for Adam7, pixels go to InterlacedAccumulator.
//
// Follows photon (Rust `png` + `image` crates), which the tests compare against:
// - CRCs are checked on the critical chunks we use (IHDR, PLTE, IDAT) and ignored on ancillary ones (the png
//   crate errors on a bad IDAT CRC but still uses a tRNS with a bad CRC);
// - APNG: the default image (IDAT) is decoded, whether or not it is the animation's first frame;
// - sample conversions (16-bit rounding, tRNS keys, short palettes): see png-rows.ts.
// More lenient than photon where leniency costs nothing: a missing IEND, a truncated chunk after the image
// data, data past the last scanline and a missing Adler-32 checksum are accepted (inflation stops as soon as
// the last scanline is complete, which also defuses zlib bombs); a tRNS on a colour type with alpha is ignored.

import { passesOf, InterlacedAccumulator, type Pass } from "./png-interlace";
import { channelsOf, paletteRgba, toRgba8, unfilter, validDepth, type RowFormat } from "./png-rows";
import { BoxReducer, LeanDecodeError, reductionFactor, type LeanDecoder } from "./reduce";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Row state is ~20 bytes per pixel of width at 16-bit RGBA: 1M columns cost 21 MB. */
const MAX_WIDTH = 1 << 20;
/** Bounds the work for any input; the header guard's limit (40 MP) is far below. */
const MAX_PIXELS = 2 ** 28;
/** Compressed bytes per piece fed to the inflater: bounds each output chunk (zlib expands at most ~1032x). */
const INFLATE_PIECE = 16 * 1024;

type Header = { width: number; height: number; depth: number; colorType: number; interlaced: boolean };
type Parsed = { header: Header; plte: Uint8Array | null; trns: Uint8Array | null; idat: Uint8Array[] };

let crcTable: Int32Array | null = null;
function crc32(bytes: Uint8Array, start: number, end: number): number {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  const t = crcTable;
  let c = -1;
  for (let i = start; i < end; i++) c = t[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function u32(b: Uint8Array, p: number): number {
  return ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
}

function parseHeader(d: Uint8Array): Header {
  const width = u32(d, 0);
  const height = u32(d, 4);
  const [depth, colorType, compression, filter, interlace] = [d[8], d[9], d[10], d[11], d[12]];
  if (width === 0 || height === 0) throw new LeanDecodeError(`PNG: empty image ${width}x${height}`);
  if (width > MAX_WIDTH || width * height > MAX_PIXELS) throw new LeanDecodeError(`PNG: ${width}x${height} is too large`);
  if (!validDepth(colorType, depth)) throw new LeanDecodeError(`PNG: invalid colour type ${colorType} with bit depth ${depth}`);
  if (compression !== 0 || filter !== 0 || interlace > 1) throw new LeanDecodeError("PNG: unknown compression, filter or interlace method");
  return { width, height, depth, colorType, interlaced: interlace === 1 };
}

/** Walks the chunks up to the end of the IDAT run (PLTE and tRNS must precede it). */
function parseChunks(bytes: Uint8Array): Parsed {
  if (bytes.length < 8 || SIGNATURE.some((v, i) => bytes[i] !== v)) throw new LeanDecodeError("PNG: bad signature");
  let header: Header | null = null;
  let plte: Uint8Array | null = null;
  let trns: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  let pos = 8;
  for (;;) {
    if (pos + 12 > bytes.length) {
      if (idat.length > 0) break; // file ends after the image data: no IEND, accepted
      throw new LeanDecodeError("PNG: truncated before the image data");
    }
    const length = u32(bytes, pos);
    const type = String.fromCharCode(bytes[pos + 4], bytes[pos + 5], bytes[pos + 6], bytes[pos + 7]);
    const dataStart = pos + 8;
    const dataEnd = dataStart + length;
    if (length > 0x7fffffff || dataEnd + 4 > bytes.length) {
      if (idat.length > 0 && type !== "IDAT") break;
      throw new LeanDecodeError(`PNG: truncated ${type} chunk`);
    }
    if (header === null && type !== "IHDR") throw new LeanDecodeError("PNG: IHDR is not the first chunk");
    const critical = (bytes[pos + 4] & 0x20) === 0;
    if (critical && crc32(bytes, pos + 4, dataEnd) !== u32(bytes, dataEnd)) throw new LeanDecodeError(`PNG: bad CRC in ${type}`);
    const data = bytes.subarray(dataStart, dataEnd);
    if (type === "IDAT") {
      idat.push(data);
    } else if (idat.length > 0 || type === "IEND") {
      break; // the image data is one run of IDAT chunks
    } else if (type === "IHDR") {
      if (header !== null) throw new LeanDecodeError("PNG: second IHDR");
      if (length !== 13) throw new LeanDecodeError("PNG: bad IHDR length");
      header = parseHeader(data);
    } else if (type === "PLTE") {
      if (length === 0 || length % 3 !== 0 || length > 768) throw new LeanDecodeError("PNG: bad PLTE length");
      plte = data;
    } else if (type === "tRNS") {
      trns = data;
    }
    pos = dataEnd + 4;
  }
  if (header === null || idat.length === 0) throw new LeanDecodeError("PNG: no image data");
  return { header, plte, trns, idat };
}

function rowFormat({ header, plte, trns }: Parsed): RowFormat {
  const { colorType, depth } = header;
  if (colorType === 3) {
    if (!plte) throw new LeanDecodeError("PNG: palette image without PLTE");
    return { colorType, depth, palette: paletteRgba(plte, trns), key: null };
  }
  let key: number[] | null = null;
  if (trns && colorType === 0 && trns.length === 2) key = [(trns[0] << 8) | trns[1]];
  if (trns && colorType === 2 && trns.length === 6) key = [(trns[0] << 8) | trns[1], (trns[2] << 8) | trns[3], (trns[4] << 8) | trns[5]];
  return { colorType, depth, palette: null, key };
}

/** Receives the inflated bytes in chunks; unfilters, converts and reduces each completed scanline. */
class ScanlineSink {
  done = false;
  private readonly passes: Pass[];
  private passIndex = 0;
  private passY = 0;
  private rowLen = 0;
  private filled = 0;
  private cur: Uint8Array;
  private prev: Uint8Array;
  private readonly rgba: Uint8Array;
  private readonly bitsPerPixel: number;
  private readonly bpp: number;

  constructor(
    header: Header,
    private readonly fmt: RowFormat,
    private readonly reducer: BoxReducer | null,
    private readonly accumulator: InterlacedAccumulator | null,
  ) {
    this.passes = passesOf(header.width, header.height, header.interlaced);
    this.bitsPerPixel = channelsOf(header.colorType) * header.depth;
    this.bpp = Math.max(1, this.bitsPerPixel >>> 3);
    const maxRowLen = 1 + Math.ceil((header.width * this.bitsPerPixel) / 8);
    this.cur = new Uint8Array(maxRowLen);
    this.prev = new Uint8Array(maxRowLen);
    this.rgba = new Uint8Array(header.width * 4);
    this.startPass();
  }

  private startPass() {
    const pass = this.passes[this.passIndex];
    this.rowLen = 1 + Math.ceil((pass.width * this.bitsPerPixel) / 8);
    this.prev.fill(0, 0, this.rowLen);
    this.passY = 0;
  }

  /** Takes what it needs of `chunk`; sets `done` once the last scanline is complete. */
  push(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n && !this.done) {
      const take = Math.min(this.rowLen - this.filled, n - i);
      if (take > 32) {
        this.cur.set(chunk.subarray(i, i + take), this.filled);
      } else {
        for (let k = 0; k < take; k++) this.cur[this.filled + k] = chunk[i + k];
      }
      this.filled += take;
      i += take;
      if (this.filled === this.rowLen) this.finishRow();
    }
  }

  private finishRow() {
    const pass = this.passes[this.passIndex];
    const cur = this.cur;
    unfilter(cur[0], cur, this.prev, 1, this.rowLen - 1, this.bpp);
    toRgba8(this.fmt, cur, 1, pass.width, this.rgba);
    if (this.accumulator) this.accumulator.addPassRow(pass, this.passY, this.rgba);
    else this.reducer!.addRow(this.passY, this.rgba, 0);
    this.cur = this.prev;
    this.prev = cur;
    this.filled = 0;
    if (++this.passY < pass.height) return;
    if (++this.passIndex < this.passes.length) this.startPass();
    else this.done = true;
  }
}

/** The IDAT data as a stream of small pieces (see INFLATE_PIECE). */
function idatStream(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let part = 0;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      while (part < parts.length && offset >= parts[part].length) {
        part++;
        offset = 0;
      }
      if (part >= parts.length) return controller.close();
      const p = parts[part];
      const end = Math.min(p.length, offset + INFLATE_PIECE);
      // A copy, so the stream machinery never touches (or detaches) the caller's buffer.
      controller.enqueue(p.slice(offset, end));
      offset = end;
    },
  });
}

export const decodePngReduced: LeanDecoder = async (bytes, { targetPixels }) => {
  const parsed = parseChunks(bytes);
  const { width, height, interlaced } = parsed.header;
  const fmt = rowFormat(parsed);
  const factor = reductionFactor(width, height, targetPixels);
  const reducer = interlaced ? null : new BoxReducer(width, height, factor);
  const accumulator = interlaced ? new InterlacedAccumulator(width, height, factor) : null;
  const sink = new ScanlineSink(parsed.header, fmt, reducer, accumulator);

  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = idatStream(parsed.idat).pipeThrough(new DecompressionStream("deflate")).getReader();
  } catch (err) {
    throw new LeanDecodeError(`PNG: cannot inflate: ${String(err)}`);
  }
  try {
    while (!sink.done) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (err) {
        throw new LeanDecodeError(`PNG: corrupt image data (${err instanceof Error ? err.message : String(err)})`);
      }
      if (result.done) throw new LeanDecodeError("PNG: image data ends before the last scanline");
      sink.push(result.value);
    }
  } finally {
    // Stops the inflater: nothing past the last scanline is ever inflated.
    reader.cancel().catch(() => {});
  }
  return accumulator ? accumulator.finish() : reducer!.finish();
};
