// Decoding and everything derived from the pixels: true dimensions, the phash's luma, the thumbnail, the NSFW input.
// Which decoder reads what (photon costs ~12 bytes per pixel, so it takes JPEGs within ANALYSIS.maxDecodePixels; our
// lean decoders the rest; each is the other's fallback for small files): docs/analysis.md. Photon is imported lazily
// so the API's fetch path never instantiates its 1.5 MB wasm; every PhotonImage is freed in a `finally` (wasm memory
// is not garbage collected).
import type { PhotonImage, SamplingFilter } from "@cf-wasm/photon";
import { ANALYSIS } from "../config";
import type { ImageFormat } from "./containers/format";
import { decodeReduced, LeanDecodeError, type ReducedImage } from "./decoders";
import { parseImageHeader, type ImageHeader } from "./header";
import { applyOrientation } from "./orientation";
import { toLuma601 } from "./phash";

type Photon = typeof import("@cf-wasm/photon");

let photonModule: Promise<Photon> | undefined;

/** Once per isolate; the workerd build of photon instantiates its wasm module synchronously on import. */
export function loadPhoton(): Promise<Photon> {
  photonModule ??= import("@cf-wasm/photon");
  return photonModule;
}

export class DecodeError extends Error {
  /** Raised by one of our decoders (a specific reason) rather than by photon. */
  fromLean = false;
}

export type Thumbnail = { bytes: Uint8Array; contentType: "image/jpeg" | "image/png"; extension: "jpg" | "png"; width: number; height: number };

export type DecodedImage = {
  /** Full size of the image as stored (EXIF orientation not applied). */
  width: number;
  height: number;
  /** Which decoder produced the pixels below: photon (full size), or one of ours (decoders/, possibly reduced). */
  decoder: "photon" | "lean";
  /** PIL-compatible "L" pixels (lumaWidth x lumaHeight: the full size, or the reduced size), input of the phash. */
  luma: Uint8Array;
  lumaWidth: number;
  lumaHeight: number;
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
  /** The parsed header, if the caller has it (else parsed here). */
  header?: ImageHeader;
  /** Images with more pixels are decoded reduced, by our decoders (default ANALYSIS.maxDecodePixels). */
  maxFullDecodePixels?: number;
  /** Size of the reduced image (default ANALYSIS.leanTargetPixels). */
  leanTargetPixels?: number;
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
 * Call only after the header guard (at most ANALYSIS.maxPixels): the decoders' memory grows with the image.
 */
export async function decodeImage(bytes: Uint8Array, options: DecodeOptions): Promise<DecodedImage> {
  const parsed = options.header ? { ok: true as const, ...options.header } : parseImageHeader(bytes);
  if (!parsed.ok) throw new DecodeError(`undecodable image: ${parsed.reason}`);
  const header: ImageHeader = parsed;
  const pixels = header.width * header.height;
  const reducedTarget = options.leanTargetPixels ?? ANALYSIS.leanTargetPixels;
  const ours = (targetPixels: number) => () => decodeReducedImage(bytes, options, targetPixels);
  const photon = () => decodeFullImage(bytes, options);
  // In order of preference; the next is tried only when one cannot decode the file. Within the budget photon
  // reads a few damaged files ours refuse (bytes after a PNG's zlib stream), and ours read JPEGs photon refuses
  // (12-bit samples: a 1/8 image beats no analysis).
  const decoders =
    pixels > (options.maxFullDecodePixels ?? ANALYSIS.maxDecodePixels)
      ? [ours(reducedTarget)]
      : OWN_DECODER_FORMATS.has(header.format)
        ? [ours(Math.max(pixels, reducedTarget)), photon] // full size (factor 1)
        : [photon, ours(reducedTarget)];
  const errors: DecodeError[] = [];
  for (const decode of decoders) {
    try {
      return await decode();
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      errors.push(err);
    }
  }
  // Our decoders say what is wrong (photon mostly says "unreachable"): report theirs.
  throw errors.find((e) => e.fromLean) ?? errors[0];
}

/**
 * Formats our decoders read at every size (4 bytes per pixel, not photon's ~12, and exactly photon's pixels on PNG,
 * GIF and BMP); photon keeps JPEGs within the budget, ours giving only the 1/8 DC image. WebP is ours because photon's
 * `image` 0.24 misreads unsegmented VP8 frames and Pillow (the phash reference) does not (docs/analysis.md).
 */
const OWN_DECODER_FORMATS: ReadonlySet<ImageFormat> = new Set(["png", "gif", "bmp", "webp"]);

async function decodeFullImage(bytes: Uint8Array, options: DecodeOptions): Promise<DecodedImage> {
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
    const derived = derive(photon, image, width, height, options);
    // Copy the pixels out last and free the big image before the luma pass, to lower peak memory.
    const rgba = image.get_raw_pixels();
    free(image);
    image = undefined;
    return { width, height, decoder: "photon", luma: toLuma601(rgba, width, height), lumaWidth: width, lumaHeight: height, ...derived };
  } finally {
    free(image);
  }
}

