import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inspectImage, parseImageHeader } from "../../src/analysis/header";
import { ANALYSIS } from "../../src/config";
import { fixture } from "./fixtures";
import { avifHeader, bmpHeader, gifHeader, jpegHeader, pngHeader, webpExtended, webpLossless, webpLossy } from "./images";

const bytesOf = (s: string) => [...new TextEncoder().encode(s)];
const limits = { maxPixels: ANALYSIS.maxPixels, maxFrames: ANALYSIS.maxFrames };

describe("parseImageHeader reads sizes without decoding", () => {
  it.each([
    ["PNG", pngHeader(640, 480), { format: "png", width: 640, height: 480, frames: 1 }],
    ["APNG (acTL)", pngHeader(64, 32, 12), { format: "png", width: 64, height: 32, frames: 12 }],
    ["JPEG baseline", jpegHeader(1024, 768), { format: "jpeg", width: 1024, height: 768, frames: 1 }],
    ["JPEG progressive", jpegHeader(300, 200, 0xc2), { format: "jpeg", width: 300, height: 200, frames: 1 }],
    ["GIF", gifHeader(50, 40, 1), { format: "gif", width: 50, height: 40, frames: 1 }],
    ["animated GIF", gifHeader(50, 40, 7), { format: "gif", width: 50, height: 40, frames: 7 }],
    ["WebP lossy", webpLossy(800, 600), { format: "webp", width: 800, height: 600, frames: 1 }],
    ["WebP lossless", webpLossless(123, 45), { format: "webp", width: 123, height: 45, frames: 1 }],
    ["WebP extended, animated", webpExtended(400, 300, 5), { format: "webp", width: 400, height: 300, frames: 5 }],
    ["BMP", bmpHeader(77, 66), { format: "bmp", width: 77, height: 66, frames: 1 }],
    ["BMP top-down", bmpHeader(77, -66), { format: "bmp", width: 77, height: 66, frames: 1 }],
    ["AVIF", avifHeader(4000, 3000), { format: "avif", width: 4000, height: 3000, frames: 1 }],
  ])("%s", (_name, bytes, expected) => {
    expect(parseImageHeader(bytes)).toMatchObject({ ok: true, ...expected });
  });

  it.each([
    ["cubes.jpg", "jpeg", 480, 320, 1],
    ["wood.jpg", "jpeg", 400, 400, 1],
    ["truchet.png", "png", 360, 360, 1],
    ["cubes.webp", "webp", 480, 320, 1],
    ["licorice.gif", "gif", 300, 300, 1],
    ["anim.gif", "gif", 120, 90, 3],
    ["gradient.bmp", "bmp", 128, 96, 1],
    ["gps.jpg", "jpeg", 160, 120, 1],
    ["gps.webp", "webp", 160, 120, 1],
  ])("real file %s", (name, format, width, height, frames) => {
    expect(parseImageHeader(fixture(name))).toMatchObject({ ok: true, format, width, height, frames });
  });

  it("names what it cannot read", () => {
    expect(parseImageHeader(new TextEncoder().encode("<html>hi</html>"))).toEqual({ ok: false, code: "unreadable", reason: "unrecognised image format" });
    expect(parseImageHeader(new Uint8Array(0))).toEqual({ ok: false, code: "unreadable", reason: "unrecognised image format" });
    expect(parseImageHeader(pngHeader(10, 10).slice(0, 20))).toEqual({ ok: false, code: "unreadable", reason: "truncated image header" });
    expect(parseImageHeader(jpegHeader(10, 10).slice(0, 24))).toEqual({ ok: false, code: "unreadable", reason: "truncated image header" });
    expect(parseImageHeader(jpegHeader(10, 0))).toMatchObject({ ok: false, reason: expect.stringContaining("DNL") });
  });
});

describe("inspectImage refuses bombs before decode", () => {
  it("refuses a PNG claiming 100000 x 100000 pixels (a 10-gigapixel bomb in 57 bytes)", () => {
    const bomb = pngHeader(100_000, 100_000);
    expect(bomb.length).toBeLessThan(100);
    const result = inspectImage(bomb, limits);
    expect(result).toEqual({ ok: false, code: "pixel_limit", reason: "image too large: 100000x100000 is over 40 megapixels" });
  });

  it("accepts exactly 40 megapixels and refuses one pixel row more", () => {
    expect(inspectImage(pngHeader(8000, 5000), limits).ok).toBe(true);
    expect(inspectImage(pngHeader(8000, 5001), limits).ok).toBe(false);
  });

  it.each([
    ["JPEG", jpegHeader(65535, 65535)],
    ["WebP", webpExtended(16_000_000, 16_000_000, 0)],
    ["BMP", bmpHeader(100_000, 100_000)],
    ["AVIF", avifHeader(50_000, 50_000)],
    ["GIF frame bigger than its screen", gifHeader(10, 10, 1, [65535, 65535])],
  ])("refuses a %s bomb", (_name, bytes) => {
    expect(inspectImage(bytes, limits)).toMatchObject({ ok: false, reason: expect.stringMatching(/^image too large/) });
  });

  it("refuses absurd frame counts", () => {
    expect(inspectImage(pngHeader(10, 10, 5000), limits)).toEqual({ ok: false, code: "frame_limit", reason: "too many frames: 5000 (limit 1000)" });
    expect(inspectImage(gifHeader(10, 10, 1001), limits)).toMatchObject({ ok: false, reason: "too many frames: 1001 (limit 1000)" });
    expect(inspectImage(webpExtended(10, 10, 1200), limits)).toMatchObject({ ok: false });
    expect(inspectImage(gifHeader(10, 10, 1000), limits).ok).toBe(true);
  });

  it("refuses zero-sized images", () => {
    expect(inspectImage(pngHeader(0, 10), limits)).toEqual({ ok: false, code: "unreadable", reason: "png header has no dimensions" });
  });
});

describe("header parsing never throws", () => {
  const samples = [pngHeader(640, 480, 3), jpegHeader(100, 100), gifHeader(20, 20, 3), webpLossy(10, 10), webpExtended(30, 30, 2), bmpHeader(5, 5), avifHeader(20, 20), fixture("cubes.jpg"), fixture("anim.gif"), fixture("gps.webp")];

  it("on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const r = inspectImage(bytes, limits);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 2000 },
    );
  });

  it("on random bytes behind every known signature", () => {
    const signatures = [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0xff, 0xd8, 0xff], bytesOf("GIF89a"), bytesOf("RIFF\0\0\0\0WEBP"), bytesOf("BM"), [0, 0, 0, 24, ...bytesOf("ftypavif")]];
    fc.assert(
      fc.property(fc.constantFrom(...signatures), fc.uint8Array({ maxLength: 300 }), (sig, rest) => {
        const r = inspectImage(Uint8Array.from([...sig, ...rest]), limits);
        if (r.ok) expect(r.width * r.height).toBeLessThanOrEqual(limits.maxPixels);
      }),
      { numRuns: 3000 },
    );
  });

  it("on truncated and bit-flipped real headers", () => {
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }), (sample, cut, flips) => {
        const bytes = sample.slice(0, cut % (sample.length + 1));
        for (const [at, v] of flips) if (bytes.length) bytes[at % bytes.length] = v;
        const r = inspectImage(bytes, limits);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 3000 },
    );
  });
});
