// Lean PNG decoder: PNG straight to a block-reduced RGBA8 image without ever holding width x height pixels (IDAT
// inflated by DecompressionStream chunk by chunk; two filtered rows and one RGBA8 row of state). Where it follows
// photon, where it is more lenient (inflation stops at the last scanline, which also defuses zlib bombs) and where
// stricter (junk after the zlib stream): decoders/README.md § PNG.

import { u16be, u32be } from "../containers/bytes";
import { crcMatches, isComplete, isCritical, isPng, pngChunks } from "../containers/png-chunks";
import { passesOf, InterlacedAccumulator, type Pass } from "./png-interlace";
import { channelsOf, greyLut, paletteLut, toRgba8, unfilter, validDepth, type RowFormat } from "./png-rows";
import { BoxReducer, LeanDecodeError, reductionFactor, type LeanDecoder } from "./reduce";

/** Row state is ~20 bytes per pixel of width at 16-bit RGBA: 1M columns cost 21 MB. */
const MAX_WIDTH = 1 << 20;
/** Bounds the work for any input; the header guard's limit (40 MP) is far below. */
const MAX_PIXELS = 2 ** 28;
/**
 * Compressed bytes per piece fed to the inflater. Small, because an inflater may expand a whole piece before
 * its output is read (zlib: up to ~1032x, so ~16 MB here); we read and stop at the last scanline.
 */
const INFLATE_PIECE = 16 * 1024;
/** Inflated bytes per read: the only buffer of inflated data, however large the image or the zlib bomb. */
const INFLATE_BUFFER = 256 * 1024;

type Header = { width: number; height: number; depth: number; colorType: number; interlaced: boolean };
type Parsed = { header: Header; plte: Uint8Array | null; trns: Uint8Array | null; idat: Uint8Array[] };

function parseHeader(d: Uint8Array): Header {
  const width = u32be(d, 0);
  const height = u32be(d, 4);
  const [depth, colorType, compression, filter, interlace] = [d[8], d[9], d[10], d[11], d[12]];
  if (width === 0 || height === 0) throw new LeanDecodeError(`PNG: empty image ${width}x${height}`);
  if (width > MAX_WIDTH || width * height > MAX_PIXELS) throw new LeanDecodeError(`PNG: ${width}x${height} is too large`);
  if (!validDepth(colorType, depth)) throw new LeanDecodeError(`PNG: invalid colour type ${colorType} with bit depth ${depth}`);
  if (compression !== 0 || filter !== 0 || interlace > 1) throw new LeanDecodeError("PNG: unknown compression, filter or interlace method");
  return { width, height, depth, colorType, interlaced: interlace === 1 };
}

/** Walks the chunks up to the end of the IDAT run (PLTE and tRNS must precede it). */
function parseChunks(bytes: Uint8Array): Parsed {
  if (!isPng(bytes)) throw new LeanDecodeError("PNG: bad signature");
  let header: Header | null = null;
  let plte: Uint8Array | null = null;
  let trns: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  const chunks = pngChunks(bytes);
  for (;;) {
    const next = chunks.next();
    const chunk = next.done ? null : next.value;
    if (!chunk || chunk.start + 4 > bytes.length) {
      if (idat.length > 0) break; // file ends after the image data: no IEND, accepted
      throw new LeanDecodeError("PNG: truncated before the image data");
    }
    const { type, length } = chunk;
    if (length > 0x7fffffff || !isComplete(bytes, chunk)) {
      if (idat.length > 0 && type !== "IDAT") break;
      throw new LeanDecodeError(`PNG: truncated ${type} chunk`);
    }
    if (header === null && type !== "IHDR") throw new LeanDecodeError("PNG: IHDR is not the first chunk");
    if (idat.length > 0 && type !== "IDAT") break; // the image data is one run of IDAT chunks; nothing after it matters
    if (isCritical(bytes, chunk) && !crcMatches(bytes, chunk)) throw new LeanDecodeError(`PNG: bad CRC in ${type}`);
    const data = bytes.subarray(chunk.start, chunk.end);
    if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      break;
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
  }
  if (header === null || idat.length === 0) throw new LeanDecodeError("PNG: no image data");
  return { header, plte, trns, idat };
}

function rowFormat({ header, plte, trns }: Parsed): RowFormat {
  const { colorType, depth } = header;
  if (colorType === 3) {
    if (!plte) throw new LeanDecodeError("PNG: palette image without PLTE");
    return { colorType, depth, lut: paletteLut(plte, trns), key: null };
  }
  let key: number[] | null = null;
  if (trns && colorType === 0 && trns.length === 2) key = [u16be(trns, 0)];
  if (trns && colorType === 2 && trns.length === 6) key = [u16be(trns, 0), u16be(trns, 2), u16be(trns, 4)];
  return { colorType, depth, lut: colorType === 0 && depth <= 8 ? greyLut(depth, key) : null, key };
}

