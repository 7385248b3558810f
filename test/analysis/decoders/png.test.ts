/// <reference types="vite/client" />
// The lean PNG decoder against photon: photon decodes the fixture fully, BoxReducer reduces that with the same
// factor, and the two must agree exactly (PNG is lossless and both average with the same rounding).
// Fixtures: test/fixtures/images/lean/png/generate.py.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { decodePngReduced } from "../../../src/analysis/decoders/png";
import { BoxReducer, LeanDecodeError, reductionFactor, type ReducedImage } from "../../../src/analysis/decoders/reduce";
import { hammingDistance, phashFromRgba } from "../../../src/analysis/phash";
import { EXPECTED_PHASH, fixture, FIXTURE_NAMES } from "../fixtures";
import { boxReduce, leanFixtures, photonDecode, type FullImage } from "./support";
import LEAN_EXPECTED_PHASH_JSON from "../../fixtures/images/lean/png/expected-phash.json";

const LEAN_EXPECTED_PHASH: Record<string, string> = LEAN_EXPECTED_PHASH_JSON;

const fixtures = await leanFixtures("png");
const NAMES = fixtures.names.filter((n) => !n.startsWith("large-"));
const lean = async (name: string) => fixtures.bytes(name);

type Full = FullImage;

function diff(a: Uint8Array, b: Uint8Array) {
  let max = 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    sum += d;
    if (d > max) max = d;
  }
  return { max, mean: sum / Math.max(1, a.length) };
}

/** Compares with photon + BoxReducer for a target size; returns the factor used. */
async function compare(bytes: Uint8Array, targetPixels: number, full?: Full): Promise<number> {
  full ??= await photonDecode(bytes);
  const ours = await decodePngReduced(bytes, { targetPixels });
  const factor = reductionFactor(full.width, full.height, targetPixels);
  const ref = boxReduce(full, factor);
  expect([ours.width, ours.height, ours.outWidth, ours.outHeight]).toEqual([full.width, full.height, ref.outWidth, ref.outHeight]);
  expect(ours.rgba.length).toBe(ref.rgba.length);
  const { max, mean } = diff(ours.rgba, ref.rgba);
  comparisons.push({ max, mean });
  expect(max, `factor ${factor}: max ${max}, mean ${mean.toFixed(4)}`).toBe(0);
  return factor;
}

const comparisons: { max: number; mean: number }[] = [];
afterAll(() => {
  const max = Math.max(...comparisons.map((c) => c.max));
  const mean = comparisons.reduce((n, c) => n + c.mean, 0) / Math.max(1, comparisons.length);
  console.log(`PNG vs photon + BoxReducer: ${comparisons.length} comparisons, max abs channel difference ${max}, mean ${mean}`);
});

describe("decodePngReduced = photon full decode + BoxReducer", () => {
  it("has the fixtures generate.py writes", () => {
    expect(NAMES.length).toBeGreaterThanOrEqual(70);
    expect(fixtures.names.includes("large-8000x5000.png")).toBe(true);
  });

  for (const name of NAMES) {
    it(`${name}: identical at factor 1 and at larger factors`, async () => {
      const bytes = await lean(name);
      const full = await photonDecode(bytes);
      const pixels = full.width * full.height;
      const factors = new Set<number>();
      // Factor 1, then targets giving factors 2, 3, ~4 and ~7 (fixture sizes are odd: partial edge blocks).
      for (const target of [pixels, Math.ceil(pixels / 4), Math.ceil(pixels / 9), 300, 40]) {
        factors.add(await compare(bytes, target, full));
      }
      expect(factors.has(1)).toBe(true);
      if (pixels > 40) expect(Math.max(...factors)).toBeGreaterThan(1);
    });
  }

  it("decodes the APNG's default image (IDAT) even when it is not an animation frame", async () => {
    const out = await decodePngReduced(await lean("apng-default-not-frame.png"), { targetPixels: 1e9 });
    const idat = await decodePngReduced(await lean("rgb8.png"), { targetPixels: 1e9 });
    expect(diff(out.rgba, idat.rgba).max).toBe(0);
  });
});

