/// <reference types="vite/client" />
// The lean WebP decoder against photon: photon decodes the fixture fully, BoxReducer reduces that with the same
// factor, and the two must agree (exactly for lossless data and alpha; lossy colour within the VP8 decoders'
// rounding differences). Fixtures: test/fixtures/images/lean/webp/generate.py.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeWebpReduced, VP8L_MAX_PIXELS } from "../../../src/analysis/decoders/webp";
import { BoxReducer, LeanDecodeError, reductionFactor, type ReducedImage } from "../../../src/analysis/decoders/reduce";
import { hammingDistance, phashFromRgba } from "../../../src/analysis/phash";
import { EXPECTED_PHASH, fixture } from "../fixtures";
import { boxReduce, leanFixtures, photonDecode, type FullImage } from "./support";

const fixtures = await leanFixtures("webp");
const NAMES = fixtures.names.filter((n) => !n.startsWith("large-"));
// Photon refuses an unknown chunk in an extended file, and the 1x1 lossy animation frame; the lean decoder
// decodes both (checked separately).
const PHOTON_NAMES = NAMES.filter((n) => n !== "extended-unknown-chunk.webp" && n !== "anim-offset-lossy-1x1.webp");
// A lossy first frame smaller than its canvas is placed from its reduced image: exact (up to rounding) only
// when its offset (10, 6) is a multiple of the factor.
const OFFSET_LOSSY = "anim-offset-lossy.webp";

const decode = decodeWebpReduced;

const lean = async (name: string) => fixtures.bytes(name);

/** Whether a fixture holds lossy (VP8) data anywhere. */
function isLossy(bytes: Uint8Array): boolean {
  for (let i = 12; i + 4 <= bytes.length; i++) if (bytes[i] === 0x56 && bytes[i + 1] === 0x50 && bytes[i + 2] === 0x38 && bytes[i + 3] === 0x20) return true;
  return false;
}

type Full = FullImage;

/** Max and mean absolute difference over the colour channels and over alpha. */
function diff(a: Uint8Array, b: Uint8Array) {
  let max = 0, sum = 0, alphaMax = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if ((i & 3) === 3) {
      if (d > alphaMax) alphaMax = d;
      continue;
    }
    sum += d;
    if (d > max) max = d;
  }
  return { max, mean: sum / Math.max(1, (a.length / 4) * 3), alphaMax };
}

/** Compares with photon + BoxReducer for a target size; returns the factor used and the differences. */
async function compare(bytes: Uint8Array, targetPixels: number, full: Full) {
  const ours = await decode(bytes, { targetPixels });
  const factor = reductionFactor(full.width, full.height, targetPixels);
  const ref = boxReduce(full, factor);
  expect([ours.width, ours.height, ours.outWidth, ours.outHeight]).toEqual([full.width, full.height, ref.outWidth, ref.outHeight]);
  expect(ours.rgba.length).toBe(ref.rgba.length);
  return { factor, ...diff(ours.rgba, ref.rgba) };
}

