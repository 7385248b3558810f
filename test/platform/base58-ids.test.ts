import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { BASE58_ALPHABET, isBase58, randomBase58 } from "../../src/platform/formats/base58";
import { isId, newId, randomId } from "../../src/platform/data/ids";
import { generateApiKey, isWellFormedApiKey } from "../../src/auth/api-keys";

describe("base58", () => {
  it("the alphabet is the Bitcoin one: 58 distinct characters without 0, O, I, l", () => {
    expect(BASE58_ALPHABET).toBe("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz");
    expect(new Set(BASE58_ALPHABET).size).toBe(58);
    for (const ch of "0OIl") expect(BASE58_ALPHABET).not.toContain(ch);
  });

  it("randomBase58 returns the requested length from the alphabet", () => {
    for (const n of [0, 1, 2, 32, 100, 1000]) {
      const s = randomBase58(n);
      expect(s).toHaveLength(n);
      for (const ch of s) expect(BASE58_ALPHABET).toContain(ch);
    }
  });

  it("is roughly uniform over the alphabet (no modulo bias)", () => {
    const samples = 58 * 1000;
    const counts = new Map<string, number>();
    for (const ch of randomBase58(samples)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(58);
    // Chi-squared with 57 degrees of freedom: p < 1e-6 above ~130. A biased `% 58` over 256 byte values
    // would give the first 24 characters 5/4 of the others' share and a statistic in the thousands.
    const expected = samples / 58;
    let chi2 = 0;
    for (const n of counts.values()) chi2 += (n - expected) ** 2 / expected;
    expect(chi2).toBeLessThan(130);
  });

  it("isBase58 accepts exactly strings over the alphabet", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (s) => {
        expect(isBase58(s)).toBe([...s].every((ch) => BASE58_ALPHABET.includes(ch)));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...BASE58_ALPHABET), minLength: 1, maxLength: 40 }), (s) => {
        expect(isBase58(s)).toBe(true);
      }),
    );
    expect(isBase58("")).toBe(false);
  });
});

describe("API key shape", () => {
  it("generateApiKey: pk_ + 32 base58, different every time", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) {
      expect(k).toMatch(/^pk_[1-9A-HJ-NP-Za-km-z]{32}$/);
      expect(isWellFormedApiKey(k)).toBe(true);
    }
  });

  it("isWellFormedApiKey agrees with the decided regex on arbitrary input", () => {
    const RE = /^pk_[1-9A-HJ-NP-Za-km-z]{32}$/;
    const nearKey = fc
      .tuple(
        fc.constantFrom("pk_", "PK_", "pk-", "pk", "", "xpk_"),
        fc.string({ unit: fc.constantFrom(...BASE58_ALPHABET, "0", "O", "I", "l", "_", "-", " "), minLength: 30, maxLength: 34 }),
      )
      .map(([p, b]) => p + b);
    fc.assert(
      fc.property(fc.oneof(nearKey, fc.string()), (s) => {
        expect(isWellFormedApiKey(s)).toBe(RE.test(s));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("ids", () => {
  it("newId: prefix + 21 URL-safe characters", () => {
    for (const prefix of ["usr", "upl", "file", "alb", "rep", "key", "ses"] as const) {
      const id = newId(prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_[A-Za-z0-9_-]{21}$`));
      expect(isId(prefix, id)).toBe(true);
    }
  });

  it("randomId uses the whole 64-character alphabet and does not repeat", () => {
    const seen = new Set<string>();
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomId();
      ids.add(id);
      for (const ch of id) seen.add(ch);
    }
    expect(ids.size).toBe(2000);
    expect(seen.size).toBe(64);
    expect(randomId(5)).toHaveLength(5);
  });

  it("isId rejects other prefixes and malformed bodies", () => {
    const id = newId("file");
    expect(isId("usr", id)).toBe(false);
    expect(isId("file", id + "x")).toBe(false);
    expect(isId("file", id.slice(0, -1))).toBe(false);
    expect(isId("file", "file_" + "!".repeat(21))).toBe(false);
    expect(isId("file", "file" + id.slice(4).replace("_", "-"))).toBe(false);
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(isId("usr", s)).toBe(/^usr_[A-Za-z0-9_-]{21}$/.test(s));
      }),
      { numRuns: 2000 },
    );
  });
});
