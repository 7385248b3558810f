// The 64-bit DCT perceptual hash exactly as Python's imagehash.phash computes it (decisions.md § Units and formats),
// so users can compare our hashes with theirs. Pure, on decoded pixels:
//   image.convert("L").resize((32, 32), Image.LANCZOS)                 -> toLuma601 + resizeLanczos (Pillow's code)
//   scipy.fftpack.dct(scipy.fftpack.dct(pixels, axis=0), axis=1)       -> dct2TopLeft (type II, unnormalised)
//   bits = dct[:8, :8] > median; row-major, most significant bit first -> 16 lowercase hex digits

const HASH_SIZE = 8;
const IMG_SIZE = 32; // hash_size * highfreq_factor (4)

/** PIL's RGB(A) -> "L": ITU-R 601-2 luma in 16-bit fixed point, rounded (Pillow's Convert.c L24). Alpha is ignored, as PIL does. */
export function toLuma601(rgba: Uint8Array, width: number, height: number): Uint8Array {
  const n = width * height;
  if (rgba.length < n * 4) throw new RangeError("pixel buffer shorter than width x height x 4");
  const out = new Uint8Array(n);
  for (let i = 0, p = 0; i < n; i++, p += 4) {
    out[i] = (rgba[p] * 19595 + rgba[p + 1] * 38470 + rgba[p + 2] * 7471 + 0x8000) >>> 16;
  }
  return out;
}

// ---- Pillow's Resample.c, 8-bit single-channel path, LANCZOS filter (support 3) ----

const PRECISION_BITS = 32 - 8 - 2;

function sinc(x: number): number {
  if (x === 0) return 1;
  x *= Math.PI;
  return Math.sin(x) / x;
}

function lanczos(x: number): number {
  return -3 <= x && x < 3 ? sinc(x) * sinc(x / 3) : 0;
}

type Coefficients = { ksize: number; bounds: Int32Array; kk: Int32Array };

