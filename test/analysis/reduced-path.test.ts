// The reduced decode path (imaging.ts): images over ANALYSIS.maxDecodePixels are decoded by the lean decoders
// (src/analysis/decoders) straight to ~1 MP, and the phash, thumbnail and NSFW input come from that. The phash must
// still match Python's imagehash on the FULL image (reference_phash.py, large/expected-phash.json) within 2 bits.
import { describe, expect, it } from "vitest";
import type { PhotonImage } from "@cf-wasm/photon";
import { ANALYSIS } from "../../src/config";
import { DecodeError, decodeImage, loadPhoton } from "../../src/analysis/imaging";
import { parseImageHeader } from "../../src/analysis/header";
import { crc32 } from "../../src/platform/formats/crc32";
import { hammingDistance, phashFromLuma, toLuma601 } from "../../src/analysis/phash";
import { base64ToBytes, EXPECTED_PHASH, fixture, FIXTURE_NAMES, LARGE_EXPECTED_PHASH, LARGE_FIXTURE_NAMES, largeFixture } from "./fixtures";
import { pngHeader } from "./images";

const options = { orientation: null, thumbnailMaxSide: 320, thumbnailJpegQuality: 80, nsfwSize: 224 };

/** Photon's wasm memory (it only grows): what the reduced path must not inflate. */
async function wasmBytes(): Promise<number> {
  const photon = (await loadPhoton()) as unknown as { initPhoton?: { ensure(): Promise<{ memory: WebAssembly.Memory }> } };
  const instance = await photon.initPhoton?.ensure();
  return instance ? instance.memory.buffer.byteLength : 0;
}

describe("images over the full-decode budget take the reduced path", () => {
  it("has large fixtures of every lean format, all over the budget", async () => {
    expect(LARGE_FIXTURE_NAMES.map((n) => n.split(".").pop()).sort()).toEqual(expect.arrayContaining(["gif", "jpg", "png", "webp"]));
    for (const name of LARGE_FIXTURE_NAMES) {
      const header = parseImageHeader(await largeFixture(name));
      expect(header.ok && header.width * header.height, name).toBeGreaterThan(ANALYSIS.maxDecodePixels);
    }
  });

  for (const name of LARGE_FIXTURE_NAMES) {
    it(`${name}: phash within 2 of Pillow on the full image, 320 px thumbnail, NSFW input, small photon memory`, async () => {
      const bytes = await largeFixture(name);
      const header = parseImageHeader(bytes);
      if (!header.ok) throw new Error(header.reason);
      const before = await wasmBytes();
      const started = performance.now();
      const decoded = await decodeImage(bytes, options);
      const ms = performance.now() - started;
      const grown = (await wasmBytes()) - before;

      expect(decoded.decoder).toBe("lean");
      expect([decoded.width, decoded.height]).toEqual([header.width, header.height]);
      expect(decoded.lumaWidth * decoded.lumaHeight).toBeLessThanOrEqual(ANALYSIS.leanTargetPixels);
      const hash = phashFromLuma(decoded.luma, decoded.lumaWidth, decoded.lumaHeight);
      const distance = hammingDistance(hash, LARGE_EXPECTED_PHASH[name]);
      console.log(`${name} ${header.width}x${header.height} -> ${decoded.lumaWidth}x${decoded.lumaHeight} in ${ms.toFixed(0)} ms, phash distance ${distance}, photon memory +${(grown / 2 ** 20).toFixed(1)} MB`);
      expect(distance, `${hash} vs ${LARGE_EXPECTED_PHASH[name]}`).toBeLessThanOrEqual(2);

      const thumb = decoded.thumbnail!;
      // 320 px on the long side, or the reduced image's size when that is smaller (a JPEG's 1/8 image).
      expect(Math.max(thumb.width, thumb.height)).toBe(Math.min(320, Math.max(decoded.lumaWidth, decoded.lumaHeight)));
      expect(Math.abs(thumb.width / thumb.height - header.width / header.height)).toBeLessThan(0.02);
      expect(decoded.nsfwInput?.length).toBe(224 * 224 * 4);
      expect(decoded.stepErrors).toEqual([]);
      // Photon only ever sees the ~1 MP reduced image (4 MB) and its resizes; a full decode would need 12 B/px.
      expect(grown).toBeLessThan(24 * 2 ** 20);
    });
  }

  // JPEGs are left out: their reduced image is the 1/8 DC image, so a 160 px fixture becomes 20 px, too coarse for
  // the 32x32 Lanczos (images on this path are over 5 MP, so >= 280 px); decoders/jpeg.test.ts checks them on x8
  // upscaled photos, and the large fixtures above check real ones.
  it("gives the Python reference's phash on the small lossless and WebP fixtures when forced onto the reduced path", async () => {
    const far: string[] = [];
    const names = FIXTURE_NAMES.filter((n) => !n.endsWith(".jpg"));
    expect(names.length).toBeGreaterThanOrEqual(9);
    for (const name of names) {
      const reduced = await decodeImage(fixture(name), { ...options, nsfwSize: 0, maxFullDecodePixels: 0 });
      expect(reduced.decoder).toBe("lean");
      const distance = hammingDistance(phashFromLuma(reduced.luma, reduced.lumaWidth, reduced.lumaHeight), EXPECTED_PHASH[name]);
      if (distance > 2) far.push(`${name}: ${distance}`);
    }
    expect(far).toEqual([]);
  });

  it("reports an undecodable large image as a DecodeError, not a crash", async () => {
    // A valid 20 MP PNG header whose pixel data is missing.
    await expect(decodeImage(pngHeader(5_000, 4_000), options)).rejects.toThrow(DecodeError);
    await expect(decodeImage(pngHeader(5_000, 4_000), options)).rejects.toThrow(/^undecodable image: /);
  });
});

