import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32 } from "../../src/platform/formats/crc32";
import { readExifTags, scrubMetadata } from "../../src/analysis/metadata";
import { fixture } from "./fixtures";
import { privateLeftovers, tagText as text } from "./support";

function pngChunksValid(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let pos = 8; pos + 12 <= bytes.length; ) {
    const length = view.getUint32(pos);
    if (crc32(bytes.subarray(pos + 4, pos + 8 + length)) !== view.getUint32(pos + 8 + length)) return false;
    pos += 12 + length;
  }
  return true;
}

describe("scrubMetadata", () => {
  it.each(["gps.jpg", "gps.png", "gps.webp"])("%s: the fixture carries GPS, serials and orientation 6 (exiftool wrote them)", (name) => {
    const left = privateLeftovers(fixture(name));
    expect(left.gps.length).toBeGreaterThanOrEqual(5);
    expect(left.serials).toEqual(expect.arrayContaining(["SN-CAM-0042", "LENS-7777"]));
    expect(left.xmp.length).toBeGreaterThanOrEqual(2);
    expect(left.orientation?.value[0] || left.orientation?.value[1]).toBe(6);
  });

  it.each(["gps.jpg", "gps.png", "gps.webp"])("%s: blanks GPS, serial numbers and XMP location in place, keeps size and orientation", (name) => {
    const original = fixture(name);
    const bytes = fixture(name);
    const report = scrubMetadata(bytes);
    expect(report.changed).toBe(true);
    expect(report.orientation).toBe(6);
    expect(report.findings).toEqual(expect.arrayContaining(["exif:gps", "exif:serial", "xmp:gps", "xmp:serial"]));
    expect(bytes.length).toBe(original.length);
    const left = privateLeftovers(bytes);
    expect(left.gps).toEqual([]);
    expect(left.serials).toEqual([]);
    expect(left.xmp).toEqual([]);
    expect(new TextDecoder("latin1").decode(bytes)).not.toMatch(/SN-CAM-0042|LENS-7777|Jane Doe|48\.858|2\.294/);
    // Orientation, camera make and model survive.
    const tags = readExifTags(bytes);
    expect(tags.find((t) => t.tag === 0x0112)).toBeDefined();
    expect(text(tags.find((t) => t.tag === 0x010f)!.value)).toBe("Camera Maker");
    if (name.endsWith(".png")) expect(pngChunksValid(bytes)).toBe(true);
  });

  it("is idempotent: a second pass changes nothing", () => {
    const bytes = fixture("gps.jpg");
    scrubMetadata(bytes);
    const once = bytes.slice();
    const again = scrubMetadata(bytes);
    expect(again.changed).toBe(false);
    expect(again.orientation).toBe(6);
    expect(bytes).toEqual(once);
  });

  it("leaves images without private metadata untouched", () => {
    for (const name of ["cubes.jpg", "truchet.png", "pixels.webp", "licorice.gif", "gradient.bmp"]) {
      const bytes = fixture(name);
      const report = scrubMetadata(bytes);
      expect(report.changed, name).toBe(false);
      expect(bytes).toEqual(fixture(name));
    }
  });

  it("zeroes EXIF it cannot parse rather than risk leaving a position in it", () => {
    const bytes = fixture("gps.jpg");
    // Break the TIFF byte-order mark right after "Exif\0\0".
    const at = new TextDecoder("latin1").decode(bytes).indexOf("Exif\0\0") + 6;
    bytes[at] = 0x58;
    const report = scrubMetadata(bytes);
    expect(report.findings).toContain("exif:unparseable");
    expect(new TextDecoder("latin1").decode(bytes)).not.toMatch(/SN-CAM-0042|LENS-7777/);
  });

  it("never throws on damaged files", () => {
    const samples = ["gps.jpg", "gps.png", "gps.webp", "cubes.jpg"].map(fixture);
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 12 }), (sample, cut, flips) => {
        const bytes = sample.slice(0, cut % (sample.length + 1));
        for (const [at, v] of flips) if (bytes.length) bytes[at % bytes.length] = v;
        const length = bytes.length;
        const report = scrubMetadata(bytes);
        expect(bytes.length).toBe(length);
        expect(typeof report.changed).toBe("boolean");
      }),
      { numRuns: 1500 },
    );
  });
});
