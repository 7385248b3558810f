// The shared container walkers (src/analysis/containers/) and the decoders' one entry, decodeReduced. The
// header guard, the metadata scrubber and each decoder are tested on their own; these pin what they share.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sniffFormat } from "../../src/analysis/containers/format";
import { jpegSegments, SOS } from "../../src/analysis/containers/jpeg-segments";
import { crcMatches, isComplete, pngChunks } from "../../src/analysis/containers/png-chunks";
import { riffChunks } from "../../src/analysis/containers/riff";
import { decodeReduced, LeanDecodeError } from "../../src/analysis/decoders";
import { crc32 } from "../../src/platform/formats/crc32";
import { fixture } from "./fixtures";
import { avifHeader } from "./images";

const text = (s: string) => new TextEncoder().encode(s);

describe("crc32", () => {
  it("is CRC-32/ISO-HDLC, and goes on from a previous CRC", () => {
    expect(crc32(text("123456789"))).toBe(0xcbf43926);
    expect(crc32(text("6789"), crc32(text("12345")))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });
});

describe("sniffFormat", () => {
  it.each([
    ["cubes.jpg", "jpeg"],
    ["truchet.png", "png"],
    ["licorice.gif", "gif"],
    ["cubes.webp", "webp"],
    ["gradient.bmp", "bmp"],
  ])("%s is %s", (name, format) => {
    expect(sniffFormat(fixture(name))).toBe(format);
  });

  it("knows AVIF by its ftyp box, and nothing else", () => {
    expect(sniffFormat(avifHeader(10, 10))).toBe("avif");
    expect(sniffFormat(text("<!doctype html>"))).toBeNull();
    expect(sniffFormat(new Uint8Array(0))).toBeNull();
  });
});

describe("walkers on real files", () => {
  it("PNG: IHDR first, IEND last, every CRC right", () => {
    const bytes = fixture("truchet.png");
    const chunks = [...pngChunks(bytes)];
    expect(chunks[0].type).toBe("IHDR");
    expect(chunks.at(-1)!.type).toBe("IEND");
    for (const chunk of chunks) expect(isComplete(bytes, chunk) && crcMatches(bytes, chunk)).toBe(true);
  });

  it("JPEG: the tables and frame header up to the first scan", () => {
    const walk = jpegSegments(fixture("cubes.jpg"));
    const markers: number[] = [];
    let step = walk.next();
    for (; !step.done; step = walk.next()) markers.push(step.value.marker);
    expect(step.value).toBe("scan");
    expect(markers).toContain(0xc0); // baseline SOF
    expect(markers).toContain(0xc4); // DHT
    expect(markers).not.toContain(SOS);
  });

  it("RIFF: the WebP's image chunk", () => {
    const tags = [...riffChunks(fixture("cubes.webp"))].map((c) => c.tag);
    expect(tags.some((t) => t === "VP8 " || t === "VP8L" || t === "VP8X")).toBe(true);
  });
});

describe("walkers on any bytes", () => {
  const anyBytes = fc.uint8Array({ maxLength: 200 });
  const prefixed = (prefix: number[]) => anyBytes.map((rest) => Uint8Array.from([...prefix, ...rest]));

  it("end, never throw, and yield only headers that lie inside the bytes", () => {
    fc.assert(
      fc.property(prefixed([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), (b) => {
        for (const chunk of pngChunks(b)) expect(chunk.at + 8).toBeLessThanOrEqual(b.length);
      }),
    );
    fc.assert(
      fc.property(prefixed([0xff, 0xd8]), fc.boolean(), (b, resync) => {
        for (const segment of jpegSegments(b, { resync, scans: true })) expect(segment.start).toBeLessThanOrEqual(b.length);
      }),
    );
    fc.assert(
      fc.property(anyBytes, (b) => {
        for (const chunk of riffChunks(b, 0)) expect(chunk.at + 8).toBeLessThanOrEqual(b.length);
      }),
    );
  });
});

describe("decodeReduced: the decoders' one entry", () => {
  it("reads the format from the bytes and reduces to the target", async () => {
    const png = await decodeReduced(fixture("truchet.png"), 100 * 100);
    expect([png.width, png.height]).toEqual([360, 360]);
    expect(png.outWidth * png.outHeight).toBeLessThanOrEqual(100 * 100);
    const bmp = await decodeReduced(fixture("gradient.bmp"), 1e6);
    expect([bmp.outWidth, bmp.outHeight]).toEqual([128, 96]);
  });

  it("refuses what no decoder reads with a LeanDecodeError", async () => {
    await expect(decodeReduced(avifHeader(64, 64), 1e6)).rejects.toThrow(LeanDecodeError);
    await expect(decodeReduced(text("not an image at all"), 1e6)).rejects.toThrow(LeanDecodeError);
  });
});