describe("phash of the reduced image", () => {
  // Images large enough that a reduced copy still mostly carries the 32x32 Lanczos image: the photo-* fixtures
  // and the shared PNG fixtures, at factors 2 and 3 (the real path reduces 5-40 MP to ~1 MP; see the large
  // image below). The decoder's output is pixel-exact (checked first), so any distance here comes from the
  // reduction itself: halving these small images moves a few near-median bits of the textured ones.
  const REDUCTION_SLACK: Record<string, number> = { "gps.png": 6, "photo-wood-200x200-adam7.png": 4 };
  const cases: [string, () => Promise<Uint8Array>, string | undefined][] = [
    ...NAMES.filter((n) => n.startsWith("photo-")).map((n) => [n, () => lean(n), LEAN_EXPECTED_PHASH[n]] as [string, () => Promise<Uint8Array>, string | undefined]),
    ...FIXTURE_NAMES.filter((n) => n.endsWith(".png") && n !== "tiny.png").map((n) => [n, async () => fixture(n), EXPECTED_PHASH[n]] as [string, () => Promise<Uint8Array>, string | undefined]),
  ];
  for (const [name, load, expected] of cases) {
    it(`${name}: exact vs photon; phash at factors 2 and 3 within 2 of photon's full decode and of Python's`, async () => {
      const bytes = await load();
      const full = await photonDecode(bytes);
      const fullHash = phashFromRgba(full.rgba, full.width, full.height);
      for (const factor of [2, 3]) {
        const target = Math.ceil(full.width / factor) * Math.ceil(full.height / factor);
        expect(await compare(bytes, target, full)).toBe(factor);
        const ours = await decodePngReduced(bytes, { targetPixels: target });
        const hash = phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight);
        const bound = REDUCTION_SLACK[name] ?? 2;
        expect(hammingDistance(hash, fullHash), `${hash} vs photon ${fullHash}`).toBeLessThanOrEqual(bound);
        if (expected) expect(hammingDistance(hash, expected), `${hash} vs Python ${expected}`).toBeLessThanOrEqual(bound);
      }
    });
  }
});

// --- Hand-made PNGs for the edge cases.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function be32(v: number): number[] {
  return [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
}
function pngChunk(type: string, data: ArrayLike<number>, badCrc = false): number[] {
  const body = Uint8Array.from([...type].map((c) => c.charCodeAt(0)).concat(Array.from(data)));
  return [...be32(data.length), ...body, ...be32((crc(body) ^ (badCrc ? 1 : 0)) >>> 0)];
}
async function deflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
/** An 8-bit grey PNG; `raw` is the filtered data (a filter byte before each row). */
function greyPng(width: number, height: number, zlib: Uint8Array, opts: { iend?: boolean; badIdatCrc?: boolean; trailer?: number[] } = {}): Uint8Array {
  return Uint8Array.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a,
    ...pngChunk("IHDR", [...be32(width), ...be32(height), 8, 0, 0, 0, 0]),
    ...pngChunk("IDAT", zlib, opts.badIdatCrc),
    ...(opts.trailer ?? []),
    ...(opts.iend === false ? [] : pngChunk("IEND", [])),
  ]);
}

