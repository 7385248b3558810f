// Lean GIF decoder: the first frame on the logical screen, composed as photon (image-rs 0.24 + gif 0.13) does it,
// errors included, so the fixtures compare exactly. The choices, the one known difference (we stop at the last
// pixel, photon reads a little past it) and the memory: decoders/README.md § GIF.
import { u16le } from "../containers/bytes";
import { isGif } from "../containers/format";
import { BoxReducer, LeanDecodeError, type LeanDecoder, reductionFactor } from "./reduce";

/** Far above the 40 MP header guard; only there so hostile dimensions cannot make the decoder spin for minutes. */
const MAX_PIXELS = 1 << 27;

type Frame = {
  left: number;
  top: number;
  width: number;
  height: number;
  interlaced: boolean;
  /** RGBA as little-endian uint32 per palette index (256 entries; missing ones 0). */
  palette: Uint32Array;
  minCodeSize: number;
  /** Offset of the first data sub-block's size byte. */
  data: number;
};

export const decodeGifReduced: LeanDecoder = async (bytes, { targetPixels }) => {
  if (!isGif(bytes)) throw new LeanDecodeError("not a GIF");
  if (bytes.length < 13) throw new LeanDecodeError("truncated GIF: short screen descriptor");
  const width = u16le(bytes, 6);
  const height = u16le(bytes, 8);
  if (width === 0 || height === 0) throw new LeanDecodeError("corrupt GIF: empty logical screen");
  if (width * height > MAX_PIXELS) throw new LeanDecodeError(`unsupported GIF: ${width}x${height} is too large`);
  const frame = findFirstFrame(bytes);
  if (frame.width * frame.height > MAX_PIXELS) throw new LeanDecodeError("unsupported GIF: frame too large");

  const reducer = new BoxReducer(width, height, reductionFactor(width, height, targetPixels));
  const canvasRow = new Uint8Array(width * 4);
  const canvas32 = new Uint32Array(canvasRow.buffer);
  const blank = new Uint8Array(width * 4);
  const { left, top, interlaced, palette } = frame;
  // Rows of the screen the frame does not cover, in any order when interlaced (the reducer then sums globally).
  const add = (y: number, row: Uint8Array) => (interlaced ? reducer.addRowAnyOrder(y, row) : reducer.addRow(y, row));
  const frameBottom = Math.min(height, top + frame.height);
  for (let y = 0; y < Math.min(top, height); y++) add(y, blank);
  const xEnd = Math.min(width, left + frame.width);
  const coversRow = left === 0 && xEnd === width;

  let fy = 0;
  let pass = 0;
  let step = interlaced ? 8 : 1;
  decodeIndices(bytes, frame, (indices) => {
    const y = top + fy;
    if (y < height) {
      if (!coversRow) canvas32.fill(0);
      for (let x = left, i = 0; x < xEnd; x++, i++) canvas32[x] = palette[indices[i]];
      add(y, canvasRow);
    }
    fy += step;
    // Interlace passes: rows 0, 8, 16...; 4, 12...; 2, 6...; 1, 3... (a pass may be empty on short frames).
    while (interlaced && fy >= frame.height && pass < 3) {
      pass++;
      fy = pass === 1 ? 4 : pass === 2 ? 2 : 1;
      step = pass === 1 ? 8 : pass === 2 ? 4 : 2;
    }
  });
  for (let y = Math.max(frameBottom, top); y < height; y++) add(y, blank);
  return reducer.finish();
};

/** Walks the blocks up to the first image descriptor, keeping the graphic control extension before it. */
function findFirstFrame(b: Uint8Array): Frame {
  const n = b.length;
  const flags = b[10];
  let pos = 13;
  let global: Uint8Array | null = null;
  if (flags & 0x80) {
    const size = 3 << ((flags & 7) + 1);
    if (pos + size > n) throw new LeanDecodeError("truncated GIF: global colour table");
    global = b.subarray(pos, pos + size);
    pos += size;
  }
  let transparent = -1;
  for (;;) {
    if (pos >= n) throw new LeanDecodeError("truncated GIF: no image before the end of the file");
    const block = b[pos];
    if (block === 0x21) {
      if (pos + 2 > n) throw new LeanDecodeError("truncated GIF: extension");
      const label = b[pos + 1];
      pos += 2;
      // plain text, graphic control, comment, application: gif 0.13 refuses any other label
      if (label !== 0x01 && label !== 0xf9 && label !== 0xfe && label !== 0xff) throw new LeanDecodeError(`corrupt GIF: unknown extension 0x${label.toString(16)}`);
      if (label === 0xf9) {
        // gif 0.13 rejects a graphic control block of any other size
        if (pos + 5 > n || b[pos] !== 4) throw new LeanDecodeError("corrupt GIF: graphic control extension is not 4 bytes");
        transparent = b[pos + 1] & 1 ? b[pos + 4] : -1;
      }
      pos = skipSubBlocks(b, pos);
    } else if (block === 0x2c) {
      if (pos + 10 > n) throw new LeanDecodeError("truncated GIF: image descriptor");
      const left = u16le(b, pos + 1);
      const top = u16le(b, pos + 3);
      const width = u16le(b, pos + 5);
      const height = u16le(b, pos + 7);
      const fflags = b[pos + 9];
      pos += 10;
      let table = global;
      if (fflags & 0x80) {
        const size = 3 << ((fflags & 7) + 1);
        if (pos + size > n) throw new LeanDecodeError("truncated GIF: local colour table");
        table = b.subarray(pos, pos + size);
        pos += size;
      }
      if (pos >= n) throw new LeanDecodeError("truncated GIF: no image data");
      const minCodeSize = b[pos];
      if (minCodeSize < 1 || minCodeSize > 11) throw new LeanDecodeError(`corrupt GIF: LZW code size ${minCodeSize}`);
      if (width === 0 || height === 0) throw new LeanDecodeError("unsupported GIF: empty first frame");
      if (!table) throw new LeanDecodeError("corrupt GIF: no colour table for the first frame");
      return { left, top, width, height, interlaced: (fflags & 0x40) !== 0, palette: rgbaPalette(table, transparent), minCodeSize, data: pos + 1 };
    } else if (block === 0x3b) {
      throw new LeanDecodeError("corrupt GIF: no image frames");
    } else {
      throw new LeanDecodeError(`corrupt GIF: unknown block 0x${block.toString(16)}`);
    }
  }
}

