// Turns the per-block DC values of a decoded JPEG into the 1/8-scale RGBA image: each output pixel is the
// mean of one 8x8 block of the full-resolution image, which is exactly DC * quant[0] / 8 + centre (the DC
// term of the 8x8 DCT is 8 x the block mean). Colour conversion follows what photon (image-rs jpeg-decoder
// + image) does, so the result matches photon's full decode box-reduced by 8, up to chroma subsampling.
import { LeanDecodeError } from "./reduce";

export type DcComponent = {
  id: number;
  h: number;
  v: number;
  /** Stride of `dc` in blocks (MCU-padded width of the component). */
  stride: number;
  rows: number;
  dc: Int32Array;
  /** quant[0] of the component's table, latched at its first scan (0: never scanned, stays mid-grey). */
  q0: number;
  /** Output pixels per block across and down (hmax / h, vmax / v). */
  fx: number;
  fy: number;
  /** Per output pixel, its sub-block mean minus the block mean (see LOW_COEFFICIENTS), or null. */
  detail: Float32Array | null;
};

/**
 * Zigzag coefficients kept for a subsampled baseline component's `detail` (per output pixel, the mean of its part of
 * the block minus the block mean), so 4:2:0 chroma is as sharp as the luma grid; the rest barely move a 4x4 or 2x8
 * mean. Why and how: decoders/README.md § JPEG.
 */
export const LOW_COEFFICIENTS = 10;
const ZIGZAG_ROW = [0, 0, 1, 2, 1, 0, 0, 1, 2, 3];
const ZIGZAG_COL = [0, 1, 0, 0, 1, 2, 3, 2, 1, 0];

/** Mean of the DCT basis cos((2x+1)u pi/16) over part `part` of `parts` equal parts of 0..7. */
function basisMean(u: number, part: number, parts: number) {
  const len = 8 / parts;
  let sum = 0;
  for (let x = part * len; x < (part + 1) * len; x++) sum += Math.cos(((2 * x + 1) * u * Math.PI) / 16);
  return (sum / len) * (u === 0 ? Math.SQRT1_2 : 1);
}

/** weights[(i * fx + j) * LOW + k]: contribution of quantised coefficient k to part (j, i) of a block. */
export function detailWeights(fx: number, fy: number, quant: Uint16Array): Float64Array {
  const w = new Float64Array(fx * fy * LOW_COEFFICIENTS);
  for (let i = 0; i < fy; i++) {
    for (let j = 0; j < fx; j++) {
      for (let k = 1; k < LOW_COEFFICIENTS; k++) {
        w[(i * fx + j) * LOW_COEFFICIENTS + k] = (quant[k] / 4) * basisMean(ZIGZAG_COL[k], j, fx) * basisMean(ZIGZAG_ROW[k], i, fy);
      }
    }
  }
  return w;
}

export type ColorTransform = "gray" | "ycbcr" | "rgb" | "cmyk" | "ycck";

/**
 * What the colour components mean, decided as jpeg-decoder 0.3 (photon) does, after
 * https://entropymine.wordpress.com/2018/10/22/how-is-a-jpeg-images-color-type-determined/ :
 * well-known component ids first, then JFIF, then the Adobe APP14 transform flag.
 */
export function colorTransform(components: number, adobeTransform: number | null, jfif: boolean, ids: number[]): ColorTransform {
  if (components === 1) return "gray";
  if (components === 3) {
    const id = String.fromCharCode(...ids);
    if (id === "\x01\x02\x03" || id === "\x01\x22\x23") return "ycbcr"; // 1, 34, 35: big-gamut YCC
    if (id === "RGB" || id === "rgb") return "rgb";
    if (jfif) return "ycbcr";
    return adobeTransform === 0 ? "rgb" : "ycbcr";
  }
  if (components === 4) return adobeTransform === null || adobeTransform === 0 ? "cmyk" : "ycck";
  throw new LeanDecodeError(`unsupported JPEG: ${components} colour components`);
}

const clamp = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v));

/**
 * Where each output pixel's centre falls between the centres of a component's blocks, along one axis:
 * `n` output pixels, `factor` output pixels per block (hmax / h), `blocks` blocks holding samples.
 * Returns the lower block index and the weight of the upper one, for linear interpolation.
 */
