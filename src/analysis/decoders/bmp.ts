// Lean BMP decoder for the variants photon (image-rs 0.24) decodes, with its choices and its refusals, so the
// fixtures compare exactly. The variants, what is black, and why RLE rows go through addRowAnyOrder:
// decoders/README.md § BMP.
import { i32le, u16le, u32le } from "../containers/bytes";
import { isBmp } from "../containers/format";
import { BoxReducer, LeanDecodeError, type LeanDecoder, reductionFactor } from "./reduce";

/** Far above the 40 MP header guard; only there so hostile dimensions cannot make the decoder spin. */
const MAX_PIXELS = 1 << 27;

type Channel = { shift: number; mask: number; table: Uint8Array };

type Bmp = {
  width: number;
  height: number;
  topDown: boolean;
  bits: number;
  compression: number;
  /** RGBA as little-endian uint32 per index, 256 entries (black, opaque, past the table). */
  palette: Uint32Array | null;
  channels: [Channel, Channel, Channel, Channel | null] | null;
  dataOffset: number;
};

/** Opaque black, (0,0,0,255), as one uint32 in the platform's byte order (rows are filled through uint32 views). */
const BLACK = new Uint32Array(Uint8Array.of(0, 0, 0, 255).buffer)[0];

export const decodeBmpReduced: LeanDecoder = async (bytes, { targetPixels }) => {
  const bmp = parseHeader(bytes);
  const { width, height } = bmp;
  const reducer = new BoxReducer(width, height, reductionFactor(width, height, targetPixels));
  const row = new Uint8Array(width * 4);
  if (bmp.compression === 1 || bmp.compression === 2) {
    decodeRle(bytes, bmp, row, (y) => reducer.addRowAnyOrder(y, row));
    return reducer.finish();
  }
  const stride = Math.floor((width * bmp.bits + 31) / 32) * 4;
  if (bmp.dataOffset + stride * height > bytes.length) throw new LeanDecodeError("truncated BMP: pixel data");
  const row32 = new Uint32Array(row.buffer);
  for (let y = 0; y < height; y++) {
    const p = bmp.dataOffset + (bmp.topDown ? y : height - 1 - y) * stride;
    if (bmp.palette) paletteRow(bytes, p, bmp.bits, width, bmp.palette, row32);
    else if (bmp.channels) maskedRow(bytes, p, bmp.bits, width, bmp.channels, row);
    else {
      const step = bmp.bits >> 3; // 24: BGR, 32 (BI_RGB): BGRx
      for (let x = 0, s = p, o = 0; x < width; x++, s += step, o += 4) {
        row[o] = bytes[s + 2];
        row[o + 1] = bytes[s + 1];
        row[o + 2] = bytes[s];
        row[o + 3] = 255;
      }
    }
    reducer.addRow(y, row);
  }
  return reducer.finish();
};

