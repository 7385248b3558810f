// PNG chunks (PNG spec 5.3): after the 8-byte signature, each chunk is a 4-byte big-endian length, a 4-byte
// type, the data and a CRC-32 over type and data. Walked by the header guard (IHDR, APNG's acTL), the privacy
// scrubber (eXIf and the XMP / raw-profile text chunks, whose CRC it rewrites) and the lean decoder.
import { crc32 } from "../../platform/formats/crc32";
import { ascii, startsWith, u32be, writeU32be } from "./bytes";

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

export function isPng(b: Uint8Array): boolean {
  return startsWith(b, PNG_SIGNATURE);
}

export type PngChunk = {
  type: string;
  /** Where the chunk starts (its length field). */
  at: number;
  /** The data: start + the declared length; end may lie past the end of the bytes (then so does the CRC). */
  start: number;
  end: number;
  /** The declared length. */
  length: number;
};

/**
 * The chunks after the signature, in order, each as declared, while a length and type fit in the bytes. A
 * chunk whose data or CRC is cut off is still yielded (callers decide what that means: `isComplete`), and
 * the walk ends after it.
 */
export function* pngChunks(b: Uint8Array): Generator<PngChunk> {
  let pos = 8;
  while (pos + 8 <= b.length) {
    const length = u32be(b, pos);
    const start = pos + 8;
    yield { type: ascii(b, pos + 4, 4), at: pos, start, end: start + length, length };
    pos = start + length + 4;
  }
}

/** Whether the chunk's data and CRC lie inside the bytes. */
export function isComplete(b: Uint8Array, chunk: PngChunk): boolean {
  return chunk.end + 4 <= b.length;
}

/** Critical chunks (IHDR, PLTE, IDAT, IEND) have an upper-case first letter: bit 5 of the first type byte clear. */
export function isCritical(b: Uint8Array, chunk: PngChunk): boolean {
  return (b[chunk.at + 4] & 0x20) === 0;
}

/** Whether the stored CRC matches type and data (a complete chunk only). */
export function crcMatches(b: Uint8Array, chunk: PngChunk): boolean {
  return crc32(b.subarray(chunk.at + 4, chunk.end)) === u32be(b, chunk.end);
}

/** Stores the CRC of type and data, after editing the data in place. */
export function writeCrc(b: Uint8Array, chunk: PngChunk): void {
  writeU32be(b, chunk.end, crc32(b.subarray(chunk.at + 4, chunk.end)));
}
