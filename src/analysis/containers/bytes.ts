// The one set of fixed-width readers for image containers (JPEG segments, PNG chunks, RIFF chunks, TIFF / EXIF,
// BMP and GIF headers); the CRC-32 of PNG chunks is platform/formats/crc32.ts, which the zip writer shares. The readers
// do no bounds checks: a byte past the end reads as 0 (undefined in a bitwise expression), so a caller must check
// that the field lies inside its data where the difference matters. They are called in decoders' inner loops,
// where a check on every read would cost; the header guard wraps them in checked reads (header.ts).

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
