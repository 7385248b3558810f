/// <reference types="vite/client" />
// The lean GIF decoder against photon's full decode box-reduced with the same factor (exact: GIF is lossless,
// so only the reducer's rounding could differ), phash agreement, robustness and a 40 MP image.
import { describe, expect, it } from "vitest";
import { decodeGifReduced } from "../../../src/analysis/decoders/gif";
import { LeanDecodeError } from "../../../src/analysis/decoders/reduce";
import { hammingDistance, phashFromRgba } from "../../../src/analysis/phash";
import { EXPECTED_PHASH, fixture } from "../fixtures";
import { agreesWithPhotonOnDamage, compareWithPhoton, onlyLeanErrors, leanFixtures, photonDecode, photonFails } from "./support";

const lean = await leanFixtures("gif");
const leanFixture = lean.bytes;

const SMALL = lean.names.filter((n) => !n.startsWith("large")).sort();
const SHARED = ["anim.gif", "licorice.gif"]; // in test/fixtures/images, with Python reference hashes

const compare = (name: string, bytes: Uint8Array) => compareWithPhoton(decodeGifReduced, name, bytes);

describe("decodeGifReduced = photon's first frame, box-reduced", () => {
  for (const name of SMALL) {
    it(`${name}`, async () => {
      await compare(name, leanFixture(name));
    });
  }
  for (const name of SHARED) {
    it(`${name} (shared fixture): same pixels, phash within 2 of photon's and of the Python reference`, async () => {
      const bytes = fixture(name);
      const full = await compare(name, bytes);
      const ours = await decodeGifReduced(bytes, { targetPixels: Math.ceil((full.width * full.height) / 9) });
      const hash = phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight);
      expect(hammingDistance(hash, phashFromRgba(full.rgba, full.width, full.height))).toBeLessThanOrEqual(2);
      expect(hammingDistance(hash, EXPECTED_PHASH[name])).toBeLessThanOrEqual(2);
    });
  }

  it("phash of the reduced image is within 2 of photon's full decode for every fixture", async () => {
    for (const name of SMALL) {
      const bytes = leanFixture(name);
      const full = await photonDecode(bytes);
      // The analysis reduces to ~1 MP, always far above the hash's 32x32; a fixture reduced below that would be
      // upsampled by the Lanczos step, which is not what is being checked here. (A dithered 64-colour render of
      // wood.jpg at 241x161 hashes 4 bits apart after a 2x box reduction although its pixels match photon exactly:
      // low-contrast images sit near the median; the 1 MP production reduction is far gentler.)
      if (Math.min(full.width, full.height) < 128) continue;
      const ours = await decodeGifReduced(bytes, { targetPixels: Math.ceil((full.width * full.height) / 4) });
      const d = hammingDistance(phashFromRgba(ours.rgba, ours.outWidth, ours.outHeight), phashFromRgba(full.rgba, full.width, full.height));
      expect(d, name).toBeLessThanOrEqual(2);
    }
  });

  it("composes a frame smaller than the screen at its offset, transparent around it", async () => {
    const ours = await decodeGifReduced(leanFixture("offset-local.gif"), { targetPixels: 1e6 });
    expect([ours.outWidth, ours.outHeight]).toEqual([101, 77]);
    expect([...ours.rgba.subarray(0, 4)]).toEqual([0, 0, 0, 0]);
    const inside = ((9 + 20) * 101 + 17 + 30) * 4;
    expect(ours.rgba[inside + 3]).toBe(255);
  });

  it("fails where photon fails: data cut inside the LZW stream", async () => {
    const bytes = leanFixture("global.gif");
    const cut = bytes.subarray(0, bytes.length - 2000);
    expect(await photonFails(cut)).toBe(true);
    await expect(decodeGifReduced(cut, { targetPixels: 1e6 })).rejects.toBeInstanceOf(LeanDecodeError);
  });
});

describe("decodeGifReduced on damaged files, differentially against photon", () => {
  // Whenever photon decodes a damaged fixture, the lean decoder must decode it to the same pixels. (The other
  // way round is allowed: photon reads a little past what it needs and may fail where this decoder does not.)
  const sources = ["transparent.gif", "local-interlaced.gif", "clears.gif", "offset-local.gif", "band.gif", "short-palette.gif"].map(leanFixture);
  it("truncations and byte changes: photon's pixels whenever photon decodes", async () => {
    expect(await agreesWithPhotonOnDamage(decodeGifReduced, sources)).toBeGreaterThan(10);
  });
});

describe("decodeGifReduced robustness", () => {
  const sources = ["transparent.gif", "local-interlaced.gif", "clears.gif", "offset-local.gif"].map(leanFixture);
  it("truncations and byte flips: a ReducedImage or LeanDecodeError", async () => {
    await onlyLeanErrors(decodeGifReduced, sources);
  });
});

describe("decodeGifReduced on a 40 MP image", () => {
  it("8000x5000 reduces to about 1 MP with the drawn colours in place", async () => {
    const bytes = leanFixture("large.gif");
    const start = performance.now();
    const out = await decodeGifReduced(bytes, { targetPixels: 1_000_000 });
    const ms = performance.now() - start;
    console.log(`lean GIF 8000x5000 (${bytes.length} bytes) -> ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms`);
    expect([out.width, out.height]).toEqual([8000, 5000]);
    expect(out.outWidth * out.outHeight).toBeLessThanOrEqual(1_000_000);
    expect(out.outWidth * out.outHeight).toBeGreaterThan(750_000) // integer factor 7: 1143 x 715;
    const at = (x: number, y: number) => {
      const f = out.width / out.outWidth;
      const o = (Math.floor(y / f) * out.outWidth + Math.floor(x / f)) * 4;
      return [...out.rgba.subarray(o, o + 4)];
    };
    expect(at(100, 100)).toEqual([30, 60, 90, 255]);
    expect(at(2000, 1000)).toEqual([220, 200, 40, 255]);
    expect(at(5800, 3400)).toEqual([200, 40, 60, 255]);
    expect(at(7000, 4800)).toEqual([250, 250, 250, 255]);
  });

  it("6000x4000 interlaced (rows in four passes) reduces the same way", async () => {
    const bytes = leanFixture("large-interlaced.gif");
    const start = performance.now();
    const out = await decodeGifReduced(bytes, { targetPixels: 1_000_000 });
    const ms = performance.now() - start;
    console.log(`lean GIF 6000x4000 interlaced (${bytes.length} bytes) -> ${out.outWidth}x${out.outHeight} in ${ms.toFixed(0)} ms`);
    expect([out.width, out.height, out.outWidth, out.outHeight]).toEqual([6000, 4000, 1200, 800]);
    const at = (x: number, y: number) => {
      const o = (Math.floor(y / 5) * out.outWidth + Math.floor(x / 5)) * 4;
      return [...out.rgba.subarray(o, o + 4)];
    };
    expect(at(100, 100)).toEqual([30, 60, 90, 255]);
    expect(at(2000, 1000)).toEqual([220, 200, 40, 255]);
    expect(at(5800, 3400)).toEqual([200, 40, 60, 255]);
  });
});
