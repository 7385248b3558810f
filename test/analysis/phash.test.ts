import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/imaging";
import { bitsToHex, dct2TopLeft, hammingDistance, isPhash, phashFromLuma, resizeLanczos, toLuma601 } from "../../src/analysis/phash";
import { base64ToBytes, EXPECTED_PHASH, EXPECTED_RESIZED32, fixture, FIXTURE_NAMES } from "./fixtures";

const decodeOptions = { orientation: null, thumbnailMaxSide: 320, thumbnailJpegQuality: 80, nsfwSize: 0 };
const LOSSLESS = /\.(png|gif|bmp)$/;

async function decoded(name: string) {
  return decodeImage(fixture(name), decodeOptions);
}

/** The same 64 bits read in another order: what a wrong implementation would print. */
function reorder(hex: string, order: (i: number) => number): string {
  const bits = [...hex].flatMap((d) => parseInt(d, 16).toString(2).padStart(4, "0").split("").map(Number));
  const out = bits.map((_, i) => bits[order(i)]);
  let s = "";
  for (let i = 0; i < 64; i += 4) s += (out[i] * 8 + out[i + 1] * 4 + out[i + 2] * 2 + out[i + 3]).toString(16);
  return s;
}
const reversed = (hex: string) => reorder(hex, (i) => 63 - i); // LSB first
const transposed = (hex: string) => reorder(hex, (i) => (i % 8) * 8 + Math.floor(i / 8)); // column-major

describe("phash = Python imagehash.phash (reference_phash.py on the committed fixtures)", () => {
  it("has a reference hash for every fixture", () => {
    expect(FIXTURE_NAMES.length).toBeGreaterThanOrEqual(15);
    for (const name of FIXTURE_NAMES) expect(EXPECTED_PHASH[name], name).toMatch(/^[0-9a-f]{16}$/);
  });

  for (const name of FIXTURE_NAMES) {
    it(`${name}: within Hamming distance 2 of the reference, and far from wrong bit orders`, async () => {
      const image = await decoded(name);
      const hash = phashFromLuma(image.luma, image.lumaWidth, image.lumaHeight);
      const expected = EXPECTED_PHASH[name];
      expect(isPhash(hash)).toBe(true);
      expect(hammingDistance(hash, expected), `${hash} vs ${expected}`).toBeLessThanOrEqual(2);
      // A reversed (LSB-first) or transposed (column-major) hash must not pass the same check, except
      // where the picture itself is symmetric about its diagonal (tiny.png), so transposing changes nothing.
      expect(hammingDistance(reversed(hash), expected)).toBeGreaterThan(2);
      const diagonalSymmetric = hammingDistance(transposed(expected), expected) <= 2;
      if (!diagonalSymmetric) expect(hammingDistance(transposed(hash), expected)).toBeGreaterThan(2);
    });
  }

  it("wrong bit orders are caught on nearly every fixture", () => {
    const names = Object.keys(EXPECTED_PHASH);
    const caught = names.filter((n) => hammingDistance(transposed(EXPECTED_PHASH[n]), EXPECTED_PHASH[n]) > 2);
    expect(caught.length).toBeGreaterThanOrEqual(names.length - 1);
  });

  for (const name of FIXTURE_NAMES.filter((n) => LOSSLESS.test(n))) {
    it(`${name}: lossless, so the 32x32 Lanczos image equals PIL's byte for byte and the hash exactly`, async () => {
      const image = await decoded(name);
      const ours = resizeLanczos(image.luma, image.width, image.height, 32, 32);
      expect([...ours]).toEqual([...base64ToBytes(EXPECTED_RESIZED32[name])]);
      expect(phashFromLuma(image.luma, image.lumaWidth, image.lumaHeight)).toBe(EXPECTED_PHASH[name]);
    });
  }

  for (const name of FIXTURE_NAMES.filter((n) => !LOSSLESS.test(n))) {
    it(`${name}: lossy, decoders differ by at most a level or two after the resize`, async () => {
      const image = await decoded(name);
      const ours = resizeLanczos(image.luma, image.width, image.height, 32, 32);
      const pil = base64ToBytes(EXPECTED_RESIZED32[name]);
      const maxDiff = Math.max(...[...ours].map((v, i) => Math.abs(v - pil[i])));
      expect(maxDiff).toBeLessThanOrEqual(3);
    });
  }
});

describe("phash building blocks", () => {
  it("converts to luma with PIL's rounding (ITU-R 601-2, 16-bit fixed point)", () => {
    const rgba = Uint8Array.from([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 0, 10, 20, 30, 255, 128, 128, 128, 7]);
    // PIL: Image.new("RGB", ...).putdata([...]).convert("L") gives 76, 150, 29, 255, 18, 128 (alpha ignored).
    expect([...toLuma601(rgba, 6, 1)]).toEqual([76, 150, 29, 255, 18, 128]);
  });

  it("returns the image unchanged when it is already 32x32, as PIL does", () => {
    const src = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) % 256);
    expect([...resizeLanczos(src, 32, 32, 32, 32)]).toEqual([...src]);
  });

  it("a flat image hashes to 8000000000000000 (only DC is above the median of zeros)", () => {
    expect(bitsToHex(dct2TopLeft(new Uint8Array(1024).fill(200)))).toBe("8000000000000000");
  });

  it("sets bit 63 (the first hex digit's top bit) from the DC coefficient: MSB first, row-major", () => {
    const coefficients = new Float64Array(64).fill(-1);
    coefficients[0] = 5; // DC -> the most significant bit
    coefficients[9] = 5; // row 1, column 1 -> bit index 9
    expect(bitsToHex(coefficients)).toBe("8040000000000000");
  });

  it("hamming distance counts differing bits", () => {
    expect(hammingDistance("0000000000000000", "ffffffffffffffff")).toBe(64);
    expect(hammingDistance("8000000000000001", "0000000000000000")).toBe(2);
    expect(hammingDistance("c53f706a9e352968", "c53f706a9e352968")).toBe(0);
  });
});
