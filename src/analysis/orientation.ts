// EXIF orientation applied to a small RGBA buffer (the thumbnail), so a re-encoded thumbnail, which carries
// no EXIF, displays the way the original does in a browser. Pure.

export type Pixels = { pixels: Uint8Array; width: number; height: number };

/**
 * Returns the upright image for EXIF orientation 1-8 (1: as stored, 2: mirrored, 3: rotated 180, 4: flipped,
 * 5: transposed, 6: rotate 90 clockwise to view, 7: transversed, 8: rotate 90 counter-clockwise to view).
 */
export function applyOrientation(src: Pixels, orientation: number | null): Pixels {
  const o = orientation ?? 1;
  if (o < 2 || o > 8) return src;
  const { width: w, height: h, pixels } = src;
  const swap = o >= 5;
  const ow = swap ? h : w;
  const oh = swap ? w : h;
  const out = new Uint8Array(ow * oh * 4);
  const aligned = pixels.byteOffset % 4 === 0 ? pixels : pixels.slice(); // Uint32Array views need 4-byte alignment
  const u32in = new Uint32Array(aligned.buffer, aligned.byteOffset, w * h);
  const u32out = new Uint32Array(out.buffer);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      let sx: number;
      let sy: number;
      switch (o) {
        case 2: [sx, sy] = [w - 1 - x, y]; break;
        case 3: [sx, sy] = [w - 1 - x, h - 1 - y]; break;
        case 4: [sx, sy] = [x, h - 1 - y]; break;
        case 5: [sx, sy] = [y, x]; break;
        case 6: [sx, sy] = [y, h - 1 - x]; break;
        case 7: [sx, sy] = [w - 1 - y, h - 1 - x]; break;
        default: [sx, sy] = [w - 1 - y, x]; break; // 8
      }
      u32out[y * ow + x] = u32in[sy * w + sx];
    }
  }
  return { pixels: out, width: ow, height: oh };
}
