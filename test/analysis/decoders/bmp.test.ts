/// <reference types="vite/client" />
// The lean BMP decoder against photon's full decode box-reduced with the same factor (exact: BMP is lossless),
// phash agreement, robustness and a 15 MP image built in memory.
import { describe, expect, it } from "vitest";
import { decodeBmpReduced } from "../../../src/analysis/decoders/bmp";
import { LeanDecodeError } from "../../../src/analysis/decoders/reduce";
import { hammingDistance, phashFromRgba } from "../../../src/analysis/phash";
import { EXPECTED_PHASH, fixture } from "../fixtures";
import { agreesWithPhotonOnDamage, compareWithPhoton, onlyLeanErrors, leanFixtures, photonDecode, photonFails } from "./support";

const lean = await leanFixtures("bmp");
const leanFixture = lean.bytes;

const SMALL = lean.names.sort();
const SHARED = ["gradient.bmp"]; // in test/fixtures/images, with a Python reference hash

const compare = (name: string, bytes: Uint8Array) => compareWithPhoton(decodeBmpReduced, name, bytes);

describe("decodeBmpReduced = photon's decode, box-reduced", () => {
  for (const name of SMALL) {
    it(`${name}`, async () => {
      await compare(name, leanFixture(name));
    });
  }
  for (const name of SHARED) {
    it(`${name} (shared fixture): same pixels; at factor 1 the same phash as photon and the Python reference`, async () => {
      const bytes = fixture(name);
      const full = await compare(name, bytes);
      const ours = await decodeBmpReduced(bytes, { targetPixels: full.width * full.height });
      const hash = phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight);
      expect(hash).toBe(phashFromRgba(full.rgba, full.width, full.height));
      expect(hammingDistance(hash, EXPECTED_PHASH[name])).toBeLessThanOrEqual(2);
      // Not asserted: a linear ramp has almost no energy outside the DCT's first row and column, so its other
      // 50-odd bits are the signs of rounding noise; a 2x box reduction flips ~20 of them (22, the same as
      // Python imagehash on PIL's Image.reduce(2) of the same file).
      const half = await decodeBmpReduced(bytes, { targetPixels: Math.ceil((full.width * full.height) / 4) });
      console.log(`${name}: phash distance after a 2x reduction ${hammingDistance(phashFromRgba(half.rgba, half.outWidth, half.outHeight), hash)}`);
    });
  }

  it("phash of the reduced photo is within 2 of photon's full decode", async () => {
    // The analysis reduces to ~1 MP, far above the hash's 32x32; tiny fixtures reduced further would be
    // upsampled by the Lanczos step, which is not what is checked here. (pil-8bit.bmp, a dithered render of the
    // low-contrast wood.jpg at 131x87, lands 6 bits away after a 2x reduction although its pixels are exact.)
    const names = ["photo.bmp"];
    for (const name of names) {
      const bytes = leanFixture(name);
      const full = await photonDecode(bytes);
      const ours = await decodeBmpReduced(bytes, { targetPixels: Math.ceil((full.width * full.height) / 4) });
      const d = hammingDistance(phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight), phashFromRgba(full.rgba, full.width, full.height));
      expect(d, name).toBeLessThanOrEqual(2);
    }
  });

  it("fails where photon fails: rows cut short, RLE without its end of line", async () => {
    const bytes = leanFixture("pil-24bit.bmp");
    const cut = bytes.subarray(0, bytes.length - 1); // only the last row's padding byte is missing
    expect(await photonFails(cut)).toBe(true);
    await expect(decodeBmpReduced(cut, { targetPixels: 1e6 })).rejects.toBeInstanceOf(LeanDecodeError);
    const rle = leanFixture("rle8.bmp");
    const noEnd = rle.subarray(0, rle.length - 4); // drops the last end of line and the end of bitmap
    expect(await photonFails(noEnd)).toBe(true);
    await expect(decodeBmpReduced(noEnd, { targetPixels: 1e6 })).rejects.toBeInstanceOf(LeanDecodeError);
  });
});

describe("decodeBmpReduced on damaged files, differentially against photon", () => {
  // Whenever photon decodes a damaged fixture, the lean decoder must decode it to the same pixels. (The other
  // way round is allowed: photon reads a little past what it needs and may fail where this decoder does not.)
  const sources = ["rle8.bmp", "rle4.bmp", "rle8-delta.bmp", "v5-32bit-alpha.bmp", "os2-4bit.bmp", "16bit-565.bmp", "pil-1bit.bmp", "32bit-101010.bmp"].map(leanFixture);
  it("truncations and byte changes: photon's pixels whenever photon decodes", async () => {
    expect(await agreesWithPhotonOnDamage(decodeBmpReduced, sources)).toBeGreaterThan(10);
  });
});

describe("decodeBmpReduced robustness", () => {
  const sources = ["rle8.bmp", "rle4.bmp", "rle8-delta.bmp", "v5-32bit-alpha.bmp", "os2-4bit.bmp", "16bit-565.bmp"].map(leanFixture);
  it("truncations and byte flips (biased to the headers): a ReducedImage or LeanDecodeError", async () => {
    await onlyLeanErrors(decodeBmpReduced, sources, 70);
  });
});