/** precompute_coeffs + normalize_coeffs_8bpc: per output pixel, the first input index, the count and fixed-point weights. */
function precomputeCoefficients(inSize: number, outSize: number): Coefficients {
  const scale = inSize / outSize;
  const filterscale = Math.max(scale, 1);
  const support = 3 * filterscale;
  const ksize = Math.ceil(support) * 2 + 1;
  const bounds = new Int32Array(outSize * 2);
  const kk = new Int32Array(outSize * ksize);
  const weights = new Float64Array(ksize);
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const ss = 1 / filterscale;
    let xmin = Math.trunc(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    let xmax = Math.trunc(center + support + 0.5);
    if (xmax > inSize) xmax = inSize;
    xmax -= xmin;
    let ww = 0;
    for (let x = 0; x < xmax; x++) {
      const w = lanczos((x + xmin - center + 0.5) * ss);
      weights[x] = w;
      ww += w;
    }
    for (let x = 0; x < xmax; x++) {
      const w = ww !== 0 ? weights[x] / ww : weights[x];
      // (int)(±0.5 + w * 2^22): C truncates toward zero.
      kk[xx * ksize + x] = Math.trunc(w < 0 ? -0.5 + w * (1 << PRECISION_BITS) : 0.5 + w * (1 << PRECISION_BITS));
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = xmax;
  }
  return { ksize, bounds, kk };
}

function clip8(ss: number): number {
  const v = ss >> PRECISION_BITS;
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/**
 * Pillow's Image.resize(size, LANCZOS) on an "L" image: a horizontal pass over the rows the vertical pass
 * needs, then a vertical pass, each in 22-bit fixed point. Same size in and out returns a copy, as PIL does.
 */
export function resizeLanczos(src: Uint8Array, sw: number, sh: number, dw: number, dh: number): Uint8Array {
  if (sw === dw && sh === dh) return src.slice(0, sw * sh);
  const horiz = precomputeCoefficients(sw, dw);
  const vert = precomputeCoefficients(sh, dh);
  let img = src;
  let w = sw;
  if (sw !== dw) {
    const yFirst = vert.bounds[0];
    const yLast = vert.bounds[dh * 2 - 2] + vert.bounds[dh * 2 - 1];
    for (let i = 0; i < dh; i++) vert.bounds[i * 2] -= yFirst;
    const rows = yLast - yFirst;
    const tmp = new Uint8Array(dw * rows);
    const { ksize, bounds, kk } = horiz;
    for (let yy = 0; yy < rows; yy++) {
      const rowStart = (yy + yFirst) * sw;
      for (let xx = 0; xx < dw; xx++) {
        const xmin = bounds[xx * 2];
        const xmax = bounds[xx * 2 + 1];
        const k = xx * ksize;
        let ss = 1 << (PRECISION_BITS - 1);
        for (let x = 0; x < xmax; x++) ss += src[rowStart + x + xmin] * kk[k + x];
        tmp[yy * dw + xx] = clip8(ss);
      }
    }
    img = tmp;
    w = dw;
  }
  if (sh === dh) return img;
  const out = new Uint8Array(w * dh);
  const { ksize, bounds, kk } = vert;
  for (let yy = 0; yy < dh; yy++) {
    const k = yy * ksize;
    const ymin = bounds[yy * 2];
    const ymax = bounds[yy * 2 + 1];
    for (let xx = 0; xx < w; xx++) {
      let ss = 1 << (PRECISION_BITS - 1);
      for (let y = 0; y < ymax; y++) ss += img[(y + ymin) * w + xx] * kk[k + y];
      out[yy * w + xx] = clip8(ss);
    }
  }
  return out;
}

// ---- DCT and bits ----

/** cos table: COS[k * N + n] = cos(pi * k * (2n + 1) / (2N)) for k < 8, n < 32. */
const COS = (() => {
  const t = new Float64Array(HASH_SIZE * IMG_SIZE);
  for (let k = 0; k < HASH_SIZE; k++) for (let n = 0; n < IMG_SIZE; n++) t[k * IMG_SIZE + n] = Math.cos((Math.PI * k * (2 * n + 1)) / (2 * IMG_SIZE));
  return t;
})();

/**
 * The top-left 8x8 of scipy.fftpack.dct(dct(x, axis=0), axis=1) on a 32x32 image: y[k] = 2 * sum x[n] cos(...),
 * first down the columns, then along the rows. Only the 8 lowest frequencies are needed in each direction.
 */
export function dct2TopLeft(pixels: Uint8Array): Float64Array {
  const cols = new Float64Array(HASH_SIZE * IMG_SIZE); // [k][m]: column DCT, rows k < 8
  for (let k = 0; k < HASH_SIZE; k++) {
    for (let m = 0; m < IMG_SIZE; m++) {
      let s = 0;
      for (let n = 0; n < IMG_SIZE; n++) s += pixels[n * IMG_SIZE + m] * COS[k * IMG_SIZE + n];
      cols[k * IMG_SIZE + m] = 2 * s;
    }
  }
  const out = new Float64Array(HASH_SIZE * HASH_SIZE);
  for (let k = 0; k < HASH_SIZE; k++) {
    for (let l = 0; l < HASH_SIZE; l++) {
      let s = 0;
      for (let m = 0; m < IMG_SIZE; m++) s += cols[k * IMG_SIZE + m] * COS[l * IMG_SIZE + m];
      // scipy's FFT-based DCT returns exact zeros where symmetry cancels terms (flat or mirrored images);
      // direct summation leaves +-1e-11 of rounding noise there, whose sign would decide bits against a
      // median of 0. Real coefficients of 8-bit images are never this small, so snap the noise to zero.
      out[k * HASH_SIZE + l] = Math.abs(s) < 1e-7 ? 0 : 2 * s;
    }
  }
  return out;
}

/** numpy.median: the mean of the two middle values of 64. */
function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** 64 coefficients -> 16 hex digits: bit i (row-major) is coefficient i > median, most significant first. */
export function bitsToHex(coefficients: Float64Array): string {
  const med = median(coefficients);
  let hex = "";
  for (let nibble = 0; nibble < 16; nibble++) {
    let v = 0;
    for (let b = 0; b < 4; b++) v = (v << 1) | (coefficients[nibble * 4 + b] > med ? 1 : 0);
    hex += v.toString(16);
  }
  return hex;
}

/** phash of a grayscale ("L") image of any size. */
export function phashFromLuma(gray: Uint8Array, width: number, height: number): string {
  return bitsToHex(dct2TopLeft(resizeLanczos(gray, width, height, IMG_SIZE, IMG_SIZE)));
}

/** phash of decoded RGBA pixels (photon's raw pixel layout). */
export function phashFromRgba(rgba: Uint8Array, width: number, height: number): string {
  return phashFromLuma(toLuma601(rgba, width, height), width, height);
}

// ---- Comparing hashes ----

export const PHASH_PATTERN = /^[0-9a-f]{16}$/;

export function isPhash(value: unknown): value is string {
  return typeof value === "string" && PHASH_PATTERN.test(value);
}

/** The hash as two unsigned 32-bit halves [high, low]. */
export function phashHalves(hex: string): [number, number] {
  return [parseInt(hex.slice(0, 8), 16) >>> 0, parseInt(hex.slice(8, 16), 16) >>> 0];
}

export function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Hamming distance between two 16-hex-digit hashes. */
export function hammingDistance(a: string, b: string): number {
  const [ah, al] = phashHalves(a);
  const [bh, bl] = phashHalves(b);
  return popcount32((ah ^ bh) >>> 0) + popcount32((al ^ bl) >>> 0);
}