type RawChunk = { type: string; start: number; end: number };
/** The chunks of a PNG as far as they are complete (data from `start` to `end`). */
function chunksOf(bytes: Uint8Array): RawChunk[] {
  const out: RawChunk[] = [];
  for (let pos = 8; pos + 12 <= bytes.length; ) {
    const length = ((bytes[pos] << 24) | (bytes[pos + 1] << 16) | (bytes[pos + 2] << 8) | bytes[pos + 3]) >>> 0;
    if (pos + 12 + length > bytes.length) break;
    out.push({ type: String.fromCharCode(...bytes.subarray(pos + 4, pos + 8)), start: pos + 8, end: pos + 8 + length });
    pos += 12 + length;
  }
  return out;
}
function fixCrcs(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  for (const c of chunksOf(out)) out.set(be32(crc(out.subarray(c.start - 4, c.end))), c.end);
  return out;
}
async function inflateIdat(png: Uint8Array): Promise<Uint8Array> {
  const idat = chunksOf(png).filter((c) => c.type === "IDAT");
  const z = new Uint8Array(idat.reduce((n, c) => n + c.end - c.start, 0));
  let at = 0;
  for (const c of idat) z.set(png.subarray(c.start, c.end), (at += c.end - c.start) - (c.end - c.start));
  const stream = new Blob([z]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
/** The PNG with its IDAT chunks replaced by one holding `zlib`. */
function withIdat(png: Uint8Array, zlib: Uint8Array): Uint8Array {
  const chunks = chunksOf(png);
  const before = chunks.filter((c) => c.type !== "IDAT" && c.start < chunks.find((d) => d.type === "IDAT")!.start);
  return Uint8Array.from([...png.subarray(0, 8), ...before.flatMap((c) => [...png.subarray(c.start - 8, c.end + 4)]), ...pngChunk("IDAT", zlib), ...pngChunk("IEND", [])]);
}

async function expectLeanError(bytes: Uint8Array, pattern?: RegExp) {
  const err = await decodePngReduced(bytes, { targetPixels: 1e6 }).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(LeanDecodeError);
  if (pattern) expect((err as Error).message).toMatch(pattern);
}

describe("edge cases", () => {
  const rows = Uint8Array.from([0, 1, 2, 3, 4, 0, 5, 6, 7, 8]); // 4x2, filter None

  it("accepts a missing IEND, a missing Adler-32 and data past the last scanline", async () => {
    const z = await deflate(rows);
    for (const bytes of [greyPng(4, 2, z, { iend: false }), greyPng(4, 2, z.subarray(0, z.length - 4)), greyPng(4, 1, z)]) {
      const out = await decodePngReduced(bytes, { targetPixels: 100 });
      expect([...out.rgba.subarray(0, 8)]).toEqual([1, 1, 1, 255, 2, 2, 2, 255]);
    }
  });

  it("rejects junk after the zlib stream in the same piece (workerd's inflater fails; photon accepts it)", async () => {
    await expectLeanError(greyPng(4, 2, Uint8Array.from([...(await deflate(rows)), 1, 2, 3])), /Trailing/);
  });

  it("rejects a bad IDAT CRC, truncated or corrupt image data, a bad filter type and a bad signature", async () => {
    const z = await deflate(rows);
    await expectLeanError(greyPng(4, 2, z, { badIdatCrc: true }), /CRC/);
    await expectLeanError(greyPng(4, 3, z), /ends before/);
    await expectLeanError(greyPng(4, 2, z.subarray(0, z.length - 6)));
    await expectLeanError(greyPng(4, 2, Uint8Array.from(z).fill(0xff, 2, 6)));
    await expectLeanError(greyPng(4, 2, await deflate(Uint8Array.from([9, 1, 2, 3, 4, 0, 5, 6, 7, 8]))), /filter/);
    await expectLeanError(Uint8Array.from([1, 2, 3]), /signature/);
    await expectLeanError(greyPng(4, 2, new Uint8Array(0)));
  });

  it("joins the image data of consecutive IDAT chunks, empty ones included, but only of the first run", async () => {
    const z = await deflate(rows);
    const head = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...pngChunk("IHDR", [...be32(4), ...be32(2), 8, 0, 0, 0, 0])];
    const split = [...pngChunk("IDAT", []), ...pngChunk("IDAT", z.subarray(0, 5)), ...pngChunk("IDAT", []), ...pngChunk("IDAT", z.subarray(5))];
    const out = await decodePngReduced(Uint8Array.from([...head, ...split, ...pngChunk("IEND", [])]), { targetPixels: 100 });
    expect([...out.rgba.subarray(28, 32)]).toEqual([8, 8, 8, 255]);
    const interrupted = [...pngChunk("IDAT", z.subarray(0, 5)), ...pngChunk("tEXt", [65, 0, 66]), ...pngChunk("IDAT", z.subarray(5))];
    await expectLeanError(Uint8Array.from([...head, ...interrupted, ...pngChunk("IEND", [])]));
  });

  it("ignores a bad CRC on an ancillary chunk (as the png crate does) and on anything after the image data", async () => {
    const z = await deflate(rows);
    await compare(greyPng(4, 2, z, { trailer: pngChunk("tEXt", [65, 0, 66], true) }), 100);
    const out = await decodePngReduced(greyPng(4, 2, z, { iend: false, trailer: pngChunk("IEND", [], true) }), { targetPixels: 100 });
    expect([...out.rgba.subarray(28, 32)]).toEqual([8, 8, 8, 255]);
  });

  it("stops inflating at the last scanline: a zlib bomb behind a 1x1 image costs nothing", async () => {
    const bomb = await deflate(new Uint8Array(64 * 2 ** 20)); // 64 MB of zeros in ~64 KB
    const started = performance.now();
    const out = await decodePngReduced(greyPng(1, 1, bomb), { targetPixels: 10 });
    expect([...out.rgba]).toEqual([0, 0, 0, 255]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("does not modify the caller's bytes", async () => {
    const bytes = await lean("rgba16-adam7.png");
    const copy = bytes.slice();
    await decodePngReduced(bytes, { targetPixels: 500 });
    expect(bytes).toEqual(copy);
  });
});

describe("robustness", () => {
  const sources = ["pal4-adam7.png", "rgb16-trns.png", "g2-trns-adam7.png", "size-5x5-adam7.png", "apng-pil.png", "pil-P-trns.png"];

  async function onlyLeanErrors(bytes: Uint8Array) {
    try {
      const out = await decodePngReduced(bytes, { targetPixels: 200 });
      expect(out.rgba.length).toBe(out.outWidth * out.outHeight * 4);
    } catch (err) {
      if (!(err instanceof LeanDecodeError)) throw err;
    }
  }

  it("truncations and byte flips give a result or a LeanDecodeError, never another exception", async () => {
    const files = await Promise.all(sources.map(lean));
    await fc.assert(
      fc.asyncProperty(fc.nat(files.length - 1), fc.double({ min: 0, max: 1, noNaN: true }), async (i, at) => {
        await onlyLeanErrors(files[i].subarray(0, Math.floor(files[i].length * at)));
      }),
      { numRuns: 80 },
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(files.length - 1), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(255)), { minLength: 1, maxLength: 4 }), async (i, flips) => {
        const bytes = files[i].slice();
        for (const [at, value] of flips) bytes[Math.min(bytes.length - 1, Math.floor(bytes.length * at))] = value;
        await onlyLeanErrors(bytes);
        // The same with every CRC made right again, so the damage reaches the header, palette and zlib data.
        await onlyLeanErrors(fixCrcs(bytes));
      }),
      { numRuns: 120 },
    );
  });

  it("any header over valid image data, and damaged scanlines under a valid zlib stream, never throw otherwise", async () => {
    const files = await Promise.all(sources.map(lean));
    const raws = await Promise.all(files.map(inflateIdat));
    const header = fc.record({
      width: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constantFrom(0, 65535, 2 ** 31 - 1, 2 ** 32 - 1)),
      height: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constantFrom(0, 65535, 2 ** 31 - 1)),
      depth: fc.constantFrom(1, 2, 4, 8, 16, 0, 3, 32),
      colorType: fc.constantFrom(0, 2, 3, 4, 6, 1, 5, 7),
      interlace: fc.constantFrom(0, 1, 0, 1, 2),
    });
    await fc.assert(
      fc.asyncProperty(fc.nat(files.length - 1), header, async (i, h) => {
        const bytes = files[i].slice();
        // IHDR data sits at offset 16: width, height, depth, colour type, compression, filter, interlace.
        bytes.set([...be32(h.width), ...be32(h.height), h.depth, h.colorType, 0, 0, h.interlace], 16);
        await onlyLeanErrors(fixCrcs(bytes));
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(files.length - 1), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(255)), { minLength: 1, maxLength: 8 }), async (i, flips) => {
        const raw = raws[i].slice();
        for (const [at, value] of flips) raw[Math.min(raw.length - 1, Math.floor(raw.length * at))] = value;
        await onlyLeanErrors(withIdat(files[i], await deflate(raw)));
      }),
      { numRuns: 100 },
    );
  });

  it("header fields out of range are LeanDecodeErrors", async () => {
    const z = await deflate(new Uint8Array(16));
    const withHeader = (w: number, h: number, depth: number, ct: number, interlace = 0) =>
      Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...pngChunk("IHDR", [...be32(w), ...be32(h), depth, ct, 0, 0, interlace]), ...pngChunk("IDAT", z), ...pngChunk("IEND", [])]);
    for (const bytes of [withHeader(0, 1, 8, 0), withHeader(1, 0, 8, 0), withHeader(2 ** 31 - 1, 1, 8, 0), withHeader(60000, 60000, 8, 0), withHeader(1, 1, 3, 0), withHeader(1, 1, 16, 3), withHeader(1, 1, 8, 5), withHeader(1, 1, 8, 0, 2), withHeader(1, 1, 8, 3)]) {
      await expectLeanError(bytes);
    }
  });
});