describe("decodeWebpReduced = photon full decode + BoxReducer", () => {
  it("has the fixtures generate.py writes", () => {
    expect(NAMES.length).toBeGreaterThanOrEqual(25);
    expect(fixtures.names.includes("large-4000x3000.webp")).toBe(true);
  });

  for (const name of PHOTON_NAMES) {
    it(`${name}: matches at factor 1 and at larger factors`, async () => {
      const bytes = await lean(name);
      const lossy = isLossy(bytes);
      const full = await photonDecode(bytes);
      const pixels = full.width * full.height;
      const factors = new Set<number>();
      for (const target of [pixels, Math.ceil(full.width / 2) * Math.ceil(full.height / 2), Math.ceil(pixels / 9), 300, 40]) {
        const r = await compare(bytes, target, full);
        factors.add(r.factor);
        const what = `factor ${r.factor}: max ${r.max}, mean ${r.mean.toFixed(4)}, alpha max ${r.alphaMax}`;
        if (name === OFFSET_LOSSY) {
          const aligned = 10 % r.factor === 0 && 6 % r.factor === 0;
          expect(r.alphaMax, what).toBeLessThanOrEqual(aligned ? 1 : 128);
          expect(r.mean, what).toBeLessThan(aligned ? 2 : 10);
          continue;
        }
        // Alpha is lossless (VP8L or ALPH) everywhere, so it must match exactly; so must lossless colour.
        expect(r.alphaMax, what).toBe(0);
        if (lossy) expect(r.mean, what).toBeLessThan(2);
        else expect(r.max, what).toBe(0);
      }
      expect(factors.has(1)).toBe(true);
      if (pixels > 40) expect(Math.max(...factors)).toBeGreaterThan(1);
    });
  }

  it("skips an unknown chunk in an extended file", async () => {
    const a = await decode(await lean("extended-unknown-chunk.webp"), { targetPixels: 1e9 });
    const b = await decode(await lean("extended-lossless.webp"), { targetPixels: 1e9 });
    expect(a.rgba).toEqual(b.rgba);
  });

  it("places a 1x1 lossy first frame on its canvas at any factor", async () => {
    const bytes = await lean("anim-offset-lossy-1x1.webp");
    const one = await decode(bytes, { targetPixels: 1e9 });
    const at = (20 + 10 * 71) * 4;
    expect(Math.abs(one.rgba[at] - 200) + Math.abs(one.rgba[at + 1] - 30) + Math.abs(one.rgba[at + 2] - 90)).toBeLessThan(12);
    expect(one.rgba[at + 3]).toBe(255);
    expect(one.rgba.reduce((n, v) => n + (v ? 1 : 0), 0)).toBeLessThanOrEqual(4);
    const four = await decode(bytes, { targetPixels: 300 });
    const factor = reductionFactor(71, 53, 300);
    const block = (Math.floor(10 / factor) * four.outWidth + Math.floor(20 / factor)) * 4;
    expect(four.rgba[block + 3]).toBe(Math.round(255 / (factor * factor)));
  });

  it("places an animation's first frame at its offset on a transparent canvas, as photon does", async () => {
    const out = await decode(await lean("anim-offset-blend.webp"), { targetPixels: 1e9 });
    expect([out.width, out.height]).toEqual([71, 53]);
    // ANIM's opaque background colour is only a hint: outside the frame the canvas stays transparent black.
    expect([...out.rgba.subarray(0, 4)]).toEqual([0, 0, 0, 0]);
    const inside = ((6 + 18) * 71 + 10 + 8) * 4; // the frame's opaque ellipse
    expect([...out.rgba.subarray(inside, inside + 4)]).toEqual([200, 60, 30, 255]);
  });
});

// --- Hand-built VP8L streams: every predictor mode (encoders rarely emit 0, never the undefined 14-15) on
// random pixels.

class BitWriter {
  bytes: number[] = [];
  private acc = 0;
  private n = 0;
  put(value: number, bits: number) {
    for (let i = 0; i < bits; i++) {
      this.acc |= ((value >>> i) & 1) << this.n;
      if (++this.n === 8) {
        this.bytes.push(this.acc);
        this.acc = 0;
        this.n = 0;
      }
    }
  }
  done(): Uint8Array {
    if (this.n) this.bytes.push(this.acc);
    return Uint8Array.from(this.bytes);
  }
}

/**
 * A simple prefix code of one or two 8-bit symbols. Two must come in increasing order, as libwebp writes
 * them: libwebp codes the smaller symbol 0 whatever the order, photon (image-webp) the first one.
 */
function simpleCode(w: BitWriter, symbols: number[]) {
  w.put(1, 1);
  w.put(symbols.length - 1, 1);
  w.put(1, 1);
  for (const s of symbols) w.put(s, 8);
}

/** w x h VP8L: a predictor transform with `mode` in every 4x4 tile over random green / red / alpha bits. */
function predictorStream(mode: number, w: number, h: number, seed: number): Uint8Array {
  const bw = new BitWriter();
  bw.put(0x2f, 8);
  bw.put(w - 1, 14);
  bw.put(h - 1, 14);
  bw.put(1, 1);
  bw.put(0, 3);
  bw.put(1, 1); // a transform:
  bw.put(0, 2); // predictor,
  bw.put(0, 3); // 4x4 tiles; its sub-image: no cache, constant green = mode
  bw.put(0, 1);
  for (const symbols of [[mode], [0], [0], [255], [0]]) simpleCode(bw, symbols);
  bw.put(0, 1); // no more transforms
  bw.put(0, 1); // no colour cache
  bw.put(0, 1); // no meta prefix codes
  for (const symbols of [[3, 200], [17, 90], [60], [128, 255], [0]]) simpleCode(bw, symbols);
  let state = seed;
  for (let i = 0; i < w * h * 3; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bw.put(state >>> 31, 1); // green, red, alpha: one bit each; blue takes none
  }
  return bw.done();
}