function skipSubBlocks(b: Uint8Array, pos: number): number {
  for (;;) {
    if (pos >= b.length) throw new LeanDecodeError("truncated GIF: sub-blocks run past the end");
    const size = b[pos];
    pos += 1 + size;
    if (size === 0) return pos;
  }
}

function rgbaPalette(table: Uint8Array | null, transparent: number): Uint32Array {
  const out = new Uint32Array(256);
  if (!table) return out;
  const bytes = new Uint8Array(out.buffer);
  for (let i = 0, p = 0; p + 2 < table.length && i < 256; i++, p += 3) {
    bytes[i * 4] = table[p];
    bytes[i * 4 + 1] = table[p + 1];
    bytes[i * 4 + 2] = table[p + 2];
    bytes[i * 4 + 3] = i === transparent ? 0 : 255;
  }
  return out;
}

/**
 * Streams the frame's LZW data (variable-width LSB-first codes across data sub-blocks, clear and end codes,
 * 12-bit limit with deferred clear: a full table keeps decoding without adding entries) and calls `onRow`
 * with each complete row of palette indices, frame.height times, in stored (interlaced) order.
 */
function decodeIndices(b: Uint8Array, frame: Frame, onRow: (indices: Uint8Array) => void): void {
  const { width, height, minCodeSize } = frame;
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  const prefix = new Uint16Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const firsts = new Uint8Array(4096);
  for (let i = 0; i < clear; i++) {
    suffix[i] = i;
    firsts[i] = i;
    lengths[i] = 1;
  }
  const stack = new Uint8Array(4096);
  const row = new Uint8Array(width);
  const n = b.length;
  let pos = frame.data;
  let blockLeft = 0;
  let acc = 0;
  let bits = 0;
  let size = minCodeSize + 1;
  let mask = (1 << size) - 1;
  let next = end + 1;
  let prev = -1;
  let x = 0;
  let rows = 0;
  for (;;) {
    while (bits < size) {
      if (blockLeft === 0) {
        if (pos >= n) throw new LeanDecodeError("truncated GIF: image data");
        blockLeft = b[pos++];
        if (blockLeft === 0) throw new LeanDecodeError("truncated GIF: image data ends before the frame is complete");
      }
      if (pos >= n) throw new LeanDecodeError("truncated GIF: image data");
      acc |= b[pos++] << bits;
      bits += 8;
      blockLeft--;
    }
    const code = acc & mask;
    acc >>>= size;
    bits -= size;
    if (code === clear) {
      size = minCodeSize + 1;
      mask = (1 << size) - 1;
      next = end + 1;
      prev = -1;
      continue;
    }
    if (code === end) throw new LeanDecodeError("truncated GIF: LZW end code before the frame is complete");
    if (prev < 0) {
      if (code > end) throw new LeanDecodeError("corrupt GIF: invalid LZW code");
    } else {
      if (code > next || (code === next && next === 4096)) throw new LeanDecodeError("corrupt GIF: invalid LZW code");
      if (next < 4096) {
        // The new entry is prev + the first index of this code's string; when the code is the one being
        // defined (KwKwK), that first index is prev's own first.
        prefix[next] = prev;
        suffix[next] = firsts[code === next ? prev : code];
        firsts[next] = firsts[prev];
        lengths[next] = lengths[prev] + 1;
        next++;
        if (next >= 1 << size && size < 12) {
          size++;
          mask = (1 << size) - 1;
        }
      }
    }
    prev = code;
    const len = lengths[code];
    if (x + len <= width) {
      // The usual case: the string fits the row, so it is written straight in, back to front.
      for (let i = x + len - 1, p = code; i >= x; i--) {
        row[i] = suffix[p];
        p = prefix[p];
      }
      x += len;
      if (x === width) {
        onRow(row);
        x = 0;
        if (++rows === height) return;
      }
      continue;
    }
    for (let i = len - 1, p = code; i >= 0; i--) {
      stack[i] = suffix[p];
      p = prefix[p];
    }
    for (let i = 0; i < len; i++) {
      row[x++] = stack[i];
      if (x === width) {
        onRow(row);
        x = 0;
        if (++rows === height) return;
      }
    }
  }
}
