import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BoxReducer, reductionFactor } from "../../../src/analysis/decoders/reduce";

/** The definition: each output pixel is the rounded mean of its block's pixels, per channel. */
function naiveReduce(rgba: Uint8Array, width: number, height: number, f: number) {
  const ow = Math.ceil(width / f);
  const oh = Math.ceil(height / f);
  const out = new Uint8Array(ow * oh * 4);
  for (let oy = 0; oy < oh; oy++)
    for (let ox = 0; ox < ow; ox++)
      for (let c = 0; c < 4; c++) {
        let sum = 0;
        let n = 0;
        for (let y = oy * f; y < Math.min(height, oy * f + f); y++)
          for (let x = ox * f; x < Math.min(width, ox * f + f); x++, n++) sum += rgba[(y * width + x) * 4 + c];
        out[(oy * ow + ox) * 4 + c] = Math.floor((sum + (n >>> 1)) / n);
      }
  return out;
}

const image = fc
  .record({ width: fc.integer({ min: 1, max: 40 }), height: fc.integer({ min: 1, max: 40 }), factor: fc.integer({ min: 1, max: 9 }), seed: fc.integer() })
  .map(({ width, height, factor, seed }) => {
    const rgba = new Uint8Array(width * height * 4);
    let s = seed | 0;
    for (let i = 0; i < rgba.length; i++) {
      s = (Math.imul(s, 1103515245) + 12345) | 0;
      rgba[i] = (s >>> 16) & 0xff;
    }
    return { width, height, factor, rgba };
  });

describe("BoxReducer", () => {
  it("averages blocks exactly as the definition, partial edge blocks included (rows in order)", () => {
    fc.assert(
      fc.property(image, ({ width, height, factor, rgba }) => {
        const reducer = new BoxReducer(width, height, factor);
        for (let y = 0; y < height; y++) reducer.addRow(y, rgba, y * width * 4);
        const out = reducer.finish();
        expect([out.outWidth, out.outHeight, out.width, out.height]).toEqual([Math.ceil(width / factor), Math.ceil(height / factor), width, height]);
        expect(out.rgba).toEqual(naiveReduce(rgba, width, height, factor));
      }),
      { numRuns: 150 },
    );
  });

  it("gives the same result when rows come in any order (interlaced images)", () => {
    fc.assert(
      fc.property(image, fc.integer(), ({ width, height, factor, rgba }, seed) => {
        const order = Array.from({ length: height }, (_, y) => y);
        for (let i = order.length - 1, s = seed | 0; i > 0; i--) {
          s = (Math.imul(s, 1103515245) + 12345) | 0;
          const j = (s >>> 8) % (i + 1);
          [order[i], order[j]] = [order[j], order[i]];
        }
        const reducer = new BoxReducer(width, height, factor);
        for (const y of order) reducer.addRowAnyOrder(y, rgba, y * width * 4);
        expect(reducer.finish().rgba).toEqual(naiveReduce(rgba, width, height, factor));
      }),
      { numRuns: 100 },
    );
  });

  it("averages only the rows it was given (a truncated image), and leaves missing rows transparent black", () => {
    const rgba = new Uint8Array(4 * 4 * 4).fill(200);
    const reducer = new BoxReducer(4, 4, 2);
    reducer.addRow(0, rgba, 0); // row 1 of the first block row never arrives
    const out = reducer.finish();
    expect([...out.rgba.subarray(0, 8)]).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    expect([...out.rgba.subarray(8)]).toEqual(new Array(8).fill(0));
  });

  it("refuses impossible geometry", () => {
    expect(() => new BoxReducer(0, 10, 1)).toThrow(RangeError);
    expect(() => new BoxReducer(10, 10, 1.5)).toThrow(RangeError);
  });
});

describe("reductionFactor", () => {
  it("is the smallest factor that fits the target", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 2_000_000 }), (w, h, target) => {
        fc.pre(w * h <= 40_000_000);
        const f = reductionFactor(w, h, target);
        expect(Math.ceil(w / f) * Math.ceil(h / f)).toBeLessThanOrEqual(target);
        if (f > 1) expect(Math.ceil(w / (f - 1)) * Math.ceil(h / (f - 1))).toBeGreaterThan(target);
      }),
      { numRuns: 300 },
    );
    expect(reductionFactor(1000, 1000, 1_000_000)).toBe(1);
    expect(reductionFactor(8000, 5000, 1_000_000)).toBe(7);
  });

  it("treats a target below one pixel as one pixel instead of looping", () => {
    expect(reductionFactor(300, 200, 0)).toBe(300);
    expect(reductionFactor(300, 200, Number.NaN)).toBe(300);
    expect(reductionFactor(1, 1, -5)).toBe(1);
    expect(() => reductionFactor(0, 10, 100)).toThrow(RangeError);
  });
});