/** w x h VP8L: a 3-colour palette (2 bits per index, 4 pixels per byte) whose packed indices include 3. */
function paletteStream(w: number, h: number): Uint8Array {
  const bw = new BitWriter();
  bw.put(0x2f, 8);
  bw.put(w - 1, 14);
  bw.put(h - 1, 14);
  bw.put(1, 1);
  bw.put(0, 3);
  bw.put(1, 1); // a transform:
  bw.put(3, 2); // colour indexing,
  bw.put(2, 8); // 3 colours, delta-coded: 3x1 sub-image, no cache
  bw.put(0, 1);
  for (const symbols of [[10, 100], [20, 200], [30], [128, 255], [0]]) simpleCode(bw, symbols);
  for (const bits of [0b000, 0b111, 0b011]) bw.put(bits, 3); // green, red, alpha bits per palette entry
  bw.put(0, 1); // no more transforms
  bw.put(0, 1); // no colour cache
  bw.put(0, 1); // no meta prefix codes
  for (const symbols of [[0x1b, 0xe4], [0], [0], [255], [0]]) simpleCode(bw, symbols);
  const packed = Math.ceil(w / 4) * h;
  for (let i = 0; i < packed; i++) bw.put((i * 7) % 3 === 0 ? 1 : 0, 1);
  return bw.done();
}

describe("hand-built VP8L streams", () => {
  it("colour indexing: bundled indices, one past the palette (transparent black), as photon decodes them", async () => {
    const bytes = riff([chunk("VP8L", paletteStream(15, 7))]);
    const full = await photonDecode(bytes);
    const ours = await decode(bytes, { targetPixels: 1e9 });
    expect(diff(ours.rgba, full.rgba)).toEqual({ max: 0, mean: 0, alphaMax: 0 });
    expect(ours.rgba.some((v, i) => i % 4 === 3 && v === 0)).toBe(true);
  });

  for (let mode = 0; mode < 16; mode++) {
    it(`predictor mode ${mode} matches photon`, async () => {
      const bytes = riff([chunk("VP8L", predictorStream(mode, 13, 9, mode + 1))]);
      const full = await photonDecode(bytes);
      const ours = await decode(bytes, { targetPixels: 1e9 });
      expect(diff(ours.rgba, full.rgba)).toEqual({ max: 0, mean: 0, alphaMax: 0 });
    });
  }
});

describe("phash of the reduced image", () => {
  const cases: [string, () => Promise<Uint8Array>, string | undefined][] = [
    ...["lossless-cubes-m4.webp", "lossless-cubes-m6.webp", "lossless-truchet.webp", "lossless-shapes.webp"].map(
      (n) => [n, () => lean(n), undefined] as [string, () => Promise<Uint8Array>, string | undefined],
    ),
    ...["pixels.webp", "cubes.webp", "gps.webp"].map((n) => [n, async () => fixture(n), EXPECTED_PHASH[n]] as [string, () => Promise<Uint8Array>, string | undefined]),
  ];
  for (const [name, load, expected] of cases) {
    it(`${name}: phash of the reduced image agrees with photon's (and with the full image's where big enough)`, async () => {
      const bytes = await load();
      const lossy = isLossy(bytes);
      const full = await photonDecode(bytes);
      const fullHash = phashFromRgba(full.rgba, full.width, full.height);
      for (const factor of [1, 2, 3]) {
        const target = Math.ceil(full.width / factor) * Math.ceil(full.height / factor);
        const ours = await decode(bytes, { targetPixels: target });
        expect(ours.outWidth).toBe(Math.ceil(full.width / factor));
        const hash = phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight);
        const ref = boxReduce(full, factor);
        const refHash = phashFromRgba(ref.rgba, ref.outWidth, ref.outHeight);
        expect(hammingDistance(hash, refHash), `factor ${factor}: ${hash} vs photon reduced ${refHash}`).toBeLessThanOrEqual(lossy ? 2 : 0);
        // Reducing a small image itself moves the hash (gps.webp at factor 2 is 80x60: 6 bits from the full
        // image's); the real path reduces 5-40 MP images to ~1 MP. So the full-image and Python checks apply
        // where the reduced image keeps at least 100 px a side.
        if (factor > 1 && Math.min(ours.outWidth, ours.outHeight) < 100) continue;
        expect(hammingDistance(hash, fullHash), `factor ${factor}: ${hash} vs photon ${fullHash}`).toBeLessThanOrEqual(2);
        if (expected) expect(hammingDistance(hash, expected), `factor ${factor}: ${hash} vs Python ${expected}`).toBeLessThanOrEqual(2);
      }
    });
  }
});

describe("robustness: any bytes give a ReducedImage or a LeanDecodeError", () => {
  async function total(bytes: Uint8Array) {
    try {
      const out = await decode(bytes, { targetPixels: 5000 });
      expect(out.rgba.length).toBe(out.outWidth * out.outHeight * 4);
    } catch (err) {
      if (!(err instanceof LeanDecodeError)) throw err;
    }
  }

  const seeds = ["lossless-cubes-m6.webp", "lossless-palette4.webp", "lossless-rgba-exact.webp", "anim-lossless.webp", "lossy-alpha.webp", "lossy-alph-raw-gradient.webp"];
  for (const name of seeds) {
    it(`${name}: truncations and byte flips`, async () => {
      const bytes = await lean(name);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: bytes.length }), async (n) => total(bytes.slice(0, n))),
        { numRuns: 40 },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }), async (flips) => {
          const copy = bytes.slice();
          for (const [i, x] of flips) copy[i] ^= x;
          await total(copy);
        }),
        { numRuns: 60 },
      );
    });
  }

  it("random bytes after a valid RIFF / VP8L header", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), async (tail, w, h) => {
        const bits = (w - 1) | ((h - 1) << 14) | (1 << 28);
        const payload = Uint8Array.from([0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, bits >>> 24, ...tail]);
        await total(riff([chunk("VP8L", payload)]));
      }),
      { numRuns: 150 },
    );
  });
});

