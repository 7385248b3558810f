// JPEG marker segments (ITU T.81 B.1): FF, the marker code (after any number of FF fill bytes), and for most
// markers a 2-byte big-endian length that counts itself. Walked by the header guard (to the frame header),
// the privacy scrubber (APP1 EXIF / XMP before the first scan) and the lean decoder (every table and scan).
import { u16be } from "./bytes";

export const SOI = 0xd8;
export const EOI = 0xd9;
export const SOS = 0xda;

/** Markers with no length field: SOI, TEM and the restart markers RST0-7. */
export function isStandalone(marker: number): boolean {
  return marker === SOI || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);
}

export type JpegSegment = {
  marker: number;
  /** The declared length (it counts its own two bytes). */
  length: number;
  /** The payload, after the length field, to where the length says it ends: may lie past the end of the bytes. */
  start: number;
  end: number;
  /**
   * Where the walk goes on: `end`, unless the caller reads on past the segment (a scan's entropy-coded data
   * follows SOS) and sets it.
   */
  next: number;
};

/** Why a walk stopped; each caller words (or accepts) these in its own way. */
export type JpegWalkEnd = "eoi" | "scan" | "truncated" | "not-a-marker" | "bad-length";

export type JpegWalkOptions = {
  /**
   * Skip what is not a marker between segments (and FF 00, a stuffed byte out of place) to the next marker,
   * as libjpeg does with a warning, instead of stopping with "not-a-marker". The decoder's choice.
   */
  resync?: boolean;
  /** Yield SOS segments (the caller decodes the scan and sets `next`) instead of stopping at the first. */
  scans?: boolean;
};

/**
 * The segments after SOI, in order, up to EOI (or the first SOS without `scans`), to a truncated length field
 * or one under 2. Never reads past the bytes; the generator's return value says why it stopped.
 */
export function* jpegSegments(b: Uint8Array, options: JpegWalkOptions = {}): Generator<JpegSegment, JpegWalkEnd> {
  let pos = 2;
  for (;;) {
    if (pos >= b.length) return "truncated";
    if (b[pos] !== 0xff) {
      if (!options.resync) return "not-a-marker";
      pos = nextMarker(b, pos);
      continue;
    }
    while (pos < b.length && b[pos] === 0xff) pos++; // fill bytes
    if (pos >= b.length) return "truncated";
    const marker = b[pos++];
    if (marker === EOI) return "eoi";
    if (isStandalone(marker) || (marker === 0 && options.resync)) continue;
    if (marker === SOS && !options.scans) return "scan";
    if (pos + 2 > b.length) return "truncated";
    const length = u16be(b, pos);
    if (length < 2) return "bad-length";
    const segment: JpegSegment = { marker, length, start: pos + 2, end: pos + length, next: pos + length };
    yield segment;
    pos = segment.next;
  }
}

/** Position of the next marker other than RSTn / stuffing / fill bytes, at or after p (the end if none). */
export function nextMarker(d: Uint8Array, p: number): number {
  const end = d.length;
  while (p + 1 < end) {
    if (d[p] !== 0xff) {
      p++;
      continue;
    }
    const m = d[p + 1];
    if (m === 0xff) p++;
    else if (m === 0 || (m >= 0xd0 && m <= 0xd7)) p += 2;
    else return p;
  }
  return end;
}
