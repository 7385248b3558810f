// The decoders' one entry for the rest of the code (README.md here): an image decoded straight to a
// block-averaged image of at most targetPixels (reduce.ts), for images too large for photon's full decode in a
// 128 MB isolate (see imaging.ts). The format is read from the bytes' signature, as the header guard reads it.
import { sniffFormat, type ImageFormat } from "../containers/format";
import { decodeBmpReduced } from "./bmp";
import { decodeGifReduced } from "./gif";
import { decodeJpegReduced } from "./jpeg";
import { decodePngReduced } from "./png";
import { LeanDecodeError, type LeanDecoder, type ReducedImage } from "./reduce";
import { decodeWebpReduced } from "./webp";

export { LeanDecodeError, type ReducedImage };

const DECODERS: Partial<Record<ImageFormat, LeanDecoder>> = {
  jpeg: decodeJpegReduced,
  png: decodePngReduced,
  gif: decodeGifReduced,
  bmp: decodeBmpReduced,
  webp: decodeWebpReduced,
};

/**
 * The first frame of `bytes`, reduced to at most `targetPixels` (full size when it fits; a JPEG's 1/8 DC image
 * may be smaller). Rejects with LeanDecodeError, never anything else, when the bytes are not an image it can
 * decode: corrupt, truncated, an unsupported variant, or a format it has no decoder for.
 */
export function decodeReduced(bytes: Uint8Array, targetPixels: number): Promise<ReducedImage> {
  const format = sniffFormat(bytes);
  const decoder = format && DECODERS[format];
  // AVIF: photon has no decoder for it either; such files end `failed` on both paths.
  if (!decoder) return Promise.reject(new LeanDecodeError(`no decoder for ${format ?? "unrecognised"} images`));
  return decoder(bytes, { targetPixels });
}
