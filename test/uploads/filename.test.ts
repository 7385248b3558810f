import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UPLOADS, type UploadMime } from "../../src/config/uploads";
import { buildStoreKey, sanitizeFilename, titleFromFilename } from "../../src/uploads/filename";
import { magicMatches } from "../../src/uploads/magic";
import { SMALL_PNG } from "./helpers";

const bytes = (s: string) => new TextEncoder().encode(s).byteLength;
const mimeArb = fc.constantFrom(...(UPLOADS.mimeTypes as readonly UploadMime[]));
// Names with separators, controls, bidi marks, dots, unicode of every width and lone surrogates.
const nameArb = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: fc.constantFrom("a", "é", "你", "😀", "/", "\\", ".", " ", "\u0000", "\u202e", "\u200b", "%", "#", "?", "\ud800"), maxLength: 200 }),
  fc.tuple(fc.string({ maxLength: 150 }), fc.stringMatching(/^[A-Za-z0-9]{1,10}$/)).map(([stem, ext]) => `${stem}.${ext}`),
);

describe("sanitizeFilename", () => {
  it("never yields separators, controls, invisible marks or lone surrogates; at most 100 bytes; never empty or dot-led", () => {
    fc.assert(
      fc.property(nameArb, mimeArb, (name, mime) => {
        const out = sanitizeFilename(name, mime);
        expect(out).not.toMatch(/[\\/]/);
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
        expect(out).not.toMatch(/[\ud800-\udfff]/u); // in u-mode only unpaired surrogates match
        expect(() => encodeURIComponent(out)).not.toThrow();
        expect(bytes(out)).toBeLessThanOrEqual(100);
        expect(out.length).toBeGreaterThan(0);
        expect(out.startsWith(".")).toBe(false);
        expect(out).toMatch(/\.[A-Za-z0-9]{1,10}$/);
      }),
      { numRuns: 2000 },
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(nameArb, mimeArb, (name, mime) => {
        const once = sanitizeFilename(name, mime);
        expect(sanitizeFilename(once, mime)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps a plain extension, however long the name", () => {
    // (a name that is only a dot-file, like ".ab", has no extension: it becomes "ab.<mime's>")
    const stem = fc.string({ maxLength: 400 }).map((s) => "x" + s.replace(/[\\/]/g, ""));
    fc.assert(
      fc.property(stem, fc.stringMatching(/^[A-Za-z0-9]{1,10}$/), mimeArb, (stem, ext, mime) => {
        expect(sanitizeFilename(`${stem}.${ext}`, mime).endsWith(`.${ext}`)).toBe(true);
      }),
    );
  });

  it("examples", () => {
    expect(sanitizeFilename("../../etc/passwd", "image/png")).toBe("passwd.png");
    expect(sanitizeFilename("C:\\Users\\me\\Photo 1.JPG", "image/jpeg")).toBe("Photo_1.JPG");
    expect(sanitizeFilename("evil\u202egpj.exe", "image/jpeg")).toBe("evilgpj.exe");
    expect(sanitizeFilename("...", "image/gif")).toBe("file.gif");
    expect(sanitizeFilename("/", "image/webp")).toBe("file.webp");
    expect(sanitizeFilename(".hidden.png", "image/png")).toBe("hidden.png");
    expect(sanitizeFilename("a?b#c%d.png", "image/png")).toBe("a_b_c_d.png");
    const long = sanitizeFilename("😀".repeat(60) + ".avif", "image/avif");
    expect(bytes(long)).toBeLessThanOrEqual(100);
    expect(long).toBe("😀".repeat(23) + ".avif"); // 23 x 4 bytes + 5
  });

  it("storeKey shape", () => {
    expect(buildStoreKey("file_abc", "a.png", new Date("2026-03-04T23:59:59Z"))).toBe("uploads/2026-03-04/file_abc/a.png");
  });
});

describe("magicMatches", () => {
  const b = (...xs: (number | string)[]) =>
    new Uint8Array(xs.flatMap((x) => (typeof x === "string" ? [...x].map((c) => c.charCodeAt(0)) : [x])));
  it("recognises each allowed type and refuses the others", () => {
    const samples: Record<UploadMime, Uint8Array> = {
      "image/png": SMALL_PNG.subarray(0, 64),
      "image/jpeg": b(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, "JFIF"),
      "image/gif": b("GIF89a", 1, 0, 1, 0),
      "image/webp": b("RIFF", 0x24, 0, 0, 0, "WEBPVP8 "),
      "image/avif": b(0, 0, 0, 0x1c, "ftyp", "mif1", 0, 0, 0, 0, "mif1", "avif", "miaf"),
      "image/bmp": b("BM", 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0),
    };
    for (const [mime, head] of Object.entries(samples) as [UploadMime, Uint8Array][]) {
      for (const other of UPLOADS.mimeTypes) expect(magicMatches(other, head), `${mime} as ${other}`).toBe(other === mime);
    }
    expect(magicMatches("image/avif", b(0, 0, 0, 0x18, "ftyp", "heic", 0, 0, 0, 0, "mif1", "heic"))).toBe(false);
    expect(magicMatches("image/png", new Uint8Array(0))).toBe(false);
    expect(magicMatches("image/jpeg", b(0xff, 0xd8))).toBe(false);
  });
});

describe("titleFromFilename", () => {
  it("keeps the name as the person wrote it, without folder and extension", () => {
    expect(titleFromFilename("Holiday at sea.JPG")).toBe("Holiday at sea");
    expect(titleFromFilename("/home/me/pics/cat.photo.png")).toBe("cat.photo");
    expect(titleFromFilename("C:\\x\\a\u202eb.gif")).toBe("ab");
    expect(titleFromFilename(".png")).toBe(".png");
    expect(titleFromFilename("x".repeat(300) + ".png")).toHaveLength(UPLOADS.titleMaxChars);
  });
});