/** Row y of the picture generate.py draws (large_image) at width x height, as RGBA8. */
function largeRow(y: number, width: number, height: number, row: Uint8Array) {
  for (let x = 0; x < width; x++) {
    let r = Math.floor((x * 255) / (width - 1)), g = Math.floor((y * 255) / (height - 1)), b = 128;
    if (y >= 1000 && y < 2000 && x >= 1500 && x < 4500) (r = 255), (g = 0), (b = 0);
    if (y >= 3000 && y < 4700 && x >= 6000 && x < 7000) (r = 0), (g = 0), (b = 255);
    if (y === 2500) r = g = b = 255;
    if (x === 7777) r = g = b = 0;
    row[x * 4] = r;
    row[x * 4 + 1] = g;
    row[x * 4 + 2] = b;
    row[x * 4 + 3] = 255;
  }
}

describe("large images", () => {
  for (const [name, width, height] of [["large-8000x5000.png", 8000, 5000], ["large-6000x4000-adam7.png", 6000, 4000]] as const) {
    it(`${name}: decodes to ~1 MP with exactly the expected block averages, phash within 2 of Python's`, async () => {
      const bytes = await lean(name);
      const started = performance.now();
      const out = await decodePngReduced(bytes, { targetPixels: 1_000_000 });
      const ms = performance.now() - started;
      const mp = (width * height) / 1e6;
      console.log(`${name} (${bytes.length} bytes): ${width}x${height} -> ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms (${(mp / (ms / 1000)).toFixed(1)} MP/s)`);
      expect([out.width, out.height]).toEqual([width, height]);
      const factor = reductionFactor(width, height, 1_000_000);
      expect([out.outWidth, out.outHeight]).toEqual([Math.ceil(width / factor), Math.ceil(height / factor)]);
      const reducer = new BoxReducer(width, height, factor);
      const row = new Uint8Array(width * 4);
      for (let y = 0; y < height; y++) {
        largeRow(y, width, height, row);
        reducer.addRow(y, row);
      }
      expect(diff(out.rgba, reducer.finish().rgba).max).toBe(0);
      const hash = phashFromRgba(out.rgba, out.outWidth, out.outHeight);
      const expected = LEAN_EXPECTED_PHASH[name];
      expect(hammingDistance(hash, expected), `${hash} vs Python ${expected}`).toBeLessThanOrEqual(2);
    }, 60_000);
  }
});