/** A bottom-up 8-bit BMP: four colour bands by row, a diagonal split by column. */
function largeBmp(width: number, height: number): Uint8Array {
  const stride = (width + 3) & ~3;
  const offset = 14 + 40 + 4 * 256;
  const bytes = new Uint8Array(offset + stride * height);
  const v = new DataView(bytes.buffer);
  bytes.set([0x42, 0x4d]);
  v.setUint32(2, bytes.length, true);
  v.setUint32(10, offset, true);
  v.setUint32(14, 40, true);
  v.setInt32(18, width, true);
  v.setInt32(22, height, true);
  v.setUint16(26, 1, true);
  v.setUint16(28, 8, true);
  const colours = [[30, 60, 90], [220, 200, 40], [200, 40, 60], [250, 250, 250]];
  colours.forEach(([r, g, b], i) => bytes.set([b, g, r, 0], 54 + 4 * i));
  for (let fileRow = 0; fileRow < height; fileRow++) {
    const y = height - 1 - fileRow;
    const band = Math.floor((y * 2) / height);
    const p = offset + fileRow * stride;
    const split = Math.floor((y * width) / height);
    bytes.fill(band, p, p + split);
    bytes.fill(band + 2, p + split, p + width);
  }
  return bytes;
}

describe("decodeBmpReduced on a large image", () => {
  it("6000x2500 8-bit (15 MB) reduces to about 1 MP with the bands in place", async () => {
    const bytes = largeBmp(6000, 2500);
    const start = performance.now();
    const out = await decodeBmpReduced(bytes, { targetPixels: 1_000_000 });
    const ms = performance.now() - start;
    console.log(`lean BMP 6000x2500 8-bit (${bytes.length} bytes) -> ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms`);
    expect([out.width, out.height]).toEqual([6000, 2500]);
    expect(out.outWidth * out.outHeight).toBeLessThanOrEqual(1_000_000);
    expect(out.outWidth * out.outHeight).toBeGreaterThan(750_000);
    const at = (x: number, y: number) => {
      const f = out.width / out.outWidth;
      const o = (Math.floor(y / f) * out.outWidth + Math.floor(x / f)) * 4;
      return [...out.rgba.subarray(o, o + 4)];
    };
    expect(at(100, 1000)).toEqual([30, 60, 90, 255]); // top band, left of the diagonal
    expect(at(5000, 100)).toEqual([200, 40, 60, 255]); // top band, right
    expect(at(100, 2400)).toEqual([220, 200, 40, 255]); // bottom band, left
    expect(at(5990, 1300)).toEqual([250, 250, 250, 255]); // bottom band, right
  });

  it("8000x5000 RLE8 (rows bottom-up, runs and ends of line) reduces to about 1 MP", async () => {
    // Each row: runs of 250 pixels cycling through the palette, shifted by the band; then end of line.
    const width = 8000;
    const height = 5000;
    const offset = 14 + 40 + 16;
    const rowBytes = (width / 250) * 2 + 2;
    const bytes = new Uint8Array(offset + rowBytes * height + 2);
    const v = new DataView(bytes.buffer);
    bytes.set([0x42, 0x4d]);
    v.setUint32(10, offset, true);
    v.setUint32(14, 40, true);
    v.setInt32(18, width, true);
    v.setInt32(22, height, true);
    v.setUint16(26, 1, true);
    v.setUint16(28, 8, true);
    v.setUint32(30, 1, true); // BI_RLE8
    v.setUint32(46, 4, true); // 4 colours
    [[30, 60, 90], [220, 200, 40], [200, 40, 60], [250, 250, 250]].forEach(([r, g, b], i) => bytes.set([b, g, r, 0], 54 + 4 * i));
    let p = offset;
    for (let fileRow = 0; fileRow < height; fileRow++) {
      const band = (height - 1 - fileRow) < 2500 ? 0 : 2;
      for (let run = 0; run < width / 250; run++) bytes.set([250, band + (run & 1)], (p += 2) - 2);
      bytes.set([0, 0], (p += 2) - 2);
    }
    bytes.set([0, 1], p);
    const start = performance.now();
    const out = await decodeBmpReduced(bytes, { targetPixels: 1_000_000 });
    const ms = performance.now() - start;
    console.log(`lean BMP 8000x5000 RLE8 (${bytes.length} bytes) -> ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms`);
    expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([8000, 5000, 1143, 715]);
    const at = (x: number, y: number) => {
      const o = (Math.floor(y / 7) * out.outWidth + Math.floor(x / 7)) * 4;
      return [...out.rgba.subarray(o, o + 4)];
    };
    expect(at(100, 100)).toEqual([30, 60, 90, 255]); // top half, first run
    expect(at(300, 100)).toEqual([220, 200, 40, 255]); // top half, second run
    expect(at(100, 4000)).toEqual([200, 40, 60, 255]); // bottom half
    expect(at(400, 4000)).toEqual([250, 250, 250, 255]);
  });
});
