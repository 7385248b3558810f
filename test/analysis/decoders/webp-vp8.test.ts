/// <reference types="vite/client" />
// The lean VP8 (lossy WebP) decoder against photon's full decode, box-reduced with the same factor.
// Photon's VP8 decoder (the `image` crate 0.24) is deterministic and so is ours, with the same edge
// conventions, loop-filter arithmetic and colour conversion: the outputs are expected to be identical.
// Fixtures: test/fixtures/images/lean/webp-vp8 (generate.py) and the lossy WebPs in test/fixtures/images.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LeanDecodeError, reductionFactor, type ReducedImage } from "../../../src/analysis/decoders/reduce";
import { decodeVp8Reduced } from "../../../src/analysis/decoders/webp-vp8";
import { readFrameHeader } from "../../../src/analysis/decoders/webp-vp8-bool";
import { AC_QUANT, DC_QUANT } from "../../../src/analysis/decoders/webp-vp8-tables";
import { hammingDistance, phashFromRgba } from "../../../src/analysis/phash";
import { EXPECTED_PHASH, fixture } from "../fixtures";
import { boxReduce, leanFixtures, photonDecode } from "./support";

const fixtures = await leanFixtures("webp-vp8");
const lean = fixtures.bytes;

/** The payload of the `VP8 ` chunk of a RIFF WebP (simple or extended). */
function vp8Payload(file: Uint8Array): Uint8Array {
  const dv = new DataView(file.buffer, file.byteOffset, file.byteLength);
  for (let p = 12; p + 8 <= file.length; ) {
    const id = String.fromCharCode(...file.subarray(p, p + 4));
    const size = dv.getUint32(p + 4, true);
    if (id === "VP8 ") return file.subarray(p + 8, p + 8 + size);
    p += 8 + size + (size & 1);
  }
  throw new Error("no VP8 chunk");
}

/**
 * Without segmentation, photon (image 0.24) dequantizes with quantizer index 0 instead of the frame's, a
 * bug fixed later in image-webp; we decode these as libwebp does and compare with libwebp's decode (PIL).
 */
const PHOTON_QUANT_BUG = ["odd-1x1.webp", "one-segment.webp"];
const LARGE = "large-6000x4000.webp";
const LEAN = fixtures.names.filter((n) => n.endsWith(".webp") && n !== LARGE).sort();
const EXACT = [...LEAN.filter((n) => !PHOTON_QUANT_BUG.includes(n)).map((n) => ({ name: n, file: () => lean(n) })), ...["cubes.webp", "gps.webp", "pixels.webp"].map((n) => ({ name: n, file: () => fixture(n) }))];
const HUGE = { targetPixels: 1e9 };

const boxReduceRaw = (width: number, height: number, rgba: Uint8Array, factor: number): ReducedImage => boxReduce({ width, height, rgba }, factor);

function diff(a: ReducedImage, b: ReducedImage) {
  expect([a.outWidth, a.outHeight]).toEqual([b.outWidth, b.outHeight]);
  let max = 0, sum = 0;
  for (let i = 0; i < a.rgba.length; i++) {
    const d = Math.abs(a.rgba[i] - b.rgba[i]);
    if (d > max) max = d;
    sum += d;
  }
  return { max, mean: sum / a.rgba.length };
}

const header = (name: string) => readFrameHeader(vp8Payload(lean(name)), DC_QUANT, AC_QUANT);

describe("fixtures cover the bitstream variants", () => {
  it("segment maps, simple and normal filters, sharpness, several token partitions, skip flags", () => {
    const cubes = header("cubes-q75.webp");
    expect([cubes.segmentsEnabled, cubes.updateMap, cubes.simpleFilter, cubes.partitions.length]).toEqual([true, true, false, 1]);
    expect(header("simple-filter.webp").simpleFilter).toBe(true);
    expect(header("sharp-strong-filter.webp").sharpness).toBe(7);
    expect(header("sharp-strong-filter.webp").filterLevel).toBe(63);
    expect(header("no-filter.webp").filterLevel).toBe(0);
    expect(header("partitions-8.webp").partitions.length).toBe(8);
    expect(header("partitions-2.webp").partitions.length).toBe(2);
    expect(header("one-segment.webp").segmentsEnabled).toBe(false);
    expect(header(LARGE).skipProb).toBeGreaterThanOrEqual(0);
    const q = new Set(LEAN.map((n) => header(n).segments[0].quant));
    expect(Math.min(...q)).toBe(0); // quality 100
    expect(Math.max(...q)).toBeGreaterThan(100); // quality 1
  });
});

