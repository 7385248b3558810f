/// <reference types="vite/client" />
// The lean JPEG decoder (1/8 DCT-domain scaling: block means from the DC coefficients) against photon's full
// decode box-reduced by 8. Fixtures: test/fixtures/images/lean/jpeg (generate.py) and the photos in
// test/fixtures/images.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeJpegReduced } from "../../../src/analysis/decoders/jpeg";
import { LeanDecodeError, reductionFactor, type ReducedImage } from "../../../src/analysis/decoders/reduce";
import { hammingDistance, phashFromRgba } from "../../../src/analysis/phash";
import { loadPhoton } from "../../../src/analysis/imaging";
import { EXPECTED_PHASH, fixture } from "../fixtures";
import { boxReduce, leanFixtures, photonDecode } from "./support";

const fixtures = await leanFixtures("jpeg");
const lean = fixtures.bytes;

const LEAN = fixtures.names.sort();
/** photon (jpeg-decoder) cannot decode 12-bit baseline; compared with its 8-bit twin instead. */
const PHOTON_DECODABLE = LEAN.filter((n) => n !== "enc-12bit.jpg");
const PHOTOS = ["cubes.jpg", "cubes-brightened.jpg", "cubes-recompressed.jpg", "cubes-resized.jpg", "gps.jpg", "wide.jpg", "wood.jpg"];
const ALL = [...PHOTON_DECODABLE.map((n) => ({ name: n, bytes: () => lean(n) })), ...PHOTOS.map((n) => ({ name: n, bytes: () => fixture(n) }))];
const HUGE = { targetPixels: 1e9 };

/** Mean absolute channel difference of two images of the same size. */
const channelDiffOf = (a: ReducedImage, b: ReducedImage) => a.rgba.reduce((sum, v, i) => sum + Math.abs(v - b.rgba[i]), 0) / a.rgba.length;

/** Offset of the first progressive AC scan's SOS marker (spectral selection start > 0). */
function acScanStart(d: Uint8Array): number {
  for (let p = 2; p + 4 < d.length; p++) {
    if (d[p] !== 0xff || d[p + 1] !== 0xda) continue;
    const ns = d[p + 4];
    if (d[p + 5 + 2 * ns] > 0) return p;
  }
  throw new Error("no AC scan");
}
const MEAN_BOUND: Record<string, number> = { "odd-37x5.jpg": 5 };

const boxReduceRaw = (width: number, height: number, rgba: Uint8Array, factor: number): ReducedImage => boxReduce({ width, height, rgba }, factor);

/** photon's full decode box-reduced by 8, then by `factor` more (what the lean decoder does after 1/8). */
async function reference(bytes: Uint8Array, factor = 1): Promise<ReducedImage> {
  const full = await photonDecode(bytes);
  const eighth = boxReduceRaw(full.width, full.height, full.rgba, 8);
  return factor === 1 ? eighth : boxReduceRaw(eighth.outWidth, eighth.outHeight, eighth.rgba, factor);
}

function diff(a: ReducedImage, b: ReducedImage) {
  expect([a.outWidth, a.outHeight]).toEqual([b.outWidth, b.outHeight]);
  let max = 0, sum = 0, n = 0;
  for (let i = 0; i < a.rgba.length; i++) {
    const d = Math.abs(a.rgba[i] - b.rgba[i]);
    if (d > max) max = d;
    sum += d;
    n++;
  }
  return { max, mean: sum / n };
}