function parseHeader(b: Uint8Array): Bmp {
  if (b.length < 18 || !isBmp(b)) throw new LeanDecodeError("not a BMP");
  const dataOffset = u32le(b, 10);
  const headerSize = u32le(b, 14);
  if (b.length < 14 + headerSize) throw new LeanDecodeError("truncated BMP: header");
  let width: number;
  let height: number;
  let planes: number;
  let bits: number;
  let compression = 0;
  let colorsUsed = 0;
  let topDown = false;
  if (headerSize === 12) {
    width = u16le(b, 18);
    height = u16le(b, 20);
    planes = u16le(b, 22);
    bits = u16le(b, 24);
    if (bits !== 1 && bits !== 4 && bits !== 8 && bits !== 24) throw new LeanDecodeError(`unsupported BMP: ${bits}-bit OS/2 bitmap`);
  } else if (headerSize === 40 || headerSize === 52 || headerSize === 56 || headerSize === 108 || headerSize === 124) {
    width = i32le(b, 18);
    height = i32le(b, 22);
    planes = u16le(b, 26);
    bits = u16le(b, 28);
    compression = u32le(b, 30);
    colorsUsed = u32le(b, 46);
    if (height < 0) {
      topDown = true;
      height = -height;
    }
  } else {
    throw new LeanDecodeError(`unsupported BMP: ${headerSize}-byte header`);
  }
  if (planes !== 1) throw new LeanDecodeError("corrupt BMP: planes is not 1");
  if (width <= 0 || height <= 0) throw new LeanDecodeError("corrupt BMP: no pixels");
  // image-rs refuses a width or a (bottom-up) height over 65535; top-down heights are not capped there.
  if (width > 0xffff || (!topDown && height > 0xffff)) throw new LeanDecodeError(`unsupported BMP: ${width}x${height} has a side over 65535`);
  if (width * height > MAX_PIXELS) throw new LeanDecodeError(`unsupported BMP: ${width}x${height} is too large`);
  const ok =
    (compression === 0 && [1, 2, 4, 8, 16, 24, 32].includes(bits)) ||
    (compression === 1 && bits === 8) ||
    (compression === 2 && bits === 4) ||
    (compression === 3 && (bits === 16 || bits === 32));
  if (!ok) throw new LeanDecodeError(`unsupported BMP: ${bits} bits with compression ${compression}`);
  if (topDown && (compression === 1 || compression === 2)) throw new LeanDecodeError("unsupported BMP: top-down RLE");

  let palette: Uint32Array | null = null;
  if (bits <= 8) {
    const entries = colorsUsed === 0 ? 1 << bits : colorsUsed;
    if (entries > 1 << bits) throw new LeanDecodeError("corrupt BMP: palette larger than the bit depth allows");
    const entrySize = headerSize === 12 ? 3 : 4;
    const start = 14 + headerSize;
    if (start + entries * entrySize > b.length) throw new LeanDecodeError("truncated BMP: palette");
    palette = new Uint32Array(256).fill(BLACK);
    const out = new Uint8Array(palette.buffer);
    for (let i = 0; i < entries; i++) {
      const p = start + i * entrySize;
      out[i * 4] = b[p + 2];
      out[i * 4 + 1] = b[p + 1];
      out[i * 4 + 2] = b[p];
    }
  }

  let channels: Bmp["channels"] = null;
  if (bits === 16 && compression === 0) {
    channels = [channel(0x7c00, 16), channel(0x03e0, 16), channel(0x001f, 16), null];
  } else if (compression === 3) {
    // Masks follow a 40-byte header (3 of them) or sit inside V2+ headers (alpha from V3 on).
    if (b.length < 66) throw new LeanDecodeError("truncated BMP: bit masks");
    const alphaMask = headerSize >= 56 ? u32le(b, 66) : 0;
    const [r, g, bl] = [u32le(b, 54), u32le(b, 58), u32le(b, 62)];
    if (r === 0 || g === 0 || bl === 0) throw new LeanDecodeError("corrupt BMP: missing colour mask");
    channels = [channel(r, bits), channel(g, bits), channel(bl, bits), alphaMask ? channel(alphaMask, bits) : null];
  }
  return { width, height, topDown, bits, compression, palette, channels, dataOffset };
}

/** A contiguous mask; fields wider than 8 bits keep their top 8 (image-rs), narrower ones scale to 0-255. */
function channel(mask: number, maxBits: number): Channel {
  let shift = 0;
  while (!((mask >>> shift) & 1)) shift++;
  let len = 0;
  while ((mask >>> (shift + len)) & 1 && shift + len < 32) len++;
  if (shift + len < 32 && mask >>> (shift + len) !== 0) throw new LeanDecodeError("unsupported BMP: non-contiguous bit mask");
  if (shift + len > maxBits) throw new LeanDecodeError("corrupt BMP: bit mask wider than the pixel");
  if (len > 8) {
    shift += len - 8;
    len = 8;
  }
  const max = (1 << len) - 1;
  const table = new Uint8Array(max + 1);
  for (let v = 0; v <= max; v++) table[v] = len === 7 ? (v << 1) | (v >> 6) : Math.round((v * 255) / max);
  return { shift, mask: max, table };
}