describe("lean VP8 decoder vs photon's full decode, box-reduced with the same factor", () => {
  for (const { name, file } of EXACT) {
    it(`${name}: identical at factor 1 and at factors that do not divide the size`, async () => {
      const bytes = file();
      const full = await photonDecode(bytes);
      const payload = vp8Payload(bytes);
      const ours = await decodeVp8Reduced(payload, HUGE);
      expect([ours.width, ours.height, ours.outWidth, ours.outHeight]).toEqual([full.width, full.height, full.width, full.height]);
      const d1 = diff(ours, { width: full.width, height: full.height, outWidth: full.width, outHeight: full.height, rgba: full.rgba });
      const results = [`f1 max ${d1.max} mean ${d1.mean.toFixed(4)}`];
      expect(d1.max).toBe(0);
      for (const divisor of [7, 50]) {
        const targetPixels = Math.max(1, Math.floor((full.width * full.height) / divisor));
        const factor = reductionFactor(full.width, full.height, targetPixels);
        const reduced = await decodeVp8Reduced(payload, { targetPixels });
        const d = diff(reduced, boxReduceRaw(full.width, full.height, full.rgba, factor));
        results.push(`f${factor} max ${d.max} mean ${d.mean.toFixed(4)}`);
        expect(d.max).toBe(0);
      }
      console.log(`vp8 ${name} ${full.width}x${full.height}: ${results.join(", ")}`);
    });
  }

  it("reduces by an explicit factor when given one (which targetPixels cannot express for tiny frames)", async () => {
    const payload = vp8Payload(lean("odd-17x9.webp"));
    const out = await decodeVp8Reduced(payload, { targetPixels: 1, factor: 4 });
    expect([out.outWidth, out.outHeight]).toEqual([5, 3]);
    const tiny = await decodeVp8Reduced(vp8Payload(lean("odd-1x1.webp")), { targetPixels: 1, factor: 3 });
    expect([tiny.outWidth, tiny.outHeight]).toEqual([1, 1]);
    const full = await photonDecode(lean("odd-17x9.webp"));
    expect(diff(out, boxReduceRaw(full.width, full.height, full.rgba, 4)).max).toBe(0);
  });

  for (const name of PHOTON_QUANT_BUG) {
    it(`${name} (no segmentation): close to libwebp's decode, unlike photon's`, async () => {
      const ours = await decodeVp8Reduced(vp8Payload(lean(name)), HUGE);
      const libwebp = await photonDecode(lean(name.replace(".webp", ".libwebp.png")));
      const photon = await photonDecode(lean(name));
      const asImage = (d: { width: number; height: number; rgba: Uint8Array }): ReducedImage => ({ ...d, outWidth: d.width, outHeight: d.height });
      const vsLibwebp = diff(ours, asImage(libwebp));
      const photonVsLibwebp = diff(asImage(photon), asImage(libwebp));
      console.log(`vp8 ${name}: vs libwebp mean ${vsLibwebp.mean.toFixed(3)} max ${vsLibwebp.max}; photon vs libwebp mean ${photonVsLibwebp.mean.toFixed(3)}`);
      // libwebp interpolates chroma ("fancy upsampling") and rounds its colour conversion differently.
      expect(vsLibwebp.mean).toBeLessThan(1.5);
      expect(photonVsLibwebp.mean).toBeGreaterThan(10);
    });
  }
});

describe("phash of the reduced image", () => {
  // Reduced while the short side stays >= 160 px: below that the 32x32 Lanczos step of the phash sees a
  // different image. Our reduced pixels equal photon's box-reduced ones (above), so any distance to the
  // full-resolution hash is the box reduction's, not the decoder's: wood grain has many DCT terms near
  // the median, and box-reducing photon's own decode of these flips up to 5 bits (measured; bound 6).
  const REDUCTION_SENSITIVE: Record<string, number> = { "wood-1600.webp": 6, "wood-q1.webp": 6, "wood-q50-m0.webp": 6, "odd-1001x333.webp": 4 };
  const PHASHED = EXACT.filter(({ name }) => !/^odd-(1x1|17x9|3x35)/.test(name));
  for (const { name, file } of PHASHED) {
    it(`${name}: within Hamming distance 2 of photon's full decode${EXPECTED_PHASH[name] ? " and of the Python reference" : ""}`, async () => {
      const bytes = file();
      const full = await photonDecode(bytes);
      const f = Math.max(1, Math.floor(Math.min(full.width, full.height) / 160));
      const ours = await decodeVp8Reduced(vp8Payload(bytes), { targetPixels: Math.ceil(full.width / f) * Math.ceil(full.height / f) });
      expect(ours.outWidth).toBe(Math.ceil(full.width / f));
      const hash = phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight);
      const photonHash = phashFromRgba(full.rgba, full.width, full.height);
      console.log(`vp8 phash ${name} factor ${f}: ${hash} vs photon ${photonHash}${EXPECTED_PHASH[name] ? ` vs reference ${EXPECTED_PHASH[name]}` : ""}`);
      expect(hash).toBe(phashFromRgba(boxReduceRaw(full.width, full.height, full.rgba, f).rgba, ours.outWidth, ours.outHeight));
      expect(hammingDistance(hash, photonHash), `${hash} vs ${photonHash}`).toBeLessThanOrEqual(REDUCTION_SENSITIVE[name] ?? 2);
      if (EXPECTED_PHASH[name]) expect(hammingDistance(hash, EXPECTED_PHASH[name]), `${hash} vs ${EXPECTED_PHASH[name]}`).toBeLessThanOrEqual(2);
    });
  }
});