describe("lean JPEG decoder: 1/8 block means vs photon's full decode box-reduced by 8", () => {
  for (const { name, bytes } of ALL) {
    it(`${name}`, async () => {
      const data = bytes();
      const ours = await decodeJpegReduced(data, HUGE);
      const full = await photonDecode(data);
      expect([ours.width, ours.height]).toEqual([full.width, full.height]);
      expect([ours.outWidth, ours.outHeight]).toEqual([Math.ceil(full.width / 8), Math.ceil(full.height / 8)]);
      expect(ours.rgba.length).toBe(ours.outWidth * ours.outHeight * 4);
      const d = diff(ours, await reference(data));
      console.log(`jpeg ${name} ${full.width}x${full.height}: mean ${d.mean.toFixed(3)} max ${d.max}`);
      // Measured: mean 0.03-0.5 for baseline (subsampled chroma from its low AC terms), up to 0.75 for
      // progressive 4:2:0 (chroma interpolated between block means); odd-37x5's blocks are mostly the
      // encoder's edge padding (mean 4.5).
      expect(d.mean).toBeLessThan(MEAN_BOUND[name] ?? 1);
      expect(d.max).toBeLessThanOrEqual(16);
    });
  }

  for (const name of ["odd-1001x667.jpg", "odd-1001x667-progressive.jpg", "wood-progressive-420.jpg", "enc-restart-420.jpg"]) {
    it(`${name}: reduced further when the 1/8 image exceeds targetPixels`, async () => {
      const data = lean(name);
      const full = await photonDecode(data);
      const w8 = Math.ceil(full.width / 8), h8 = Math.ceil(full.height / 8);
      for (const targetPixels of [Math.floor((w8 * h8) / 2), Math.floor((w8 * h8) / 7), 100]) {
        const ours = await decodeJpegReduced(data, { targetPixels });
        const factor = reductionFactor(w8, h8, targetPixels);
        expect(factor).toBeGreaterThan(1);
        expect(ours.outWidth * ours.outHeight).toBeLessThanOrEqual(targetPixels);
        expect([ours.width, ours.height]).toEqual([full.width, full.height]);
        const d = diff(ours, await reference(data, factor));
        console.log(`jpeg ${name} target ${targetPixels} (x${factor}): mean ${d.mean.toFixed(3)} max ${d.max}`);
        expect(d.mean).toBeLessThan(0.75);
        expect(d.max).toBeLessThanOrEqual(4);
      }
    });
  }

  /** Inserts `extra` bytes before every occurrence of the two-byte marker `marker` (FF xx). */
  function insertBefore(data: Uint8Array, marker: number, extra: number[]) {
    const out: number[] = [];
    for (let i = 0; i < data.length; i++) {
      if (data[i] === 0xff && data[i + 1] === marker) out.push(...extra);
      out.push(data[i]);
    }
    return Uint8Array.from(out);
  }

  it("fill bytes (FF FF ...) before markers, restart markers included, change nothing", async () => {
    for (const [name, markers] of [["cubes-420.jpg", [0xc4, 0xda, 0xd9]], ["enc-restart-420.jpg", [0xd0, 0xd1, 0xd7, 0xd9]], ["wood-progressive-420.jpg", [0xda, 0xc4]]] as const) {
      let data = lean(name);
      const plain = await decodeJpegReduced(data, HUGE);
      for (const m of markers) data = insertBefore(data, m, [0xff, 0xff, 0xff]);
      expect(diff(await decodeJpegReduced(data, HUGE), plain), name).toEqual({ max: 0, mean: 0 });
    }
  });

  /** An Adobe APP14 segment with this colour transform flag, right after SOI (and any other one removed). */
  function withAdobe(data: Uint8Array, transform: number) {
    const at = data.findIndex((b, i) => b === 0xff && data[i + 1] === 0xee);
    if (at >= 0) {
      data = data.slice();
      data[at + 2 + 11 + 2] = transform; // after the length: "Adobe", version, flags0, flags1
      return data;
    }
    const app14 = [0xff, 0xee, 0, 14, 0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, transform];
    return Uint8Array.from([0xff, 0xd8, ...app14, ...data.subarray(2)]);
  }

  /** Renames the components (SOF and SOS) to `ids`, and hides the JFIF APP0 segment if asked. */
  function withIds(data: Uint8Array, ids: number[], hideJfif: boolean) {
    data = data.slice();
    const old: number[] = [];
    for (let p = 2; p + 4 < data.length; ) {
      const marker = data[p + 1], length = (data[p + 2] << 8) | data[p + 3];
      if (marker === 0xe0 && hideJfif) data[p + 4] = 0x58; // "JFIF" -> "XFIF"
      if (marker === 0xc0 || marker === 0xc2) for (let i = 0; i < data[p + 9]; i++) old.push(data[p + 10 + 3 * i]), (data[p + 10 + 3 * i] = ids[i]);
      if (marker === 0xda) for (let i = 0; i < data[p + 4]; i++) data[p + 5 + 2 * i] = ids[old.indexOf(data[p + 5 + 2 * i])];
      if (marker === 0xda) break;
      p += 2 + length;
    }
    return data;
  }

  const cases: [string, string, Uint8Array][] = [
    ["cubes-444.jpg", "ids 1, 2, 3 with Adobe transform 0: YCbCr (ids first)", withAdobe(lean("cubes-444.jpg"), 0)],
    ["cubes-444.jpg", "ids 'R', 'G', 'B': RGB", withIds(lean("cubes-444.jpg"), [0x52, 0x47, 0x42], false)],
    ["cubes-444.jpg", "ids 4, 5, 6, no JFIF, Adobe transform 0: RGB", withAdobe(withIds(lean("cubes-444.jpg"), [4, 5, 6], true), 0)],
    ["cubes-444.jpg", "ids 4, 5, 6, no JFIF, Adobe transform 1: YCbCr", withAdobe(withIds(lean("cubes-444.jpg"), [4, 5, 6], true), 1)],
    ["cubes-cmyk.jpg", "4 components, Adobe transform 2: YCCK", withAdobe(lean("cubes-cmyk.jpg"), 2)],
    ["cubes-cmyk.jpg", "4 components, Adobe transform 0: CMYK", withAdobe(lean("cubes-cmyk.jpg"), 0)],
  ];
  for (const [name, what, data] of cases) {
    it(`colour transform, ${what}, as photon decides`, async () => {
      const d = diff(await decodeJpegReduced(data, HUGE), await reference(data));
      console.log(`jpeg ${name}, ${what}: mean ${d.mean.toFixed(3)} max ${d.max}`);
      expect(d.mean).toBeLessThan(1);
      // CMYK data read as YCCK converts to far out-of-range RGB, clamped per pixel before photon's average.
      expect(d.max).toBeLessThanOrEqual(what.includes("YCCK") ? 24 : 8);
    });
  }

  it("a targetPixels below one (or NaN) gives a 1x1 image", async () => {
    for (const targetPixels of [0, -5, Number.NaN, 0.5]) {
      const out = await decodeJpegReduced(lean("cubes-420.jpg"), { targetPixels });
      expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([480, 320, 1, 1]);
    }
  });

  it("12-bit samples are scaled to 8 bits (same picture as the 8-bit twin)", async () => {
    const twelve = await decodeJpegReduced(lean("enc-12bit.jpg"), HUGE);
    const eight = await decodeJpegReduced(lean("enc-12.jpg"), HUGE);
    const d = diff(twelve, eight);
    console.log(`jpeg 12-bit vs 8-bit: mean ${d.mean.toFixed(3)} max ${d.max}`);
    expect(d.mean).toBeLessThan(1);
    expect(d.max).toBeLessThanOrEqual(4);
  });

  it("restart markers and non-interleaved scans: the same coefficients decode to the same image", async () => {
    // generate.py encodes one picture with the same coefficients in three bitstream layouts.
    const plain = await decodeJpegReduced(lean("enc-420.jpg"), HUGE);
    expect(diff(await decodeJpegReduced(lean("enc-restart-420.jpg"), HUGE), plain)).toEqual({ max: 0, mean: 0 });
    expect(diff(await decodeJpegReduced(lean("enc-noninterleaved-420.jpg"), HUGE), plain)).toEqual({ max: 0, mean: 0 });
  });
});

