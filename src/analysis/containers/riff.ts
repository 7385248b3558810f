// RIFF chunks as WebP uses them: "RIFF", a 4-byte little-endian size, "WEBP", then chunks of a 4-byte tag, a
// 4-byte little-endian size and the payload, padded to an even length. Walked by the header guard (VP8X
// animation frames), the privacy scrubber (EXIF and XMP chunks) and the lean decoder (every chunk, and
// again inside an ANMF frame).
import { ascii, u32le } from "./bytes";

export function isWebp(b: Uint8Array): boolean {
  return ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP";
}

export type RiffChunk = {
  tag: string;
  /** Where the chunk starts (its tag). */
  at: number;
  /** The payload as declared: end may lie past `limit` (a truncated chunk; callers decide what that means). */
  start: number;
  end: number;
};

/**
 * The chunks in bytes[start, limit), in order, while a tag and size fit; a few trailing bytes too short for a
 * chunk header are ignored. The first chunk of a WebP file is at 12.
 */
export function* riffChunks(b: Uint8Array, start = 12, limit = b.length): Generator<RiffChunk> {
  let pos = start;
  while (pos + 8 <= limit) {
    const size = u32le(b, pos + 4);
    const payload = pos + 8;
    yield { tag: ascii(b, pos, 4), at: pos, start: payload, end: payload + size };
    pos = payload + size + (size & 1);
  }
}
