// The loop filters (RFC 6386 section 15), each over `count` positions of one edge: position i's first
// pixel after the edge is px[p + i * along], and `step` is the distance across the edge (1 for a
// vertical edge, the row stride for a horizontal one). The arithmetic is the `image` crate 0.24 decoder's
// (photon), checked bit-exact against photon in the tests, including its one deviation from the RFC: the
// inner-edge filter moves p1 by -a instead of +a.

/** Clamp to the signed 8-bit range. */
const c = (v: number) => (v < -128 ? -128 : v > 127 ? 127 : v);
const abs = (v: number) => (v < 0 ? -v : v);

/** The simple filter's test, and the first of the normal filters' (RFC 6386 15.2): the step across the edge is too large. */
function overEdgeLimit(p1: number, p0: number, q0: number, q1: number, edgeLimit: number): boolean {
  return abs(p0 - q0) * 2 + (abs(p1 - q1) >> 1) > edgeLimit;
}

/**
 * The RFC's common_adjust (15.2): moves p0 and q0 towards each other, by a filter value of the step across the
 * edge (and of p1 - q1 with `outerTaps`); returns how far q0 moved, which the inner-edge filter uses again.
 */
function commonAdjust(px: Uint8Array, p: number, step: number, outerTaps: boolean, p1: number, p0: number, q0: number, q1: number): number {
  let a = c((outerTaps ? c(p1 - q1) : 0) + 3 * (q0 - p0));
  const b = c(a + 3) >> 3;
  a = c(a + 4) >> 3;
  px[p] = c(q0 - 128 - a) + 128;
  px[p - step] = c(p0 - 128 + b) + 128;
  return a;
}

/** The normal filters' test (RFC 6386 15.3): a step too large to be a blocking artefact is a real edge, kept. */
function keepsEdge(p3: number, p2: number, p1: number, p0: number, q0: number, q1: number, q2: number, q3: number, interior: number, edgeLimit: number): boolean {
  return (
    overEdgeLimit(p1, p0, q0, q1, edgeLimit) ||
    abs(p3 - p2) > interior ||
    abs(p2 - p1) > interior ||
    abs(p1 - p0) > interior ||
    abs(q3 - q2) > interior ||
    abs(q2 - q1) > interior ||
    abs(q1 - q0) > interior
  );
}

export function simpleFilter(px: Uint8Array, p: number, along: number, count: number, step: number, edgeLimit: number): void {
  for (let i = 0; i < count; i++, p += along) {
    const p1 = px[p - 2 * step], p0 = px[p - step], q0 = px[p], q1 = px[p + step];
    if (!overEdgeLimit(p1, p0, q0, q1, edgeLimit)) commonAdjust(px, p, step, true, p1, p0, q0, q1);
  }
}

/** Normal filter across an inner (sub-block) edge: up to two pixels changed on each side. */
export function innerEdgeFilter(px: Uint8Array, p: number, along: number, count: number, step: number, hevThreshold: number, interior: number, edgeLimit: number): void {
  normalFilter(px, p, along, count, step, hevThreshold, interior, edgeLimit, false);
}

/** Normal filter across a macroblock edge: up to three pixels changed on each side. */
export function mbEdgeFilter(px: Uint8Array, p: number, along: number, count: number, step: number, hevThreshold: number, interior: number, edgeLimit: number): void {
  normalFilter(px, p, along, count, step, hevThreshold, interior, edgeLimit, true);
}

/**
 * The two normal filters (RFC 6386 15.3), which differ only where the edge has no high edge variance: the
 * macroblock filter then spreads the change over three pixels on each side, the inner one over two.
 */
function normalFilter(px: Uint8Array, p: number, along: number, count: number, step: number, hevThreshold: number, interior: number, edgeLimit: number, macroblock: boolean): void {
  for (let i = 0; i < count; i++, p += along) {
    const p3 = px[p - 4 * step], p2 = px[p - 3 * step], p1 = px[p - 2 * step], p0 = px[p - step];
    const q0 = px[p], q1 = px[p + step], q2 = px[p + 2 * step], q3 = px[p + 3 * step];
    if (keepsEdge(p3, p2, p1, p0, q0, q1, q2, q3, interior, edgeLimit)) continue;
    const hev = abs(p1 - p0) > hevThreshold || abs(q1 - q0) > hevThreshold;
    if (macroblock && !hev) {
      const w = c(c(p1 - q1) + 3 * (q0 - p0));
      const a1 = c((27 * w + 63) >> 7);
      const a2 = c((18 * w + 63) >> 7);
      const a3 = c((9 * w + 63) >> 7);
      px[p] = c(q0 - 128 - a1) + 128;
      px[p - step] = c(p0 - 128 + a1) + 128;
      px[p + step] = c(q1 - 128 - a2) + 128;
      px[p - 2 * step] = c(p1 - 128 + a2) + 128;
      px[p + 2 * step] = c(q2 - 128 - a3) + 128;
      px[p - 3 * step] = c(p2 - 128 + a3) + 128;
      continue;
    }
    const a = commonAdjust(px, p, step, hev, p1, p0, q0, q1);
    if (!hev) {
      // An inner edge: p1 and q1 move by half as much.
      const a2 = (a + 1) >> 1;
      px[p + step] = c(q1 - 128 - a2) + 128;
      px[p - 2 * step] = c(p1 - 128 - a2) + 128; // RFC: p1 + a; photon: p1 - a
    }
  }
}