describe("lean JPEG decoder: phash", () => {
  // The real use: photos of several MP, where the 1/8 image is hundreds of pixels a side. The fixture photos
  // upscaled x8 by photon and re-encoded stand in for them; their phash must stay that of the original.
  for (const name of ["cubes.jpg", "wood.jpg", "wide.jpg", "gps.jpg"]) {
    it(`${name} upscaled x8: phash within 2 of Python's for the original and of photon's full decode`, async () => {
      const photon = await loadPhoton();
      const small = photon.PhotonImage.new_from_byteslice(fixture(name));
      let jpeg: Uint8Array;
      try {
        const big = photon.resize(small, small.get_width() * 8, small.get_height() * 8, photon.SamplingFilter.Lanczos3);
        try {
          jpeg = big.get_bytes_jpeg(90);
        } finally {
          big.free();
        }
      } finally {
        small.free();
      }
      const started = Date.now();
      const ours = await decodeJpegReduced(jpeg, { targetPixels: 1_000_000 });
      const ms = Date.now() - started;
      const full = await photonDecode(jpeg);
      const a = phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight);
      const b = phashFromRgba(full.rgba, full.width, full.height);
      const expected = EXPECTED_PHASH[name];
      console.log(`jpeg ${name} x8 ${full.width}x${full.height} (${ms} ms): phash ${a}, photon ${b} (${hammingDistance(a, b)}), Python ${expected} (${hammingDistance(a, expected)})`);
      // Upscaling itself moves the hash of wood.jpg and gps.jpg 4-6 bits from Python's for the original,
      // photon's full decode of the upscaled file included, so only photon's is a fair reference.
      expect(hammingDistance(a, b)).toBeLessThanOrEqual(2);
    }, 60_000);
  }

  // Small fixtures give 1/8 images of a few dozen pixels, from which Lanczos to 32x32 is coarser than from
  // the full image: logged, with only a loose bound (the lean path is for images of several MP).
  for (const { name, bytes } of ALL) {
    it(`${name}: phash close to photon's full decode`, async () => {
      const data = bytes();
      const ours = await decodeJpegReduced(data, HUGE);
      const full = await photonDecode(data);
      const a = phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight);
      const b = phashFromRgba(full.rgba, full.width, full.height);
      const expected = EXPECTED_PHASH[name];
      console.log(`jpeg ${name}: phash ${a} vs photon ${b}: ${hammingDistance(a, b)}${expected ? `, vs Python ${expected}: ${hammingDistance(a, expected)}` : ""}`);
      // A pure gradient has near-zero DCT terms, so its hash bits flip at the slightest change.
      if (Math.min(ours.outWidth, ours.outHeight) >= 16 && !name.startsWith("gradient")) expect(hammingDistance(a, b)).toBeLessThanOrEqual(12);
      if (Math.min(ours.outWidth, ours.outHeight) >= 32) {
        // Measured: 0-6 (wood-progressive-420 at 50x50: 6, odd-1001x667 at 126x84: 4).
        expect(hammingDistance(a, b)).toBeLessThanOrEqual(6);
        // The fixture photos in expected-phash.json giving at least 32 px: cubes*.jpg (0), wood.jpg (50x50: 4).
        if (expected) expect(hammingDistance(a, expected)).toBeLessThanOrEqual(4);
      }
    });
  }
});