describe("throughput on photo-like data", () => {
  it("decodes a 12 MP RGB PNG with every filter type and ~2.4 bits of entropy per byte (built in the test)", async () => {
    const width = 4000, height = 3000, rowLen = 1 + width * 3;
    const raw = new Uint8Array(rowLen * height);
    let s = 12345;
    for (let y = 0; y < height; y++) {
      raw[y * rowLen] = y % 5;
      for (let i = 1; i < rowLen; i++) {
        s = (Math.imul(s, 1103515245) + 12345) | 0;
        raw[y * rowLen + i] = ((s >>> 16) % 7) - 3; // small residuals, as filters leave on photos
      }
    }
    const z = await deflate(raw);
    // Assembled with typed arrays: spreading megabytes into number arrays (pngChunk) would take seconds.
    const head = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...pngChunk("IHDR", [...be32(width), ...be32(height), 8, 2, 0, 0, 0])]);
    const idat = new Uint8Array(12 + z.length);
    idat.set([...be32(z.length), 73, 68, 65, 84]);
    idat.set(z, 8);
    idat.set(be32(crc(idat.subarray(4, 8 + z.length))), 8 + z.length);
    const png = new Uint8Array(head.length + idat.length);
    png.set(head);
    png.set(idat, head.length);
    const started = performance.now();
    const out = await decodePngReduced(png, { targetPixels: 1_000_000 });
    const ms = performance.now() - started;
    console.log(`photo-like 4000x3000 RGB, ${(z.length / 2 ** 20).toFixed(1)} MB compressed -> ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms (${(12 / (ms / 1000)).toFixed(1)} MP/s)`);
    expect([out.outWidth, out.outHeight]).toEqual([1000, 750]);
  }, 60_000);
});

// The shared large PNG of the reduced-path tests (test/fixtures/images/large), a real 15 MP image: speed and
// phash against Python's on the full image. Skipped if that fixture moves.
const sharedLarge = import.meta.glob("../../fixtures/images/large/*.png", { query: "?inline", import: "default" }) as Record<string, () => Promise<string>>;
const sharedLargeExpected = import.meta.glob("../../fixtures/images/large/expected-phash.json", { import: "hashes", eager: true }) as Record<string, Record<string, string>>;

describe("shared large PNG", () => {
  for (const [path, load] of Object.entries(sharedLarge)) {
    const name = path.split("/").pop()!;
    it(`${name}: decodes to ~1 MP, phash within 2 of Python's on the full image`, async () => {
      const url = await load();
      const binary = atob(url.slice(url.indexOf(",") + 1));
      const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
      const started = performance.now();
      const out = await decodePngReduced(bytes, { targetPixels: 1_000_000 });
      const ms = performance.now() - started;
      const mp = (out.width * out.height) / 1e6;
      console.log(`${name} (${(bytes.length / 2 ** 20).toFixed(1)} MB): ${out.width}x${out.height} -> ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms (${(mp / (ms / 1000)).toFixed(1)} MP/s)`);
      expect(out.outWidth * out.outHeight).toBeLessThanOrEqual(1_000_000);
      const expected = Object.values(sharedLargeExpected)[0]?.[name];
      const hash = phashFromRgba(out.rgba, out.outWidth, out.outHeight);
      if (expected) expect(hammingDistance(hash, expected), `${hash} vs Python ${expected}`).toBeLessThanOrEqual(2);
    }, 60_000);
  }
});
