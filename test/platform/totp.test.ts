// RFC 6238 codes (platform/crypto/totp.ts) against the RFC's published test vectors, RFC 4648 base32, the ±1 step
// window, and the otpauth URL authenticator apps read.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { base32Decode, base32Encode, hotp, matchingSteps, otpauthUrl, totpAt, totpStep } from "../../src/platform/crypto/totp";
import { utf8 } from "../../src/platform/crypto/crypto";

// RFC 6238 Appendix B, SHA-1 rows: the seed is the ASCII string "12345678901234567890"; codes have 8 digits.
const SEED = utf8("12345678901234567890");
const VECTORS: [seconds: number, code: string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("RFC 6238 (HMAC-SHA-1)", () => {
  it("gives the RFC's 8-digit codes at its times", async () => {
    for (const [seconds, code] of VECTORS) expect(await hotp(SEED, totpStep(seconds * 1000), 8), `T=${seconds}`).toBe(code);
  });

  it("6 digits are the last 6 of those (the same truncation, modulo 10^6)", async () => {
    for (const [seconds, code] of VECTORS) expect(await totpAt(SEED, seconds * 1000), `T=${seconds}`).toBe(code.slice(2));
  });

  it("RFC 4226 Appendix D: HOTP of the same seed at counters 0 to 9", async () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
    for (let counter = 0; counter < 10; counter++) expect(await hotp(SEED, counter, 6)).toBe(expected[counter]);
  });

  it("steps are 30 s from the Unix epoch", () => {
    expect(totpStep(0)).toBe(0);
    expect(totpStep(29_999)).toBe(0);
    expect(totpStep(30_000)).toBe(1);
    expect(totpStep(59_000)).toBe(1);
  });
});

describe("matchingSteps: the ±1 step window", () => {
  const T = 1_800_000_015_000; // 15 s into a step
  it("accepts the codes of the steps before, at and after now; not two steps away", async () => {
    const step = totpStep(T);
    for (const d of [-1, 0, 1]) expect(await matchingSteps(SEED, await hotp(SEED, step + d, 6), T), `step ${d}`).toEqual([step + d]);
    for (const d of [-2, 2, -3, 3]) expect(await matchingSteps(SEED, await hotp(SEED, step + d, 6), T), `step ${d}`).toEqual([]);
  });

  it("refuses anything that is not 6 digits", async () => {
    const good = await totpAt(SEED, T);
    for (const bad of ["", `${good}0`, good.slice(1), "abcdef", ` ${good}`, "１２３４５６"]) expect(await matchingSteps(SEED, bad, T), bad).toEqual([]);
  });
});

describe("base32 (RFC 4648, no padding)", () => {
  it("RFC 4648 §10 vectors", () => {
    const cases: [string, string][] = [["", ""], ["f", "MY"], ["fo", "MZXQ"], ["foo", "MZXW6"], ["foob", "MZXW6YQ"], ["fooba", "MZXW6YTB"], ["foobar", "MZXW6YTBOI"]];
    for (const [text, b32] of cases) {
      expect(base32Encode(utf8(text))).toBe(b32);
      expect(base32Decode(b32)).toEqual(utf8(text));
    }
  });

  it("round-trips any bytes, and decodes lower case, spaces and padding as apps write them", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
      }),
    );
    expect(base32Decode("mzxw 6ytb oi======")).toEqual(utf8("foobar"));
    expect(base32Decode("MZXW1")).toBeNull(); // 1 is not in the alphabet
  });
});

describe("otpauth URL (Key Uri Format)", () => {
  it("names the issuer and account, and spells out the parameters", () => {
    const url = new URL(otpauthUrl({ issuer: "imghost", account: "ada+x@example.com", secret: "JBSWY3DPEHPK3PXP" }));
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(decodeURIComponent(url.pathname)).toBe("/imghost:ada+x@example.com");
    expect(Object.fromEntries(url.searchParams)).toEqual({ secret: "JBSWY3DPEHPK3PXP", issuer: "imghost", algorithm: "SHA1", digits: "6", period: "30" });
  });
});
