// The entropy-coded pixel data of a VP8L image: literals, colour-cache hits and LZ77 backward references
// (with the 2-D distance map), coded with prefix-code groups chosen per tile by the entropy image.
import { BitReader } from "./webp-vp8l-bits";
import { buildPrefixCode, PrefixCode, readCodeLengths, readSymbol, TableBudget } from "./webp-vp8l-prefix";
import { LeanDecodeError } from "./reduce";

/** green (+ length prefixes + cache indices), red, blue, alpha, distance. */
type Group = PrefixCode[];

// (y << 4) | (8 - x) of the 120 short distances, closest first (RFC 9649 section 4.2.2).
const CODE_TO_PLANE = Uint8Array.of(
  0x18, 0x07, 0x17, 0x19, 0x28, 0x06, 0x27, 0x29, 0x16, 0x1a, 0x26, 0x2a, 0x38, 0x05, 0x37, 0x39, 0x15, 0x1b, 0x36, 0x3a,
  0x25, 0x2b, 0x48, 0x04, 0x47, 0x49, 0x14, 0x1c, 0x35, 0x3b, 0x46, 0x4a, 0x24, 0x2c, 0x58, 0x45, 0x4b, 0x34, 0x3c, 0x03,
  0x57, 0x59, 0x13, 0x1d, 0x56, 0x5a, 0x23, 0x2d, 0x44, 0x4c, 0x55, 0x5b, 0x33, 0x3d, 0x68, 0x02, 0x67, 0x69, 0x12, 0x1e,
  0x66, 0x6a, 0x22, 0x2e, 0x54, 0x5c, 0x43, 0x4d, 0x65, 0x6b, 0x32, 0x3e, 0x78, 0x01, 0x77, 0x79, 0x53, 0x5d, 0x11, 0x1f,
  0x64, 0x6c, 0x42, 0x4e, 0x76, 0x7a, 0x21, 0x2f, 0x75, 0x7b, 0x31, 0x3f, 0x63, 0x6d, 0x52, 0x5e, 0x00, 0x74, 0x7c, 0x41,
  0x4f, 0x10, 0x20, 0x62, 0x6e, 0x30, 0x73, 0x7d, 0x51, 0x5f, 0x40, 0x72, 0x7e, 0x61, 0x6f, 0x50, 0x71, 0x7f, 0x60, 0x70,
);

function fail(what: string): never {
  throw new LeanDecodeError(`lossless WebP: ${what}`);
}

function lz77Value(br: BitReader, prefix: number): number {
  if (prefix < 4) return prefix + 1;
  const extra = (prefix - 2) >> 1;
  return ((2 + (prefix & 1)) << extra) + br.read(extra) + 1;
}

/** Reads `count` groups of five prefix codes; groups not in `used` are read (to skip them) but not kept. */
function readGroups(br: BitReader, count: number, cacheBits: number, used: Uint8Array | null, budget: TableBudget): (Group | null)[] {
  const sizes = [256 + 24 + (cacheBits > 0 ? 1 << cacheBits : 0), 256, 256, 256, 40];
  const lengths = new Uint8Array(sizes[0]);
  const groups: (Group | null)[] = [];
  for (let g = 0; g < count; g++) {
    const keep = !used || used[g] === 1;
    const group: Group = [];
    for (let i = 0; i < 5; i++) {
      readCodeLengths(br, sizes[i], lengths, budget);
      if (keep) group.push(buildPrefixCode(lengths, sizes[i], budget));
      else {
        // Still validate, as a full decoder would, but free the table straight away.
        const code = buildPrefixCode(lengths, sizes[i], budget);
        budget.left += code.table.length;
      }
    }
    groups.push(keep ? group : null);
  }
  return groups;
}

/**
 * Decodes width x height ARGB pixels into `out` (from index 0). `entropy` (with its tile bits) selects a
 * group per tile for the main image; sub-images (entropy == null) use a single group. The caller has read
 * the colour cache and meta prefix headers; this reads the prefix codes, then the pixels.
 */
