// The lean decoders by format: each decodes straight to a block-averaged image of about targetPixels
// (reduce.ts), for images too large for photon's full decode in a 128 MB isolate (see imaging.ts).
import type { ImageFormat } from "../header";
import { LeanDecodeError, type LeanDecodeOptions, type LeanDecoder, type ReducedImage } from "./reduce";

const DECODERS: Partial<Record<ImageFormat, LeanDecoder>> = {
};

export function decodeReduced(bytes: Uint8Array, format: ImageFormat, options: LeanDecodeOptions): Promise<ReducedImage> {
  const decoder = DECODERS[format];
  // AVIF: photon has no decoder for it either; such files end `failed` on both paths.
  if (!decoder) return Promise.reject(new LeanDecodeError(`no decoder for ${format} images`));
  return decoder(bytes, options);
}
