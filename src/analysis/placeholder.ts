// What a page paints while an image loads: a ThumbHash (npm `thumbhash`, Evan Wallace's reference encoder)
// and the dominant colour, both from the thumbnail the job has just made: it is already upright and small,
// so this costs one decode of a <= 320 px image (a few ms) and never touches the original again.
import { rgbaToThumbHash } from "thumbhash";
import type { PhotonImage } from "@cf-wasm/photon";
import { fitLongSide, loadPhoton, resizedPixels, type Thumbnail } from "./imaging";

export type Placeholder = {
  /** Base64 of the ThumbHash bytes (~25 bytes); decode with thumbhash's thumbHashToDataURL. */
  thumbhash: string;
  /** `#rrggbb`; null when the image is (almost) entirely transparent. */
  dominantColor: string | null;
};

/** ThumbHash takes at most 100 x 100 pixels. */
const MAX_SIDE = 100;

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

const hex = (n: number) => Math.round(n).toString(16).padStart(2, "0");

/**
 * The most common colour, not the mean (a red flower on green leaves is green, not brown): opaque pixels go
 * into 4096 buckets (4 bits per channel), and the answer is the mean of the fullest bucket.
 */
export function dominantColor(rgba: Uint8Array): string | null {
  const count = new Uint32Array(4096);
  const sums = new Float64Array(4096 * 3);
  for (let i = 0; i + 3 < rgba.length; i += 4) {
    if (rgba[i + 3] < 128) continue;
    const bucket = ((rgba[i] >> 4) << 8) | ((rgba[i + 1] >> 4) << 4) | (rgba[i + 2] >> 4);
    count[bucket]++;
    sums[bucket * 3] += rgba[i];
    sums[bucket * 3 + 1] += rgba[i + 1];
    sums[bucket * 3 + 2] += rgba[i + 2];
  }
  let best = -1;
  for (let b = 0; b < 4096; b++) if (count[b] > 0 && (best < 0 || count[b] > count[best])) best = b;
  if (best < 0) return null;
  const n = count[best];
  return `#${hex(sums[best * 3] / n)}${hex(sums[best * 3 + 1] / n)}${hex(sums[best * 3 + 2] / n)}`;
}

/** From raw RGBA of any size: scaled to fit 100 x 100 first when larger (photon, triangle filter). */
export async function placeholderFromRgba(rgba: Uint8Array, width: number, height: number): Promise<Placeholder> {
  let pixels = rgba;
  let size = { width, height };
  if (width > MAX_SIDE || height > MAX_SIDE) {
    const photon = await loadPhoton();
    size = fitLongSide(width, height, MAX_SIDE);
    let image: PhotonImage | undefined;
    try {
      image = new photon.PhotonImage(rgba, width, height);
      pixels = resizedPixels(photon, image, size.width, size.height, photon.SamplingFilter.Triangle);
    } finally {
      image?.free();
    }
  }
  return { thumbhash: toBase64(rgbaToThumbHash(size.width, size.height, pixels)), dominantColor: dominantColor(pixels) };
}

/** From the job's thumbnail (JPEG or PNG bytes, upright). */
export async function placeholderFromThumbnail(thumbnail: Thumbnail): Promise<Placeholder> {
  const photon = await loadPhoton();
  let image: PhotonImage | undefined;
  let rgba: Uint8Array;
  try {
    image = photon.PhotonImage.new_from_byteslice(thumbnail.bytes);
    rgba = image.get_raw_pixels();
    return await placeholderFromRgba(rgba, image.get_width(), image.get_height());
  } finally {
    image?.free();
  }
}
