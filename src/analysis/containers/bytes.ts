// The one set of fixed-width readers for image containers (JPEG segments, PNG chunks, RIFF chunks, TIFF / EXIF,
// BMP headers) and the one CRC-32. The readers do no bounds checks: a byte past the end reads as 0 (undefined
// in a bitwise expression), so a caller must check that the field lies inside its data where the difference
// matters. They are called in decoders' inner loops, where a check on every read would cost; the header guard
// wraps them in checked reads (header.ts).

export function u16be(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1];
}

export function u16le(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8);
}

export function u24le(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16);
}

export function u32be(b: Uint8Array, o: number): number {
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
}

export function u32le(b: Uint8Array, o: number): number {
  return ((b[o + 3] << 24) | (b[o + 2] << 16) | (b[o + 1] << 8) | b[o]) >>> 0;
}

export function i32le(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
}

export function writeU32be(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}

/** `n` bytes at `o` as Latin-1 text (chunk tags, signatures, TIFF byte order); "" when they are not all there. */
export function ascii(b: Uint8Array, o: number, n: number): string {
  if (o < 0 || o + n > b.length) return "";
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[o + i]);
  return s;
}

/** Whether `signature` stands at `o`. */
export function startsWith(b: Uint8Array, signature: readonly number[], o = 0): boolean {
  return o >= 0 && o + signature.length <= b.length && signature.every((v, i) => b[o + i] === v);
}

// Int32Array and -1 rather than Uint32Array and 0xffffffff: the values stay small integers in V8 (no heap
// numbers), which matters when the PNG decoder checks the CRC of every IDAT chunk of a 40 MP image.
const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32 (ISO-HDLC, as in PNG chunks and zip) of bytes[start, end). */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = CRC_TABLE;
  let c = -1;
  for (let i = start; i < end; i++) c = t[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
