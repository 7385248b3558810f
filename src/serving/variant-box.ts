// The box of a two-sided variant (`?w=640&h=480`): the long side snaps up the ladder and the ratio to the nearest
// of VARIANTS.boxRatios that keeps the short side as asked. Sides snapped on their own lost the asked shape, and a
// ratio taken as asked would let anyone mint a billed transformation per pixel (docs/files-and-serving.md § Variants).
import { VARIANTS } from "../config";

export type Box = { width: number; height: number };
export type SourceSize = { width: number | null; height: number | null };

/**
 * How the image meets its box: `fill` (cover, crop) fills it and is cropped; `pad` fits inside it and the rest is
 * padded (the answer has the box's size); `inside` (scale-down, contain) fits inside it (the answer has the image's).
 */
export type BoxFill = "fill" | "pad" | "inside";

type Ratio = readonly [long: number, short: number];

const shortSide = (long: number, [rl, rs]: Ratio) => Math.max(1, Math.round((long * rs) / rl));

/**
 * The nearest listed ratio whose short side at `long` is at least the asked one (scaled down with the long side
 * when the ladder's top caps it); 1:1 always qualifies.
 */
function snapRatio(long: number, askedLong: number, askedShort: number): Ratio {
  const asked = Math.log(askedLong / askedShort);
  const leastShort = Math.round(askedShort * Math.min(1, long / askedLong));
  const distance = ([rl, rs]: Ratio) => Math.abs(Math.log(rl / rs) - asked);
  let best: Ratio = [1, 1];
  for (const ratio of VARIANTS.boxRatios) {
    if (shortSide(long, ratio) >= leastShort && distance(ratio) < distance(best)) best = ratio;
  }
  return best;
}

/**
 * The long side no larger than the source allows for `fill`; `along` and `across` are the source's sides along
 * the box's long and short axes. Null for `inside` when the image at its own size fits: that size is the answer.
 */
function withinSource(long: number, ratio: Ratio, fill: BoxFill, along: number, across: number): number | null {
  const [rl, rs] = ratio;
  switch (fill) {
    case "fill": // the largest box of the ratio inside the source
      return Math.max(1, Math.min(long, along, Math.floor((across * rl) / rs)));
    case "pad": // at most the smallest box of the ratio around the source (the image at its own size, padded)
      return Math.min(long, Math.max(along, Math.ceil(((across - 0.5) * rl) / rs)));
    case "inside":
      return along <= long && across <= shortSide(long, ratio) ? null : long;
  }
}

/** The box the engine is asked for; null when the source's own size is the answer (`inside` only). */
export function snapBox(asked: Box, fill: BoxFill, source: SourceSize): Box | null {
  const wide = asked.width >= asked.height;
  const [askedLong, askedShort] = wide ? [asked.width, asked.height] : [asked.height, asked.width];
  const known = source.width !== null && source.height !== null;
  // Above the ladder: as large as the source allows, or the top step when its size is not known.
  let long: number | null = VARIANTS.ladder.find((s) => s >= askedLong) ?? (known ? Infinity : VARIANTS.ladder[VARIANTS.ladder.length - 1]);
  const ratio = snapRatio(long, askedLong, askedShort);
  if (source.width !== null && source.height !== null) {
    long = wide ? withinSource(long, ratio, fill, source.width, source.height) : withinSource(long, ratio, fill, source.height, source.width);
  }
  if (long === null) return null;
  const short = shortSide(long, ratio);
  return wide ? { width: long, height: short } : { width: short, height: long };
}
