// VP8L inverse transforms, applied one row at a time in the reverse of the order they were read. Each
// transform keeps what it needs between rows (the predictor its previous output row), so the decoded
// residuals in the full ARGB array stay untouched: backward references copy residuals, not output pixels.

export type Transform =
  | { kind: "predictor"; width: number; bits: number; tilesX: number; data: Uint32Array; prev: Uint32Array }
  | { kind: "color"; width: number; bits: number; tilesX: number; data: Uint32Array }
  | { kind: "subtractGreen"; width: number }
  /** width: the row width before expansion (the full width); bits: pixels bundled per packed pixel, log2. */
  | { kind: "colorIndexing"; width: number; bits: number; palette: Uint32Array };

/** Per-channel addition modulo 256 of two ARGB values. */
function add(a: number, b: number): number {
  return (((a & 0xff00ff00) + (b & 0xff00ff00)) & 0xff00ff00) | (((a & 0x00ff00ff) + (b & 0x00ff00ff)) & 0x00ff00ff);
}

function avg(a: number, b: number): number {
  return ((((a ^ b) & 0xfefefefe) >>> 1) + (a & b)) | 0;
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

function select(l: number, t: number, tl: number): number {
  const toL =
    Math.abs(((t >>> 24) & 255) - ((tl >>> 24) & 255)) +
    Math.abs(((t >>> 16) & 255) - ((tl >>> 16) & 255)) +
    Math.abs(((t >>> 8) & 255) - ((tl >>> 8) & 255)) +
    Math.abs((t & 255) - (tl & 255));
  const toT =
    Math.abs(((l >>> 24) & 255) - ((tl >>> 24) & 255)) +
    Math.abs(((l >>> 16) & 255) - ((tl >>> 16) & 255)) +
    Math.abs(((l >>> 8) & 255) - ((tl >>> 8) & 255)) +
    Math.abs((l & 255) - (tl & 255));
  return toL < toT ? l : t;
}

function addSubtractFull(a: number, b: number, c: number): number {
  return (
    ((clamp(((a >>> 24) & 255) + ((b >>> 24) & 255) - ((c >>> 24) & 255)) << 24) |
      (clamp(((a >>> 16) & 255) + ((b >>> 16) & 255) - ((c >>> 16) & 255)) << 16) |
      (clamp(((a >>> 8) & 255) + ((b >>> 8) & 255) - ((c >>> 8) & 255)) << 8) |
      clamp((a & 255) + (b & 255) - (c & 255))) |
    0
  );
}

function half(a: number, b: number): number {
  // C integer division: truncation toward zero.
  return clamp(a + (((a - b) / 2) | 0));
}

function addSubtractHalf(a: number, b: number): number {
  return (
    ((half((a >>> 24) & 255, (b >>> 24) & 255) << 24) |
      (half((a >>> 16) & 255, (b >>> 16) & 255) << 16) |
      (half((a >>> 8) & 255, (b >>> 8) & 255) << 8) |
      half(a & 255, b & 255)) |
    0
  );
}

/** Pixels [x, end) of a row (not the first row, x >= 1) with one predictor mode: one tight loop per mode. */
function predictSpan(mode: number, row: Uint32Array, prev: Uint32Array, x: number, end: number, w: number) {
  // The top-right of the last column is the current row's first pixel, so that pixel is done separately.
  const last = end === w ? end - 1 : end;
  switch (mode) {
    case 1:
      for (; x < end; x++) row[x] = add(row[x], row[x - 1]);
      return;
    case 2:
      for (; x < end; x++) row[x] = add(row[x], prev[x]);
      return;
    case 3:
      for (; x < last; x++) row[x] = add(row[x], prev[x + 1]);
      break;
    case 4:
      for (; x < end; x++) row[x] = add(row[x], prev[x - 1]);
      return;
    case 5:
      for (; x < last; x++) row[x] = add(row[x], avg(avg(row[x - 1], prev[x + 1]), prev[x]));
      break;
    case 6:
      for (; x < end; x++) row[x] = add(row[x], avg(row[x - 1], prev[x - 1]));
      return;
    case 7:
      for (; x < end; x++) row[x] = add(row[x], avg(row[x - 1], prev[x]));
      return;
    case 8:
      for (; x < end; x++) row[x] = add(row[x], avg(prev[x - 1], prev[x]));
      return;
    case 9:
      for (; x < last; x++) row[x] = add(row[x], avg(prev[x], prev[x + 1]));
      break;
    case 10:
      for (; x < last; x++) row[x] = add(row[x], avg(avg(row[x - 1], prev[x - 1]), avg(prev[x], prev[x + 1])));
      break;
    case 11:
      for (; x < end; x++) row[x] = add(row[x], select(row[x - 1], prev[x], prev[x - 1]));
      return;
    case 12:
      for (; x < end; x++) row[x] = add(row[x], addSubtractFull(row[x - 1], prev[x], prev[x - 1]));
      return;
    case 13:
      for (; x < end; x++) row[x] = add(row[x], addSubtractHalf(avg(row[x - 1], prev[x]), prev[x - 1]));
      return;
    case 0:
      for (; x < end; x++) row[x] = add(row[x], 0xff000000);
      return;
    default:
      // 14-15 are undefined: photon (image-webp) adds nothing, libwebp predicts opaque black; follow photon.
      return;
  }
  if (x < end) {
    const l = row[x - 1], t = prev[x], tr = row[0];
    const p = mode === 3 ? tr : mode === 5 ? avg(avg(l, tr), t) : mode === 9 ? avg(t, tr) : avg(avg(l, prev[x - 1]), avg(t, tr));
    row[x] = add(row[x], p);
  }
}

function inversePredictor(t: Extract<Transform, { kind: "predictor" }>, row: Uint32Array, y: number) {
  const w = t.width;
  const prev = t.prev;
  if (y === 0) {
    row[0] = add(row[0], 0xff000000);
    for (let x = 1; x < w; x++) row[x] = add(row[x], row[x - 1]);
  } else {
    row[0] = add(row[0], prev[0]);
    const tiles = (y >> t.bits) * t.tilesX;
    for (let x = 1; x < w; ) {
      const tile = x >> t.bits;
      const end = Math.min(w, (tile + 1) << t.bits);
      predictSpan((t.data[tiles + tile] >>> 8) & 15, row, prev, x, end, w);
      x = end;
    }
  }
  prev.set(row.subarray(0, w));
}

function inverseColor(t: Extract<Transform, { kind: "color" }>, row: Uint32Array, y: number) {
  const w = t.width;
  const tiles = (y >> t.bits) * t.tilesX;
  for (let x = 0; x < w; ) {
    const tile = x >> t.bits;
    const end = Math.min(w, (tile + 1) << t.bits);
    const m = t.data[tiles + tile];
    const g2r = (m << 24) >> 24;
    const g2b = (m << 16) >> 24;
    const r2b = (m << 8) >> 24;
    for (; x < end; x++) {
      const p = row[x];
      const green = (p << 16) >> 24;
      const red = (((p >>> 16) & 255) + ((g2r * green) >> 5)) & 255;
      const blue = ((p & 255) + ((g2b * green) >> 5) + ((r2b * ((red << 24) >> 24)) >> 5)) & 255;
      row[x] = (p & 0xff00ff00) | (red << 16) | blue;
    }
  }
}

function inverseSubtractGreen(w: number, row: Uint32Array) {
  for (let x = 0; x < w; x++) {
    const p = row[x];
    const g = (p >>> 8) & 255;
    row[x] = (p & 0xff00ff00) | ((((p >>> 16) + g) & 255) << 16) | (((p & 255) + g) & 255);
  }
}

function inverseColorIndexing(t: Extract<Transform, { kind: "colorIndexing" }>, row: Uint32Array) {
  const w = t.width;
  const pal = t.palette; // 256 entries, zero past the colour table: out-of-range indices give transparent black
  if (t.bits === 0) {
    for (let x = 0; x < w; x++) row[x] = pal[(row[x] >>> 8) & 255];
    return;
  }
  // Right to left, so the packed pixel x >> bits is read before anything at or left of x is overwritten.
  const bpp = 8 >> t.bits;
  const mask = (1 << bpp) - 1;
  const xMask = (1 << t.bits) - 1;
  for (let x = w - 1; x >= 0; x--) {
    const g = (row[x >> t.bits] >>> 8) & 255;
    row[x] = pal[(g >>> ((x & xMask) * bpp)) & mask];
  }
}

/** Applies the inverse transforms (given in reading order) to row y, in place; `row` has the full width. */
export function inverseTransforms(transforms: Transform[], row: Uint32Array, y: number): void {
  for (let i = transforms.length - 1; i >= 0; i--) {
    const t = transforms[i];
    if (t.kind === "predictor") inversePredictor(t, row, y);
    else if (t.kind === "color") inverseColor(t, row, y);
    else if (t.kind === "subtractGreen") inverseSubtractGreen(t.width, row);
    else inverseColorIndexing(t, row);
  }
}
