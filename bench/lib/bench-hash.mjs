// Deterministic 64-bit test hashes shared by the analysis bench (Node) and its routes in the bench worker.

/** The i-th hash of a seed (xorshift), top bit set like real phashes (DC is always above the median). */
export function benchHash(i, seed) {
  let x = (i + 1) * 0x9e3779b1 + seed * 0x85ebca6b;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  next();
  const hi = (next() | 0x80000000) >>> 0;
  const lo = next();
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}