describe("WebP always goes through our decoder", () => {
  // 128x96, encoded by libwebp with one segment (no segmentation map), as libwebp does for small or flat images;
  // one-segment.libwebp.png is libwebp's own decode of it (dwebp), the pixels Pillow hashes.
  const inline = async (name: string) => {
    const url = (await import(`../fixtures/images/lean/webp-vp8/${name}?inline`)).default as string;
    return base64ToBytes(url.slice(url.indexOf(",") + 1));
  };
  const meanLumaDiff = (a: Uint8Array, b: Uint8Array) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]), 0) / a.length;

  it("at full size within the budget, close to libwebp where photon's decoder is far off", async () => {
    const bytes = await inline("one-segment.webp");
    const decoded = await decodeImage(bytes, { ...options, nsfwSize: 0 });
    expect(decoded.decoder).toBe("lean");
    expect([decoded.lumaWidth, decoded.lumaHeight]).toEqual([128, 96]);

    const photon = await loadPhoton();
    const lumaOf = (image: PhotonImage) => {
      try {
        return toLuma601(image.get_raw_pixels(), 128, 96);
      } finally {
        image.free();
      }
    };
    const libwebp = lumaOf(photon.PhotonImage.new_from_byteslice(await inline("one-segment.libwebp.png")));
    // What photon (image 0.24) makes of the same file: the frame's quantiser is ignored.
    const photonWebp = lumaOf(photon.PhotonImage.new_from_byteslice(bytes));
    const ours = meanLumaDiff(decoded.luma, libwebp);
    const theirs = meanLumaDiff(photonWebp, libwebp);
    console.log(`one-segment.webp mean luma difference to libwebp: ours ${ours.toFixed(2)}, photon ${theirs.toFixed(2)}`);
    expect(ours).toBeLessThan(1.5);
    expect(theirs).toBeGreaterThan(10);
  });
});

describe("which decoder reads an image within the budget", () => {
  it("PNG, GIF, BMP and WebP: ours, at full size (4 bytes per pixel); JPEG: photon", async () => {
    const cases = [["truchet.png", "lean"], ["licorice.gif", "lean"], ["gradient.bmp", "lean"], ["pixels.webp", "lean"], ["cubes.jpg", "photon"]] as const;
    for (const [name, decoder] of cases) {
      const decoded = await decodeImage(fixture(name), { ...options, nsfwSize: 0 });
      expect(decoded.decoder, name).toBe(decoder);
      expect([decoded.lumaWidth, decoded.lumaHeight], name).toEqual([decoded.width, decoded.height]);
    }
  });

  it("falls back to ours for a small JPEG photon cannot read (12-bit samples), at 1/8 scale", async () => {
    const url = (await import("../fixtures/images/lean/jpeg/enc-12bit.jpg?inline")).default as string;
    const bytes = base64ToBytes(url.slice(url.indexOf(",") + 1));
    const photon = await loadPhoton();
    expect(() => photon.PhotonImage.new_from_byteslice(bytes)).toThrow();
    const decoded = await decodeImage(bytes, { ...options, nsfwSize: 0 });
    expect(decoded.decoder).toBe("lean");
    expect([decoded.lumaWidth, decoded.lumaHeight]).toEqual([Math.ceil(decoded.width / 8), Math.ceil(decoded.height / 8)]);
  });

  it("falls back to photon for a small file ours refuse (bytes after the PNG's zlib stream)", async () => {
    const rows = Uint8Array.from([0, 10, 20, 30, 40, 0, 50, 60, 70, 80]); // 4x2 grey, filter None
    const zlib = new Uint8Array(await new Response(new Blob([rows]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer());
    const be32 = (v: number) => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
    const chunk = (type: string, data: number[]) => {
      const body = Uint8Array.from([...[...type].map((c) => c.charCodeAt(0)), ...data]);
      return [...be32(data.length), ...body, ...be32(crc32(body))];
    };
    const png = Uint8Array.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a,
      ...chunk("IHDR", [...be32(4), ...be32(2), 8, 0, 0, 0, 0]),
      ...chunk("IDAT", [...zlib, 1, 2, 3]),
      ...chunk("IEND", []),
    ]);
    const decoded = await decodeImage(png, { ...options, nsfwSize: 0 });
    expect(decoded.decoder).toBe("photon");
    expect([...decoded.luma]).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
  });
});
