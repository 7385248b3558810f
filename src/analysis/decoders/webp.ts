// Lean WebP decoder: see webp-container.ts (RIFF, extended and animated files), webp-vp8l*.ts (lossless)
// and webp-vp8.ts (lossy).
import { decodeWebpWith } from "./webp-container";
import { decodeVp8Reduced } from "./webp-vp8";
import type { LeanDecoder } from "./reduce";

export { VP8L_MAX_PIXELS } from "./webp-vp8l";

export const decodeWebpReduced: LeanDecoder = (bytes, options) => decodeWebpWith(bytes, options, decodeVp8Reduced);
