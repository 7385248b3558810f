// The lean decode path's common output: each output pixel the average of a block of the full-resolution image, so
// 5-40 MP images are analysed in a 128 MB isolate that photon's full decode (~12 bytes per pixel) would exhaust.
// Why ~1 MP is enough for the phash, thumbnail and NSFW input: decoders/README.md § The common output.

export type ReducedImage = {
  /** Full size of the image (its first frame), as stored (EXIF orientation not applied). */
  width: number;
  height: number;
  /** Size of `rgba`: ceil(width / factor) x ceil(height / factor) for a block factor. */
  outWidth: number;
  outHeight: number;
  /** RGBA, 8 bits per channel, outWidth x outHeight, row-major. */
  rgba: Uint8Array;
};

/** The bytes are not a decodable image of that format (corrupt, truncated, or an unsupported variant). */
export class LeanDecodeError extends Error {}

export type LeanDecodeOptions = {
  /** Reduce until the output has at most this many pixels (a JPEG's 1/8 DC image may stay smaller). */
  targetPixels: number;
};

export type LeanDecoder = (bytes: Uint8Array, options: LeanDecodeOptions) => Promise<ReducedImage>;

/** The smallest integer block factor whose output, ceil(w/f) x ceil(h/f), has at most targetPixels pixels. */
export function reductionFactor(width: number, height: number, targetPixels: number): number {
  if (!(width >= 1 && height >= 1)) throw new RangeError("bad image size");
  // A target below one pixel (or NaN) means "as small as possible": one pixel, whatever the factor.
  targetPixels = targetPixels >= 1 ? targetPixels : 1;
  let f = Math.max(1, Math.floor(Math.sqrt((width * height) / targetPixels)));
  while (Math.ceil(width / f) * Math.ceil(height / f) > targetPixels) f++;
  return f;
}

/**
 * Averages factor x factor blocks of full-resolution RGBA rows into the reduced image (edge blocks average the
 * pixels they have). Each input row must be added once. `addRowAnyOrder` (interlaced PNG / GIF) keeps sums for the
 * whole output, 16 MB at 1 MP, where in-order `addRow` needs one row (decoders/README.md § The common output).
 */
export class BoxReducer {
  readonly outWidth: number;
  readonly outHeight: number;
  private readonly out: Uint8Array;
  private rowSums: Uint32Array | null;
  private sumsRow = 0;
  private sumsRowCount = 0;
  private allSums: Uint32Array | null = null;
  private allCounts: Uint32Array | null = null;

  constructor(
    readonly width: number,
    readonly height: number,
    readonly factor: number,
  ) {
    if (!(width > 0 && height > 0 && factor >= 1) || !Number.isInteger(factor)) throw new RangeError("bad reducer geometry");
    this.outWidth = Math.ceil(width / factor);
    this.outHeight = Math.ceil(height / factor);
    this.out = new Uint8Array(this.outWidth * this.outHeight * 4);
    this.rowSums = new Uint32Array(this.outWidth * 4);
  }

  /** Full-resolution row y (RGBA8, width x 4 bytes from `offset`); rows must come in increasing order. */
  addRow(y: number, rgba: Uint8Array, offset = 0): void {
    if (this.factor === 1) return this.copyRow(y, rgba, offset);
    if (this.allSums) return this.addRowAnyOrder(y, rgba, offset);
    const oy = (y / this.factor) | 0;
    if (oy !== this.sumsRow) {
      this.flushRow();
      this.sumsRow = oy;
    }
    this.accumulate(this.rowSums!, 0, rgba, offset);
    this.sumsRowCount++;
  }

  /** Full-resolution row y in any order (interlaced images). */
  addRowAnyOrder(y: number, rgba: Uint8Array, offset = 0): void {
    if (this.factor === 1) return this.copyRow(y, rgba, offset);
    if (!this.allSums) {
      this.flushRow();
      this.allSums = new Uint32Array(this.outWidth * this.outHeight * 4);
      this.allCounts = new Uint32Array(this.outHeight);
      this.rowSums = null;
    }
    const oy = (y / this.factor) | 0;
    this.accumulate(this.allSums, oy * this.outWidth * 4, rgba, offset);
    this.allCounts![oy]++;
  }

  /** Factor 1: nothing to average, so rows in any order go straight to the output (no sums, 4 bytes per pixel). */
  private copyRow(y: number, rgba: Uint8Array, offset: number) {
    const bytes = this.width * 4;
    this.out.set(rgba.subarray(offset, offset + bytes), y * bytes);
  }

  private accumulate(sums: Uint32Array, base: number, rgba: Uint8Array, offset: number) {
    const f = this.factor;
    const w = this.width;
    if (f === 1) {
      for (let i = 0; i < w * 4; i++) sums[base + i] += rgba[offset + i];
      return;
    }
    for (let x = 0, ox = 0; x < w; ox++) {
      const end = Math.min(w, x + f);
      let r = 0, g = 0, b = 0, a = 0;
      for (let p = offset + x * 4; x < end; x++, p += 4) {
        r += rgba[p];
        g += rgba[p + 1];
        b += rgba[p + 2];
        a += rgba[p + 3];
      }
      const s = base + ox * 4;
      sums[s] += r;
      sums[s + 1] += g;
      sums[s + 2] += b;
      sums[s + 3] += a;
    }
  }

  /** Writes the averages of output row `oy` from `sums` (at `base`), given how many input rows it got. */
  private emit(oy: number, sums: Uint32Array, base: number, rows: number) {
    if (rows === 0) return;
    const f = this.factor;
    const ow = this.outWidth;
    for (let ox = 0; ox < ow; ox++) {
      const cols = Math.min(f, this.width - ox * f);
      const n = cols * rows;
      const half = n >>> 1;
      const s = base + ox * 4;
      const o = (oy * ow + ox) * 4;
      this.out[o] = Math.floor((sums[s] + half) / n);
      this.out[o + 1] = Math.floor((sums[s + 1] + half) / n);
      this.out[o + 2] = Math.floor((sums[s + 2] + half) / n);
      this.out[o + 3] = Math.floor((sums[s + 3] + half) / n);
    }
  }

  private rowsIn(oy: number) {
    return Math.min(this.factor, this.height - oy * this.factor);
  }

  private flushRow() {
    if (!this.rowSums) return;
    if (this.sumsRow < this.outHeight) this.emit(this.sumsRow, this.rowSums, 0, Math.min(this.sumsRowCount, this.rowsIn(this.sumsRow)));
    this.rowSums.fill(0);
    this.sumsRowCount = 0;
  }

  /** The reduced image; rows never added stay transparent black. */
  finish(): ReducedImage {
    if (this.factor === 1) {
      // Rows were copied as they came.
    } else if (this.allSums) {
      for (let oy = 0; oy < this.outHeight; oy++) this.emit(oy, this.allSums, oy * this.outWidth * 4, Math.min(this.allCounts![oy], this.rowsIn(oy)));
      this.allSums = null;
    } else {
      this.flushRow();
    }
    return { width: this.width, height: this.height, outWidth: this.outWidth, outHeight: this.outHeight, rgba: this.out };
  }
}