function axis(n: number, factor: number, blocks: number) {
  const lo = new Int32Array(n);
  const hi = new Int32Array(n);
  const wt = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const pos = Math.min(blocks - 1, Math.max(0, (i + 0.5) / factor - 0.5));
    lo[i] = Math.floor(pos);
    hi[i] = Math.min(blocks - 1, lo[i] + 1);
    wt[i] = pos - lo[i];
  }
  return { lo, hi, wt };
}

/**
 * The ceil(width/8) x ceil(height/8) RGBA image. A subsampled component uses its `detail` (baseline) or, for
 * progressive files (DC scans only), its block means interpolated linearly between block centres
 * (decoders/README.md § JPEG).
 */
export function dcImage(width: number, height: number, precision: number, hmax: number, vmax: number, comps: DcComponent[], transform: ColorTransform): { w: number; h: number; rgba: Uint8Array } {
  const w = Math.ceil(width / 8);
  const h = Math.ceil(height / 8);
  const n = comps.length;
  // Sample value = dc * scale + 128 (12-bit samples are brought down to 8 bits: centre 2048 / 16 = 128).
  const scale = comps.map((c) => (c.q0 / 8) * (precision === 12 ? 1 / 16 : 1));
  const detailScale = precision === 12 ? 1 / 16 : 1;
  const cols = comps.map((c) => axis(w, hmax / c.h, Math.min(c.stride, Math.ceil(Math.ceil((width * c.h) / hmax) / 8))));
  const rows = comps.map((c) => axis(h, vmax / c.v, Math.min(c.rows, Math.ceil(Math.ceil((height * c.v) / vmax) / 8))));
  const rgba = new Uint8Array(w * h * 4);
  const s = new Float64Array(4);
  for (let oy = 0; oy < h; oy++) {
    for (let ox = 0, o = oy * w * 4; ox < w; ox++, o += 4) {
      for (let i = 0; i < n; i++) {
        const { dc, stride, detail } = comps[i];
        if (detail) {
          const block = ((oy / comps[i].fy) | 0) * stride + ((ox / comps[i].fx) | 0);
          s[i] = dc[block] * scale[i] + 128 + detail[oy * stride * comps[i].fx + ox] * detailScale;
          continue;
        }
        const r = rows[i], c = cols[i];
        const top = r.lo[oy] * stride, bottom = r.hi[oy] * stride, x0 = c.lo[ox], x1 = c.hi[ox], fx = c.wt[ox], fy = r.wt[oy];
        const upper = dc[top + x0] + (dc[top + x1] - dc[top + x0]) * fx;
        const lower = dc[bottom + x0] + (dc[bottom + x1] - dc[bottom + x0]) * fx;
        s[i] = (upper + (lower - upper) * fy) * scale[i] + 128;
      }
      let r: number, g: number, b: number;
      switch (transform) {
        case "gray":
          r = g = b = clamp(s[0]);
          break;
        case "rgb":
          r = clamp(s[0]);
          g = clamp(s[1]);
          b = clamp(s[2]);
          break;
        default: {
          // JFIF YCbCr -> RGB (libjpeg / jpeg-decoder constants).
          const y = s[0], cb = s[1] - 128, cr = s[2] - 128;
          r = clamp(y + 1.402 * cr);
          g = clamp(y - 0.344136 * cb - 0.714136 * cr);
          b = clamp(y + 1.772 * cb);
          if (transform === "cmyk") {
            // Adobe CMYK is stored inverted; jpeg-decoder un-inverts and image's cmyk_to_rgb inverts again:
            // R = stored C x stored K / 255.
            const k = clamp(s[3]);
            r = Math.floor((clamp(s[0]) * k) / 255);
            g = Math.floor((clamp(s[1]) * k) / 255);
            b = Math.floor((clamp(s[2]) * k) / 255);
          } else if (transform === "ycck") {
            // jpeg-decoder's YCCK output is (R, G, B, 255 - K) taken as CMYK; image then gives
            // (255 - R) x K / 255.
            const k = clamp(s[3]);
            r = Math.floor(((255 - r) * k) / 255);
            g = Math.floor(((255 - g) * k) / 255);
            b = Math.floor(((255 - b) * k) / 255);
          }
        }
      }
      rgba[o] = r;
      rgba[o + 1] = g;
      rgba[o + 2] = b;
      rgba[o + 3] = 255;
    }
  }
  return { w, h, rgba };
}
