// Magic-byte sniffing: the first bytes of an upload must be what its declared mime says. This is a cheap
// first gate (the analysis job decodes the whole image later); it keeps e.g. HTML or scripts out of R2
// under an image type.
import type { UploadMime } from "../config";

/** Bytes needed to decide every type below (AVIF's ftyp box with a few compatible brands). */
export const SNIFF_BYTES = 64;

const ascii = (bytes: Uint8Array, at: number, text: string) => {
  if (bytes.byteLength < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

const startsWith = (bytes: Uint8Array, prefix: number[]) =>
  bytes.byteLength >= prefix.length && prefix.every((b, i) => bytes[i] === b);

const AVIF_BRANDS = ["avif", "avis"];

/** ISO-BMFF `ftyp` box whose major or a compatible brand is AVIF. */
function isAvif(bytes: Uint8Array): boolean {
  if (!ascii(bytes, 4, "ftyp") || bytes.byteLength < 12) return false;
  const boxSize = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
  const end = Math.min(bytes.byteLength, boxSize >= 16 ? boxSize : 12);
  // major brand at 8, minor version at 12, compatible brands from 16 in steps of 4
  if (AVIF_BRANDS.some((b) => ascii(bytes, 8, b))) return true;
  for (let at = 16; at + 4 <= end; at += 4) if (AVIF_BRANDS.some((b) => ascii(bytes, at, b))) return true;
  return false;
}

const CHECKS: Record<UploadMime, (b: Uint8Array) => boolean> = {
  "image/jpeg": (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  "image/png": (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/gif": (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a"),
  "image/webp": (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP"),
  "image/avif": isAvif,
  "image/bmp": (b) => ascii(b, 0, "BM") && b.byteLength >= 14,
};

/** True when `head` (the first bytes of the file, up to SNIFF_BYTES) fits the declared mime. */
export function magicMatches(mime: UploadMime, head: Uint8Array): boolean {
  return CHECKS[mime](head);
}