describe("lean JPEG decoder: unsupported and broken input", () => {
  /** The fixture with its SOF0 marker byte replaced (a different coding process, same segment layout). */
  function withSof(marker: number) {
    const data = lean("cubes-420.jpg");
    const at = data.findIndex((b, i) => b === 0xff && data[i + 1] === 0xc0);
    data[at + 1] = marker;
    return data;
  }

  for (const [marker, what] of [[0xc3, /lossless/], [0xc9, /arithmetic/], [0xca, /arithmetic/], [0xc5, /hierarchical/]] as const) {
    it(`SOF ${marker.toString(16)} is refused as unsupported`, async () => {
      await expect(decodeJpegReduced(withSof(marker), HUGE)).rejects.toThrow(what);
      await expect(decodeJpegReduced(withSof(marker), HUGE)).rejects.toBeInstanceOf(LeanDecodeError);
    });
  }

  it("refuses what is not a JPEG", async () => {
    for (const bytes of [new Uint8Array(0), Uint8Array.of(0xff, 0xd8), Uint8Array.of(0xff, 0xd8, 0xff, 0xd9), fixture("gps.png")]) {
      await expect(decodeJpegReduced(bytes, HUGE)).rejects.toBeInstanceOf(LeanDecodeError);
    }
  });

  it("a file cut inside the image data is refused (as photon and Pillow do); a progressive one cut in its AC scans is not", async () => {
    const data = lean("cubes-444.jpg");
    await expect(decodeJpegReduced(data.subarray(0, Math.floor(data.length * 0.6)), HUGE)).rejects.toThrow(new LeanDecodeError("corrupt JPEG: image data cut short"));
    // A few bytes short of the end (a missing EOI and the last bits): decoded, as libjpeg does.
    const whole = await decodeJpegReduced(data, HUGE);
    const nearlyWhole = await decodeJpegReduced(data.subarray(0, data.length - 4), HUGE);
    expect(channelDiffOf(nearlyWhole, whole)).toBeLessThan(1);

    // Cut in the first AC scan: the DC first scan is complete (its DC refinement, the last bit, comes later).
    const progressive = lean("wood-progressive-420.jpg");
    const full = await decodeJpegReduced(progressive, HUGE);
    const cutInAc = await decodeJpegReduced(progressive.subarray(0, acScanStart(progressive) + 40), HUGE);
    expect(channelDiffOf(cutInAc, full)).toBeLessThan(2);
  });

  it("a header claiming a huge image over little data: refused above the limit, else quickly as cut short", async () => {
    const withSize = (w: number, h: number) => {
      const data = lean("cubes-420.jpg");
      const at = data.findIndex((b, i) => b === 0xff && data[i + 1] === 0xc0);
      data.set([h >> 8, h & 255, w >> 8, w & 255], at + 5);
      return data;
    };
    await expect(decodeJpegReduced(withSize(65535, 65535), HUGE)).rejects.toThrow(/too large/);
    const started = Date.now();
    await expect(decodeJpegReduced(withSize(7000, 5000), { targetPixels: 1_000_000 })).rejects.toThrow(/cut short/);
    console.log(`jpeg 7000x5000 header over 14 KB of data: ${Date.now() - started} ms`);
    expect(Date.now() - started).toBeLessThan(5000);
  });


  it("a file of many scans over no data is refused quickly (bounded work per file, not per scan)", async () => {
    for (const name of ["cubes-420.jpg", "wood-progressive-420.jpg"]) {
      const data = lean(name);
      const sos = data.findIndex((b, i) => b === 0xff && data[i + 1] === 0xda);
      const header = data.subarray(sos, sos + 2 + ((data[sos + 2] << 8) | data[sos + 3]));
      const scans = new Uint8Array(sos + header.length * 20000);
      scans.set(data.subarray(0, sos));
      for (let i = 0; i < 20000; i++) scans.set(header, sos + i * header.length);
      const started = Date.now();
      await expect(decodeJpegReduced(scans, HUGE)).rejects.toThrow(/too many scans/);
      console.log(`jpeg ${name} with 20000 empty scans: refused in ${Date.now() - started} ms`);
      expect(Date.now() - started).toBeLessThan(3000);
    }
  });

  const corpus = ["cubes-420.jpg", "wood-progressive-420.jpg", "enc-restart-420.jpg", "enc-noninterleaved-420.jpg", "cubes-cmyk.jpg", "odd-37x5.jpg", "enc-12bit.jpg"].map(lean);

  /** Outcomes by kind ("decoded" or the refusal message), to show the properties exercise both paths. */
  const outcomes = new Map<string, number>();

  async function decodesOrRefuses(bytes: Uint8Array) {
    let outcome = "decoded";
    try {
      const out = await decodeJpegReduced(bytes, { targetPixels: 500 });
      expect(out.rgba.length).toBe(out.outWidth * out.outHeight * 4);
    } catch (err) {
      if (!(err instanceof LeanDecodeError)) throw err;
      outcome = err.message.replace(/\d+/g, "N");
    }
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }

  function reportOutcomes(what: string) {
    console.log(`jpeg ${what}: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(outcomes.get("decoded")).toBeGreaterThan(0);
    expect(outcomes.size).toBeGreaterThan(1);
    outcomes.clear();
  }

  it("truncations: a ReducedImage or LeanDecodeError, nothing else", async () => {
    await fc.assert(
      // Integers, not fc.double in [0, 1]: fast-check draws doubles uniformly over their bit patterns, so
      // nearly all would be tiny and every cut would land at byte 0.
      fc.asyncProperty(fc.integer({ min: 0, max: corpus.length - 1 }), fc.integer({ min: 0, max: 1 << 20 }), async (i, at) => {
        await decodesOrRefuses(corpus[i].slice(0, Math.floor((corpus[i].length * at) / (1 << 20))));
      }),
      { numRuns: 100 },
    );
    reportOutcomes("truncations");
  });

  it("byte flips and overwrites: a ReducedImage or LeanDecodeError, nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: corpus.length - 1 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1 << 20 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        async (i, edits) => {
          const bytes = corpus[i].slice();
          // Half the edits land in the first 600 bytes, where the headers are.
          for (const [at, value] of edits) bytes[Math.floor(((value & 1 ? Math.min(600, bytes.length) : bytes.length) * at) / (1 << 20)) % bytes.length] = value;
          await decodesOrRefuses(bytes);
        },
      ),
      { numRuns: 150 },
    );
    reportOutcomes("byte edits");
  });
});

describe("lean JPEG decoder: large images", () => {
  /** Smooth synthetic picture with texture, encoded by photon. */
  async function encode(width: number, height: number, noise: number) {
    const photon = await loadPhoton();
    const rgba = new Uint8Array(width * height * 4);
    let seed = 12345;
    for (let y = 0; y < height; y++) {
      for (let x = 0, o = y * width * 4; x < width; x++, o += 4) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        const n = noise ? ((seed >>> 16) % (2 * noise + 1)) - noise : 0;
        rgba[o] = Math.max(0, Math.min(255, ((x * 255) / width + n) | 0));
        rgba[o + 1] = Math.max(0, Math.min(255, ((y * 255) / height + n) | 0));
        rgba[o + 2] = Math.max(0, Math.min(255, 128 + 100 * Math.sin(x / 97) * Math.cos(y / 83) + n) | 0);
        rgba[o + 3] = 255;
      }
    }
    const img = new photon.PhotonImage(rgba, width, height);
    try {
      return { rgba, jpeg: img.get_bytes_jpeg(90) };
    } finally {
      img.free();
    }
  }

  it("24 MP (6000x4000) decodes to its 750x500 block means", async () => {
    const { rgba, jpeg } = await encode(6000, 4000, 0);
    const started = Date.now();
    const out = await decodeJpegReduced(jpeg, { targetPixels: 1_000_000 });
    console.log(`jpeg 6000x4000 smooth (${(jpeg.length / 1e6).toFixed(1)} MB): ${Date.now() - started} ms`);
    expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([6000, 4000, 750, 500]);
    const d = diff(out, boxReduceRaw(6000, 4000, rgba, 8));
    console.log(`jpeg 6000x4000 vs source block means: mean ${d.mean.toFixed(3)} max ${d.max}`);
    expect(d.mean).toBeLessThan(2);
  }, 120_000);

  it("12 MP photo-like (noisy) JPEG: speed, and a further reduction to targetPixels", async () => {
    const { rgba, jpeg } = await encode(4000, 3000, 24);
    const started = Date.now();
    const out = await decodeJpegReduced(jpeg, { targetPixels: 100_000 });
    console.log(`jpeg 4000x3000 noisy (${(jpeg.length / 1e6).toFixed(1)} MB): ${Date.now() - started} ms`);
    const factor = reductionFactor(500, 375, 100_000);
    expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([4000, 3000, Math.ceil(500 / factor), Math.ceil(375 / factor)]);
    const eighth = boxReduceRaw(4000, 3000, rgba, 8);
    const d = diff(out, boxReduceRaw(500, 375, eighth.rgba, factor));
    console.log(`jpeg 4000x3000 vs source block means: mean ${d.mean.toFixed(3)} max ${d.max}`);
    expect(d.mean).toBeLessThan(2);
  }, 120_000);
});
