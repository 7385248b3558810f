// An image's format by its signature: the one sniff shared by the upload gate (uploads/magic.ts), the header
// guard (header.ts) and the decoders' entry (decoders/index.ts).
import { ascii, startsWith } from "./bytes";
import { isPng } from "./png-chunks";
import { isWebp } from "./riff";

export type ImageFormat = "png" | "jpeg" | "gif" | "webp" | "bmp" | "avif";

/** SOI and the first byte of the next marker. */
export const isJpeg = (b: Uint8Array): boolean => startsWith(b, [0xff, 0xd8, 0xff]);

export function isGif(b: Uint8Array): boolean {
  const signature = ascii(b, 0, 6);
  return signature === "GIF87a" || signature === "GIF89a";
}

export const isBmp = (b: Uint8Array): boolean => ascii(b, 0, 2) === "BM";

/** An ISO BMFF `ftyp` box; whether its brands say AVIF is for each caller to check (the header guard, the upload gate). */
export const isIsoBmff = (b: Uint8Array): boolean => ascii(b, 4, 4) === "ftyp";

/** The format by its signature, or null. */
export function sniffFormat(b: Uint8Array): ImageFormat | null {
  if (isPng(b)) return "png";
  if (isJpeg(b)) return "jpeg";
  if (isGif(b)) return "gif";
  if (isWebp(b)) return "webp";
  if (isBmp(b)) return "bmp";
  if (isIsoBmff(b)) return "avif";
  return null;
}