function paletteRow(b: Uint8Array, p: number, bits: number, width: number, palette: Uint32Array, out: Uint32Array) {
  if (bits === 8) {
    for (let x = 0; x < width; x++) out[x] = palette[b[p + x]];
    return;
  }
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  for (let x = 0; x < width; x++) {
    const shift = 8 - bits * ((x % perByte) + 1);
    out[x] = palette[(b[p + Math.floor(x / perByte)] >> shift) & mask];
  }
}

function maskedRow(b: Uint8Array, p: number, bits: number, width: number, ch: NonNullable<Bmp["channels"]>, out: Uint8Array) {
  const [r, g, bl, a] = ch;
  const step = bits >> 3;
  for (let x = 0, s = p, o = 0; x < width; x++, s += step, o += 4) {
    const v = step === 2 ? u16le(b, s) : u32le(b, s);
    out[o] = r.table[(v >>> r.shift) & r.mask];
    out[o + 1] = g.table[(v >>> g.shift) & g.mask];
    out[o + 2] = bl.table[(v >>> bl.shift) & bl.mask];
    out[o + 3] = a ? a.table[(v >>> a.shift) & a.mask] : 255;
  }
}

/**
 * RLE8 / RLE4 in file order (bottom row first), as image-rs walks it: a run or an absolute run may not pass
 * the row's end, every row ends with an end-of-line (or the stream with end-of-bitmap), and a delta may
 * not leave the image. Each row is handed to `emit` once, when the stream leaves it.
 */
function decodeRle(b: Uint8Array, bmp: Bmp, row: Uint8Array, emit: (y: number) => void) {
  const { width, height } = bmp;
  const palette = bmp.palette!;
  const row32 = new Uint32Array(row.buffer);
  const rle4 = bmp.compression === 2;
  let pos = bmp.dataOffset;
  let fileRow = 0;
  let x = 0;
  row32.fill(BLACK);
  const nextRow = () => {
    emit(height - 1 - fileRow);
    fileRow++;
    x = 0;
    row32.fill(BLACK);
  };
  const corrupt = () => new LeanDecodeError("corrupt BMP: RLE data runs past a row or the image");
  const truncated = () => new LeanDecodeError("truncated BMP: RLE data");
  while (fileRow < height) {
    if (pos + 2 > b.length) throw truncated();
    const count = b[pos];
    const value = b[pos + 1];
    pos += 2;
    if (count > 0) {
      if (x + count > width) throw corrupt();
      if (rle4) for (let i = 0; i < count; i++) row32[x++] = palette[i & 1 ? value & 15 : value >> 4];
      else for (let i = 0; i < count; i++) row32[x++] = palette[value];
    } else if (value === 0) {
      nextRow();
    } else if (value === 1) {
      while (fileRow < height) nextRow();
      return;
    } else if (value === 2) {
      if (pos + 2 > b.length) throw truncated();
      const dx = b[pos];
      const dy = b[pos + 1];
      pos += 2;
      if (dy > 0) {
        if (fileRow + dy >= height) throw corrupt();
        const keepX = x;
        for (let i = 0; i < dy; i++) nextRow();
        x = keepX;
      }
      if (x + dx > width) throw corrupt();
      x += dx;
    } else {
      const n = value;
      let size = rle4 ? (n + 1) >> 1 : n;
      size += size & 1;
      if (pos + size > b.length) throw truncated();
      if (x + n > width) throw corrupt();
      if (rle4) for (let i = 0; i < n; i++) row32[x++] = palette[i & 1 ? b[pos + (i >> 1)] & 15 : b[pos + (i >> 1)] >> 4];
      else for (let i = 0; i < n; i++) row32[x++] = palette[b[pos + i]];
      pos += size;
    }
  }
}