function chunk(tag: string, payload: Uint8Array): number[] {
  const n = payload.length;
  return [...[...tag].map((c) => c.charCodeAt(0)), n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24, ...payload, ...(n & 1 ? [0] : [])];
}

function riff(chunks: number[][]): Uint8Array {
  const body = chunks.flat();
  const n = body.length + 4;
  return Uint8Array.from([0x52, 0x49, 0x46, 0x46, n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24, 0x57, 0x45, 0x42, 0x50, ...body]);
}

describe("large images", () => {
  it("decodes a 12 MP lossless WebP to the reducer's size with the right pixels", async () => {
    const bytes = await lean("large-4000x3000.webp");
    const W = 4000, H = 3000;
    const targetPixels = 1_000_000;
    const t0 = performance.now();
    const out = await decode(bytes, { targetPixels });
    const ms = performance.now() - t0;
    console.log(`large-4000x3000.webp: ${ms.toFixed(0)} ms, ${((W * H) / 1e6 / (ms / 1000)).toFixed(1)} MP/s`);
    const factor = reductionFactor(W, H, targetPixels);
    expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([W, H, Math.ceil(W / factor), Math.ceil(H / factor)]);
    // The pattern generate.py drew, reduced the same way.
    const reducer = new BoxReducer(W, H, factor);
    const row = new Uint8Array(W * 4);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        row[x * 4] = (x >> 4) & 255;
        row[x * 4 + 1] = (y >> 4) & 255;
        row[x * 4 + 2] = ((x + y) >> 5) & 255;
        row[x * 4 + 3] = 255;
      }
      reducer.addRow(y, row);
    }
    expect(diff(out.rgba, reducer.finish().rgba)).toEqual({ max: 0, mean: 0, alphaMax: 0 });
  });

  it("decodes an 18 MP lossy WebP whose two-level alpha plane colour indexing packs under the limit", async () => {
    const bytes = await lean("large-6000x3000-alpha.webp");
    const t0 = performance.now();
    const out = await decode(bytes, { targetPixels: 1_000_000 });
    const ms = performance.now() - t0;
    console.log(`large-6000x3000-alpha.webp: ${ms.toFixed(0)} ms, ${(18 / (ms / 1000)).toFixed(1)} MP/s`);
    const factor = reductionFactor(6000, 3000, 1_000_000);
    expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([6000, 3000, Math.ceil(6000 / factor), Math.ceil(3000 / factor)]);
    const at = (x: number, y: number) => [...out.rgba.subarray(((Math.floor(y / factor) * out.outWidth) + Math.floor(x / factor)) * 4, ((Math.floor(y / factor) * out.outWidth) + Math.floor(x / factor)) * 4 + 4)];
    expect(at(100, 100)[3]).toBe(0); // the transparent rectangle
    expect(at(3000, 1500)[3]).toBe(0); // the transparent ellipse
    const opaque = at(5900, 2900);
    expect(opaque[3]).toBe(255);
    expect(Math.abs(opaque[0] - 40) + Math.abs(opaque[1] - 120) + Math.abs(opaque[2] - 200)).toBeLessThan(12);
  });

  it("refuses a huge animation canvas before compositing", async () => {
    const frame = Uint8Array.from([0x2f, 0, 0, 0, 0, 0, 0, 0, 0]);
    const vp8x = Uint8Array.from([0x02, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    const anmf = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 2, ...chunk("VP8L", frame)]);
    await expect(decode(riff([chunk("VP8X", vp8x), chunk("ANMF", anmf)]), { targetPixels: 1e6 })).rejects.toThrow(LeanDecodeError);
  });

  it(`refuses a lossless header over ${VP8L_MAX_PIXELS} pixels before decoding`, async () => {
    const w = 4001, h = 4001;
    const bits = (w - 1) | ((h - 1) << 14);
    const bytes = riff([chunk("VP8L", Uint8Array.from([0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, bits >>> 24, 0, 0, 0, 0]))]);
    await expect(decode(bytes, { targetPixels: 1e6 })).rejects.toThrow(new LeanDecodeError("lossless WebP too large to analyze: 4001x4001 is over 12 megapixels"));
  });
});
