// Decoding and everything derived from the decoded pixels, with @cf-wasm/photon (Rust `image` crate in wasm):
// true dimensions, the luma buffer the phash is computed from, the thumbnail and the NSFW model input.
// Photon is imported lazily so the API's fetch path never instantiates its 1.5 MB wasm module; every
// PhotonImage is freed in a `finally` (wasm memory is not garbage collected).
import type { PhotonImage } from "@cf-wasm/photon";
import { applyOrientation } from "./orientation";
import { toLuma601 } from "./phash";

type Photon = typeof import("@cf-wasm/photon");

let photonModule: Promise<Photon> | undefined;

/** Once per isolate; the workerd build of photon instantiates its wasm module synchronously on import. */
export function loadPhoton(): Promise<Photon> {
  photonModule ??= import("@cf-wasm/photon");
  return photonModule;
}

export class DecodeError extends Error {}

export type Thumbnail = { bytes: Uint8Array; contentType: "image/jpeg" | "image/png"; extension: "jpg" | "png"; width: number; height: number };

export type DecodedImage = {
  width: number;
  height: number;
  /** PIL-compatible "L" pixels (width x height), input of the phash. */
  luma: Uint8Array;
  thumbnail: Thumbnail | null;
  /** RGBA, nsfwSize x nsfwSize, for the classifier. */
  nsfwInput: Uint8Array | null;
  /** Steps that failed without failing the decode (thumbnail, nsfw input). */
  stepErrors: string[];
};

export type DecodeOptions = {
  orientation: number | null;
  /** 0 to skip the thumbnail. */
  thumbnailMaxSide: number;
  thumbnailJpegQuality: number;
  /** 0 to skip the NSFW input. */
  nsfwSize: number;
};

function message(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

function free(image: PhotonImage | undefined) {
  try {
    image?.free();
  } catch {
    // Freeing after a wasm trap can trap again; the memory is lost either way.
  }
}

/**
 * Decodes `bytes` (first frame of an animation) and derives what the analysis needs. Throws DecodeError
 * when the image cannot be decoded; thumbnail / NSFW-input failures are reported in `stepErrors`.
 * Call only after the header guard: decoding allocates width x height x 4 bytes of wasm memory.
 */
export async function decodeImage(bytes: Uint8Array, options: DecodeOptions): Promise<DecodedImage> {
  const photon = await loadPhoton();
  let image: PhotonImage | undefined;
  try {
    try {
      image = photon.PhotonImage.new_from_byteslice(bytes);
    } catch (err) {
      // Photon panics (wasm "unreachable") on data it cannot decode, and on formats it has no decoder for (AVIF).
      throw new DecodeError(`undecodable image: ${message(err)}`);
    }
    const width = image.get_width();
    const height = image.get_height();
    const stepErrors: string[] = [];
    let thumbnail: Thumbnail | null = null;
    if (options.thumbnailMaxSide > 0) {
      try {
        thumbnail = makeThumbnail(photon, image, options);
      } catch (err) {
        stepErrors.push(`thumbnail: ${message(err)}`);
      }
    }
    let nsfwInput: Uint8Array | null = null;
    if (options.nsfwSize > 0) {
      let small: PhotonImage | undefined;
      try {
        // nsfwjs resizes to 224x224 itself (bilinear); doing it here keeps the big image out of tfjs.
        small = photon.resize(image, options.nsfwSize, options.nsfwSize, photon.SamplingFilter.Triangle);
        nsfwInput = small.get_raw_pixels();
      } catch (err) {
        stepErrors.push(`nsfw input: ${message(err)}`);
      } finally {
        free(small);
      }
    }
    // Copy the pixels out last and free the big image before the luma pass, to lower peak memory.
    const rgba = image.get_raw_pixels();
    free(image);
    image = undefined;
    return { width, height, luma: toLuma601(rgba, width, height), thumbnail, nsfwInput, stepErrors };
  } finally {
    free(image);
  }
}

function makeThumbnail(photon: Photon, image: PhotonImage, options: DecodeOptions): Thumbnail {
  const w = image.get_width();
  const h = image.get_height();
  const scale = Math.min(1, options.thumbnailMaxSide / Math.max(w, h));
  const tw = Math.max(1, Math.round(w * scale));
  const th = Math.max(1, Math.round(h * scale));
  let small: PhotonImage | undefined;
  let out: PhotonImage | undefined;
  try {
    small = scale < 1 ? photon.resize(image, tw, th, photon.SamplingFilter.Lanczos3) : undefined;
    const upright = applyOrientation({ pixels: (small ?? image).get_raw_pixels(), width: tw, height: th }, options.orientation);
    // JPEG is far smaller for photos; PNG keeps transparency.
    let transparent = false;
    for (let i = 3; i < upright.pixels.length; i += 4) {
      if (upright.pixels[i] !== 255) {
        transparent = true;
        break;
      }
    }
    out = new photon.PhotonImage(upright.pixels, upright.width, upright.height);
    const bytes = transparent ? out.get_bytes() : out.get_bytes_jpeg(options.thumbnailJpegQuality);
    return transparent
      ? { bytes, contentType: "image/png", extension: "png", width: upright.width, height: upright.height }
      : { bytes, contentType: "image/jpeg", extension: "jpg", width: upright.width, height: upright.height };
  } finally {
    free(out);
    free(small);
  }
}
