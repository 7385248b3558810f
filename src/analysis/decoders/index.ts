// The lean decoders by format: each decodes straight to a block-averaged image of about targetPixels
// (reduce.ts), for images too large for photon's full decode in a 128 MB isolate (see imaging.ts).
import type { ImageFormat } from "../header";
import { decodeBmpReduced } from "./bmp";
import { decodeGifReduced } from "./gif";
import { decodeJpegReduced } from "./jpeg";
import { decodePngReduced } from "./png";
import { LeanDecodeError, type LeanDecodeOptions, type LeanDecoder, type ReducedImage } from "./reduce";
import { decodeWebpReduced } from "./webp";

const DECODERS: Partial<Record<ImageFormat, LeanDecoder>> = {
  jpeg: decodeJpegReduced,
  png: decodePngReduced,
  gif: decodeGifReduced,
  bmp: decodeBmpReduced,
  webp: decodeWebpReduced,
};

export function decodeReduced(bytes: Uint8Array, format: ImageFormat, options: LeanDecodeOptions): Promise<ReducedImage> {
  const decoder = DECODERS[format];
  // AVIF: photon has no decoder for it either; such files end `failed` on both paths.
  if (!decoder) return Promise.reject(new LeanDecodeError(`no decoder for ${format} images`));
  return decoder(bytes, options);
}