/** Receives the inflated bytes in chunks; unfilters, converts and reduces each completed scanline. */
class ScanlineSink {
  done = false;
  private readonly passes: Pass[];
  private passIndex = 0;
  private passY = 0;
  private rowLen = 0;
  private filled = 0;
  // Filtered rows keep their filter-type byte at index 3, so the data starts 4-aligned (see unfilter).
  private cur: Uint8Array;
  private prev: Uint8Array;
  private cur32: Uint32Array;
  private prev32: Uint32Array;
  private readonly rgba: Uint8Array;
  private readonly rgba32: Uint32Array;
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
    const words = Math.ceil((4 + Math.ceil((header.width * this.bitsPerPixel) / 8)) / 4) + 1;
    this.cur32 = new Uint32Array(words);
    this.prev32 = new Uint32Array(words);
    this.cur = new Uint8Array(this.cur32.buffer);
    this.prev = new Uint8Array(this.prev32.buffer);
    this.rgba32 = new Uint32Array(header.width);
    this.rgba = new Uint8Array(this.rgba32.buffer);
    this.startPass();
  }

  private startPass() {
    const pass = this.passes[this.passIndex];
    this.rowLen = 1 + Math.ceil((pass.width * this.bitsPerPixel) / 8);
    this.prev.fill(0);
    this.passY = 0;
  }

  /** Takes what it needs of `chunk`; sets `done` once the last scanline is complete. */
  push(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n && !this.done) {
      const take = Math.min(this.rowLen - this.filled, n - i);
      const at = 3 + this.filled;
      if (take > 32) {
        this.cur.set(chunk.subarray(i, i + take), at);
      } else {
        for (let k = 0; k < take; k++) this.cur[at + k] = chunk[i + k];
      }
      this.filled += take;
      i += take;
      if (this.filled === this.rowLen) this.finishRow();
    }
  }

  private finishRow() {
    const pass = this.passes[this.passIndex];
    const cur = this.cur;
    unfilter(cur[3], cur, this.prev, this.cur32, this.prev32, 4, this.rowLen - 1, this.bpp);
    toRgba8(this.fmt, cur, 4, pass.width, this.rgba, this.rgba32);
    if (this.accumulator) this.accumulator.addPassRow(pass, this.passY, this.rgba);
    else this.reducer!.addRow(this.passY, this.rgba, 0);
    this.cur = this.prev;
    this.prev = cur;
    const cur32 = this.cur32;
    this.cur32 = this.prev32;
    this.prev32 = cur32;
    this.filled = 0;
    if (++this.passY < pass.height) return;
    if (++this.passIndex < this.passes.length) this.startPass();
    else this.done = true;
  }
}

/** The IDAT data as a stream of pieces (see INFLATE_PIECE). */
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

/**
 * Reads the inflated data into one reused buffer (a BYOB read). workerd's DecompressionStream hands a
 * default reader 4 KB chunks, and the per-chunk promise round trip then costs more than inflating itself
 * (1.5 s vs 0.1 s for 120 MB); a BYOB read fills the whole buffer. Falls back to default reads elsewhere.
 */
class Inflater {
  private readonly byob: ReadableStreamBYOBReader | null = null;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  private buffer: ArrayBuffer | null = new ArrayBuffer(INFLATE_BUFFER);

  constructor(parts: Uint8Array[]) {
    const stream = idatStream(parts).pipeThrough(new DecompressionStream("deflate"));
    try {
      this.byob = stream.getReader({ mode: "byob" });
    } catch {
      this.reader = stream.getReader();
    }
  }

  /** The next inflated bytes, valid until the next call; null at the end of the stream. */
  async read(): Promise<Uint8Array | null> {
    if (this.byob) {
      if (!this.buffer) return null;
      const result = await this.byob.read(new Uint8Array(this.buffer));
      if (result.done || !result.value) {
        this.buffer = null;
        return null;
      }
      this.buffer = result.value.buffer as ArrayBuffer;
      return result.value;
    }
    const result = await this.reader!.read();
    return result.done ? null : result.value;
  }

  cancel(): void {
    (this.byob ?? this.reader)!.cancel().catch(() => {});
  }
}

export const decodePngReduced: LeanDecoder = async (bytes, { targetPixels }) => {
  const parsed = parseChunks(bytes);
  const { width, height, interlaced } = parsed.header;
  const fmt = rowFormat(parsed);
  const factor = reductionFactor(width, height, targetPixels);
  const reducer = interlaced ? null : new BoxReducer(width, height, factor);
  const accumulator = interlaced ? new InterlacedAccumulator(width, height, factor) : null;
  const sink = new ScanlineSink(parsed.header, fmt, reducer, accumulator);

  let inflater: Inflater;
  try {
    inflater = new Inflater(parsed.idat);
  } catch (err) {
    throw new LeanDecodeError(`PNG: cannot inflate: ${String(err)}`);
  }
  try {
    while (!sink.done) {
      let chunk: Uint8Array | null;
      try {
        chunk = await inflater.read();
      } catch (err) {
        throw new LeanDecodeError(`PNG: corrupt image data (${err instanceof Error ? err.message : String(err)})`);
      }
      if (!chunk) throw new LeanDecodeError("PNG: image data ends before the last scanline");
      sink.push(chunk);
    }
  } finally {
    // Stops the inflater: nothing past the last scanline is ever inflated.
    inflater.cancel();
  }
  return accumulator ? accumulator.finish() : reducer!.finish();
};
