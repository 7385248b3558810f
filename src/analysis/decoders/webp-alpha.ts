// The ALPH chunk of a lossy WebP: a header byte (compression, filter, pre-processing), then the alpha plane
// raw or as a headerless VP8L stream whose green channel is the alpha, then unfiltered row by row.
import { decodeVp8lAlphaRows } from "./webp-vp8l";
import { LeanDecodeError } from "./reduce";

/** Undoes the alpha filter on one row in place; `prev` is the previous unfiltered row (null for row 0). */
function unfilter(method: number, row: Uint8Array, prev: Uint8Array | null, width: number) {
  if (method === 0) return;
  if (!prev || method === 1) {
    // Horizontal (and row 0 of every filter): left neighbour, the pixel above for column 0.
    let pred = prev ? prev[0] : 0;
    for (let x = 0; x < width; x++) pred = row[x] = (row[x] + pred) & 255;
    return;
  }
  if (method === 2) {
    for (let x = 0; x < width; x++) row[x] = (row[x] + prev[x]) & 255;
    return;
  }
  // Gradient: clip(left + above - above-left), the pixel above for column 0.
  let left = (row[0] + prev[0]) & 255;
  row[0] = left;
  for (let x = 1; x < width; x++) {
    const g = left + prev[x] - prev[x - 1];
    left = row[x] = (row[x] + (g < 0 ? 0 : g > 255 ? 255 : g)) & 255;
  }
}

/** Hands each unfiltered alpha row (reused buffer) to `onRow` in increasing y. */
export function decodeAlphaRows(payload: Uint8Array, width: number, height: number, onRow: (y: number, alpha: Uint8Array) => void): void {
  if (payload.length < 1) throw new LeanDecodeError("WebP: empty ALPH chunk");
  const compression = payload[0] & 3;
  const method = (payload[0] >> 2) & 3;
  if (compression > 1) throw new LeanDecodeError("WebP: unknown alpha compression");
  let row = new Uint8Array(width);
  let prev = new Uint8Array(width);
  let first = true;
  const emit = (y: number) => {
    unfilter(method, row, first ? null : prev, width);
    first = false;
    onRow(y, row);
    const t = prev;
    prev = row;
    row = t;
  };
  if (compression === 0) {
    if (payload.length - 1 < width * height) throw new LeanDecodeError("WebP: truncated raw alpha");
    for (let y = 0; y < height; y++) {
      row.set(payload.subarray(1 + y * width, 1 + (y + 1) * width));
      emit(y);
    }
    return;
  }
  decodeVp8lAlphaRows(payload, 1, width, height, (y, argb) => {
    for (let x = 0; x < width; x++) row[x] = (argb[x] >>> 8) & 255;
    emit(y);
  });
}