describe("robustness: any bytes give a ReducedImage or a LeanDecodeError", () => {
  const SMALL = ["cubes-q75.webp", "odd-17x9.webp", "partitions-2.webp", "simple-filter.webp", "gradient-q80.webp"].map((n) => vp8Payload(lean(n)));

  async function decodesOrRefuses(data: Uint8Array) {
    try {
      const out = await decodeVp8Reduced(data, { targetPixels: 4096 });
      expect(out.rgba.length).toBe(out.outWidth * out.outHeight * 4);
      expect(out.outWidth * out.outHeight).toBeLessThanOrEqual(4096);
    } catch (err) {
      if (!(err instanceof LeanDecodeError)) throw err;
    }
  }

  it("truncations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: SMALL.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true }), async (i, cut) => {
        await decodesOrRefuses(SMALL[i].slice(0, Math.floor(SMALL[i].length * cut)));
      }),
      { numRuns: 120 },
    );
  });

  it("byte flips", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: SMALL.length - 1 }),
        fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), value: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 8 }),
        async (i, flips) => {
          const data = SMALL[i].slice();
          // Bias towards the headers, where a flip changes sizes, modes and probabilities.
          for (const { at, value } of flips) data[Math.floor(at * at * data.length)] = value;
          await decodesOrRefuses(data);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("refuses what is not a VP8 key frame", async () => {
    const good = vp8Payload(lean("cubes-q75.webp"));
    const refuse = async (data: Uint8Array, message: RegExp) => {
      await expect(decodeVp8Reduced(data, HUGE)).rejects.toThrow(LeanDecodeError);
      await expect(decodeVp8Reduced(data, HUGE)).rejects.toThrow(message);
    };
    await refuse(new Uint8Array(0), /truncated/);
    await refuse(good.slice(0, 9), /truncated/);
    const inter = good.slice();
    inter[0] |= 1;
    await refuse(inter, /key frame/);
    const magic = good.slice();
    magic[4] = 0;
    await refuse(magic, /start code/);
    const zero = good.slice();
    zero[6] = zero[7] = 0;
    await refuse(zero, /zero/);
    await refuse(good.slice(0, 200), /truncated/);
    // 16383 x 16383 (268 MP) claimed by a 3 KB frame: refused after its first macroblock row.
    const huge = good.slice();
    huge[6] = huge[8] = 0xff;
    huge[7] = huge[9] = 0x3f;
    const t0 = performance.now();
    await expect(decodeVp8Reduced(huge, { targetPixels: 1_000_000 })).rejects.toThrow(/truncated/);
    expect(performance.now() - t0).toBeLessThan(5000);
    await refuse(good.slice(0, good.length - 300), /truncated/);
  });
});

describe("a large image", () => {
  it(`${LARGE} (24 MP, ${Math.round(lean(LARGE).length / 1024)} KB) decodes to ~1 MP with plausible pixels`, async () => {
    const payload = vp8Payload(lean(LARGE));
    const t0 = performance.now();
    const out = await decodeVp8Reduced(payload, { targetPixels: 1_000_000 });
    const ms = performance.now() - t0;
    console.log(`vp8 ${LARGE}: ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms (${((6000 * 4000) / 1000 / ms).toFixed(1)} MP/s)`);
    const f = reductionFactor(6000, 4000, 1_000_000);
    expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([6000, 4000, Math.ceil(6000 / f), Math.ceil(4000 / f)]);
    // generate.py: a 60 x 40 image with pixel (x, y) = (4x, 6y, 255 - 2x - 2y), upscaled 100x and blurred.
    for (const [sx, sy] of [[10, 10], [30, 20], [50, 30], [20, 35], [45, 5]]) {
      const ox = Math.floor(((sx + 0.5) * 100) / f);
      const oy = Math.floor(((sy + 0.5) * 100) / f);
      const o = (oy * out.outWidth + ox) * 4;
      const got = [...out.rgba.subarray(o, o + 4)];
      const want = [4 * sx, 6 * sy, 255 - 2 * sx - 2 * sy, 255];
      for (let c = 0; c < 4; c++) expect(Math.abs(got[c] - want[c]), `(${sx}, ${sy}) ${got} vs ${want}`).toBeLessThanOrEqual(12);
    }
  });
});
