// Magic-byte sniffing: the first bytes of an upload must be what its declared mime says. This is a cheap
// first gate (the analysis job decodes the whole image later); it keeps e.g. HTML or scripts out of R2
// under an image type. The signatures are read with the analysis's container readers (analysis/containers/).
import { ascii, u32be } from "../analysis/containers/bytes";
import { isBmp, isGif, isIsoBmff, isJpeg } from "../analysis/containers/format";
import { isPng } from "../analysis/containers/png-chunks";
import { isWebp } from "../analysis/containers/riff";
import type { UploadMime } from "../config/uploads";

/** Bytes needed to decide every type below (AVIF's ftyp box with a few compatible brands). */
export const SNIFF_BYTES = 64;

const AVIF_BRANDS = ["avif", "avis"];

/** ISO-BMFF `ftyp` box whose major or a compatible brand is AVIF. */
function isAvif(bytes: Uint8Array): boolean {
  if (!isIsoBmff(bytes) || bytes.byteLength < 12) return false;
  const boxSize = u32be(bytes, 0);
  const end = Math.min(bytes.byteLength, boxSize >= 16 ? boxSize : 12);
  // major brand at 8, minor version at 12, compatible brands from 16 in steps of 4
  if (AVIF_BRANDS.includes(ascii(bytes, 8, 4))) return true;
  for (let at = 16; at + 4 <= end; at += 4) if (AVIF_BRANDS.includes(ascii(bytes, at, 4))) return true;
  return false;
}

const CHECKS: Record<UploadMime, (b: Uint8Array) => boolean> = {
  "image/jpeg": isJpeg,
  "image/png": isPng,
  "image/gif": isGif,
  "image/webp": isWebp,
  "image/avif": isAvif,
  "image/bmp": (b) => isBmp(b) && b.byteLength >= 14,
};

/** True when `head` (the first bytes of the file, up to SNIFF_BYTES) fits the declared mime. */
export function magicMatches(mime: UploadMime, head: Uint8Array): boolean {
  return CHECKS[mime](head);
}

/** The supported type whose signature `head` carries, or null (upload from a URL: the bytes decide, not a header). */
export function sniffMime(head: Uint8Array): UploadMime | null {
  return (Object.keys(CHECKS) as UploadMime[]).find((mime) => CHECKS[mime](head)) ?? null;
}
