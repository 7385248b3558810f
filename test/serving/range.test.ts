// Pure helpers behind byte serving: Range parsing and ETag comparison.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { etagMatches, parseRange, quoteEtag } from "../../src/serving/answers";

describe("parseRange", () => {
  it.each([
    [null, { kind: "full" }],
    ["bytes=0-0", { kind: "partial", start: 0, end: 0 }],
    ["bytes=10-", { kind: "partial", start: 10, end: 99 }],
    ["bytes=-10", { kind: "partial", start: 90, end: 99 }],
    ["bytes=-1000", { kind: "partial", start: 0, end: 99 }],
    ["bytes=50-5000", { kind: "partial", start: 50, end: 99 }],
    ["BYTES = 1 - 2", { kind: "partial", start: 1, end: 2 }],
    ["bytes=100-", { kind: "unsatisfiable" }],
    ["bytes=100-200", { kind: "unsatisfiable" }],
    ["bytes=-0", { kind: "unsatisfiable" }],
    ["bytes=5-1", { kind: "full" }],
    ["bytes=0-1,3-4", { kind: "full" }],
    ["items=0-1", { kind: "full" }],
    ["bytes=-", { kind: "full" }],
    ["bytes=99999999999999999999-", { kind: "full" }],
  ])("%s on 100 bytes -> %j", (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });

  it("never returns a range outside the object", () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(10_000), (header, size) => {
        const r = parseRange(`bytes=${header}`, size);
        if (r.kind === "partial") {
          expect(r.start).toBeGreaterThanOrEqual(0);
          expect(r.end).toBeLessThan(size);
          expect(r.start).toBeLessThanOrEqual(r.end);
        }
      }),
    );
  });
});

describe("ETags", () => {
  it("quotes and compares", () => {
    expect(quoteEtag("abc")).toBe('"abc"');
    expect(quoteEtag('"abc"')).toBe('"abc"');
    expect(quoteEtag('W/"abc"')).toBe('"abc"');
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches("*", '"abc"')).toBe(true);
    expect(etagMatches('"abcd"', '"abc"')).toBe(false);
    expect(etagMatches(null, '"abc"')).toBe(false);
  });
});
