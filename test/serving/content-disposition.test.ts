// Content-Disposition for downloads: property tests that no stored filename can escape its parameters.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { cleanFilename, contentDisposition } from "../../src/serving/content-disposition";
import { nameMatchingType } from "../../src/platform/formats/image-types";
import { UPLOADS } from "../../src/config/uploads";

const servedTypes = fc.constantFrom(...UPLOADS.mimeTypes, "application/octet-stream");

/** Parses what a strict RFC 6266 reader would: the type, the quoted ASCII filename and the RFC 8187 filename*. */
const SHAPE = /^attachment; filename="([\x20\x21\x23-\x5b\x5d-\x7e]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*)$/;

const hostile = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 80 }),
  fc
    .array(fc.constantFrom('"', "\\", "/", ";", "\r", "\n", "\u0000", "%", "'", "=", " ", "é", "😀", "\u2028", "..", "a", ".png"), { maxLength: 40 })
    .map((parts) => parts.join("")),
);

describe("contentDisposition", () => {
  it("always yields one attachment header with a safe ASCII filename and an exact filename*", () => {
    fc.assert(
      fc.property(hostile, servedTypes, (name, type) => {
        const header = contentDisposition(name, type);
        const m = SHAPE.exec(header);
        expect(m, header).not.toBeNull();
        expect(header).not.toMatch(/[\r\n\u0000]/);
        // filename* round-trips to the cleaned name (with the type's extension when it lacked one).
        expect(decodeURIComponent(m![2])).toBe(nameMatchingType(cleanFilename(name), type));
        expect(m![1].length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps plain names as they are", () => {
    expect(contentDisposition("photo 1.jpg", "image/jpeg")).toBe(`attachment; filename="photo 1.jpg"; filename*=UTF-8''photo%201.jpg`);
    expect(contentDisposition("Photo.JPEG", "image/jpeg")).toBe(`attachment; filename="Photo.JPEG"; filename*=UTF-8''Photo.JPEG`);
    expect(contentDisposition("résumé.png", "image/png")).toBe(`attachment; filename="resume.png"; filename*=UTF-8''r%C3%A9sum%C3%A9.png`);
    expect(contentDisposition("x.png", "image/png", "inline")).toMatch(/^inline; /);
  });

  it("the extension always names the served type, whatever the client called the file", () => {
    expect(contentDisposition("index.html", "image/png")).toBe(`attachment; filename="index.html.png"; filename*=UTF-8''index.html.png`);
    expect(contentDisposition("logo.svg", "image/gif")).toContain(`filename="logo.svg.gif"`);
    expect(contentDisposition("setup.exe", "image/jpeg")).toContain(`filename="setup.exe.jpg"`);
    expect(contentDisposition("photo.png", "image/webp")).toContain(`filename="photo.png.webp"`);
    expect(contentDisposition("unknown.svg", "application/octet-stream")).toContain(`filename="unknown.svg.bin"`);
    // A stem that is gone in ASCII (a lone spacing accent) keeps the extension (fast-check found this one).
    expect(contentDisposition("\u02d8", "image/jpeg")).toContain(`filename="_.jpg"`);
    fc.assert(
      fc.property(hostile, servedTypes, (name, type) => {
        const ascii = /filename="([^"]*)"/.exec(contentDisposition(name, type))![1];
        const ext = ascii.split(".").pop()!.toLowerCase();
        expect(nameMatchingType(`x.${ext}`, type)).toBe(`x.${ext}`);
      }),
      { numRuns: 1000 },
    );
  });

  it("falls back to a neutral name for empty and dot-only names", () => {
    for (const name of ["", "   ", ".", "..", "....", "/", "\r\n"]) {
      expect(contentDisposition(name, "image/png")).toBe(`attachment; filename="download.png"; filename*=UTF-8''download.png`);
    }
  });

  it("keeps the extension when it shortens long names", () => {
    const long = "a".repeat(500) + ".jpeg";
    const cleaned = cleanFilename(long);
    expect(cleaned.endsWith(".jpeg")).toBe(true);
    expect([...cleaned].length).toBeLessThanOrEqual(150);
  });
});