export function decodePixels(
  br: BitReader,
  width: number,
  height: number,
  out: Uint32Array,
  entropy: { data: Uint32Array; bits: number; tilesX: number } | null,
  cacheBits: number,
  budget: TableBudget,
): void {
  let groupOf: Int32Array | null = null;
  let groups: (Group | null)[];
  if (entropy) {
    let max = 0;
    for (let i = 0; i < entropy.data.length; i++) {
      const g = (entropy.data[i] >>> 8) & 0xffff;
      if (g > max) max = g;
    }
    const used = new Uint8Array(max + 1);
    for (let i = 0; i < entropy.data.length; i++) used[(entropy.data[i] >>> 8) & 0xffff] = 1;
    groups = readGroups(br, max + 1, cacheBits, used, budget);
    groupOf = new Int32Array(entropy.data.length);
    for (let i = 0; i < entropy.data.length; i++) groupOf[i] = (entropy.data[i] >>> 8) & 0xffff;
  } else {
    groups = readGroups(br, 1, cacheBits, null, budget);
  }
  br.check();

  const cache = cacheBits > 0 ? new Uint32Array(1 << cacheBits) : null;
  const cacheShift = 32 - cacheBits;
  const total = width * height;
  const tileBits = entropy ? entropy.bits : 31;
  const tileMask = entropy ? (1 << entropy.bits) - 1 : -1;
  const tilesX = entropy ? entropy.tilesX : 1;
  let group = groups[0]!;
  let green = group[0], red = group[1], blue = group[2], alpha = group[3], dist = group[4];
  let x = 0;
  let y = 0;
  let pos = 0;
  let cached = 0; // pixels [cached, pos) still to be inserted into the colour cache
  let rowEnd = width;
  let pick = groupOf !== null; // choose the group for (x, y) before the next code
  while (pos < total) {
    if (groupOf && (pick || (x & tileMask) === 0)) {
      group = groups[groupOf[(y >> tileBits) * tilesX + (x >> tileBits)]]!;
      green = group[0]; red = group[1]; blue = group[2]; alpha = group[3]; dist = group[4];
      pick = false;
    }
    const code = readSymbol(br, green);
    if (code < 256) {
      const r = readSymbol(br, red);
      const b = readSymbol(br, blue);
      const a = readSymbol(br, alpha);
      out[pos++] = (a << 24) | (r << 16) | (code << 8) | b;
      x++;
    } else if (code < 280) {
      const length = lz77Value(br, code - 256);
      const distSymbol = readSymbol(br, dist);
      const plane = lz77Value(br, distSymbol);
      let d: number;
      if (plane > 120) d = plane - 120;
      else {
        const c = CODE_TO_PLANE[plane - 1];
        d = (c >> 4) * width + (8 - (c & 15));
        if (d < 1) d = 1;
      }
      if (d > pos || length > total - pos) fail("backward reference out of range");
      out.copyWithin(pos, pos - d, pos - d + Math.min(d, length));
      // Overlapping copies (d < length) repeat the last d pixels.
      for (let k = d; k < length; k++) out[pos + k] = out[pos + k - d];
      pos += length;
      x += length;
      while (x >= width) {
        x -= width;
        y++;
      }
      pick = true;
    } else {
      if (!cache) fail("colour cache code without a cache");
      while (cached < pos) cache[Math.imul(out[cached], 0x1e35a7bd) >>> cacheShift] = out[cached++];
      const key = code - 280;
      out[pos++] = cache[key];
      x++;
    }
    if (cache) while (cached < pos) cache[Math.imul(out[cached], 0x1e35a7bd) >>> cacheShift] = out[cached++];
    if (x >= width) {
      x -= width;
      y++;
    }
    if (pos >= rowEnd) {
      br.check();
      rowEnd = (y + 1) * width;
    }
  }
  br.check();
}