/** Our decoders: a block average of at most targetPixels (full size when it fits); photon only sees that image. */
async function decodeReducedImage(bytes: Uint8Array, options: DecodeOptions, targetPixels: number): Promise<DecodedImage> {
  let reduced: ReducedImage;
  try {
    reduced = await decodeReduced(bytes, targetPixels);
  } catch (err) {
    if (!(err instanceof LeanDecodeError)) throw err;
    const decodeError = new DecodeError(`undecodable image: ${err.message}`);
    decodeError.fromLean = true;
    throw decodeError;
  }
  const { width, height, outWidth, outHeight, rgba } = reduced;
  const photon = await loadPhoton();
  let image: PhotonImage | undefined;
  try {
    image = new photon.PhotonImage(rgba, outWidth, outHeight);
    const derived = derive(photon, image, width, height, options);
    return { width, height, decoder: "lean", luma: toLuma601(rgba, outWidth, outHeight), lumaWidth: outWidth, lumaHeight: outHeight, ...derived };
  } finally {
    free(image);
  }
}

/** Thumbnail and NSFW input from `image` (full or reduced pixels of a width x height picture). */
function derive(photon: Photon, image: PhotonImage, width: number, height: number, options: DecodeOptions) {
  const stepErrors: string[] = [];
  let thumbnail: Thumbnail | null = null;
  if (options.thumbnailMaxSide > 0) {
    try {
      thumbnail = makeThumbnail(photon, image, width, height, options);
    } catch (err) {
      stepErrors.push(`thumbnail: ${message(err)}`);
    }
  }
  let nsfwInput: Uint8Array | null = null;
  if (options.nsfwSize > 0) {
    try {
      // nsfwjs resizes to 224x224 itself (bilinear); doing it here keeps the big image out of tfjs.
      nsfwInput = resizedPixels(photon, image, options.nsfwSize, options.nsfwSize, photon.SamplingFilter.Triangle);
    } catch (err) {
      stepErrors.push(`nsfw input: ${message(err)}`);
    }
  }
  return { thumbnail, nsfwInput, stepErrors };
}

/**
 * At most thumbnailMaxSide on the long side, with the picture's true aspect ratio (`width` x `height`), and never
 * larger than the pixels we have (a reduced image may be smaller than the thumbnail size: a JPEG's 1/8 image).
 */
function makeThumbnail(photon: Photon, image: PhotonImage, width: number, height: number, options: DecodeOptions): Thumbnail {
  const w = image.get_width();
  const h = image.get_height();
  const size = fitLongSide(width, height, Math.min(options.thumbnailMaxSide, Math.max(w, h), Math.max(width, height)));
  const pixels =
    size.width !== w || size.height !== h ? resizedPixels(photon, image, size.width, size.height, photon.SamplingFilter.Lanczos3) : image.get_raw_pixels();
  const upright = applyOrientation({ pixels, width: size.width, height: size.height }, options.orientation);
  let out: PhotonImage | undefined;
  try {
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
  }
}

/** `width` x `height` scaled to `longSide` on its long side, aspect ratio kept (at least 1 x 1). */
export function fitLongSide(width: number, height: number, longSide: number): { width: number; height: number } {
  const scale = longSide / Math.max(width, height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** The RGBA pixels of `image` resized to `width` x `height`; the resized copy is freed at once. */
export function resizedPixels(photon: Photon, image: PhotonImage, width: number, height: number, filter: SamplingFilter): Uint8Array {
  let small: PhotonImage | undefined;
  try {
    small = photon.resize(image, width, height, filter);
    return small.get_raw_pixels();
  } finally {
    free(small);
  }
}
