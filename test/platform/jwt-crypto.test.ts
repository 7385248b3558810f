import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { looksLikeJwt, signToken, verifyToken } from "../../src/platform/crypto/jwt";
import { base64url, fromBase64url, sha256Hex, timingSafeEqual, timingSafeEqualString } from "../../src/platform/crypto/crypto";
import { TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET } from "../support/tokens";

const cfg = { secret: TEST_JWT_SECRET, issuer: TEST_ISSUER, audience: TEST_AUDIENCE };

describe("jwt", () => {
  it("signs and verifies access and upload tokens", async () => {
    const access = await signToken(cfg, { sub: "usr_1", typ: "access", sid: "ses_1" }, 60);
    expect(await verifyToken(cfg, access)).toMatchObject({ sub: "usr_1", typ: "access", sid: "ses_1" });
    const upload = await signToken(cfg, { sub: "anonymous", typ: "upload", fid: "file_1" }, 60);
    const claims = await verifyToken(cfg, upload);
    expect(claims).toMatchObject({ typ: "upload", fid: "file_1" });
    expect(claims?.sid).toBeUndefined();
  });

  it("refuses tokens for another issuer, audience or secret", async () => {
    const t = await signToken(cfg, { sub: "usr_1", typ: "access", sid: "s" }, 60);
    expect(await verifyToken({ ...cfg, issuer: "https://x" }, t)).toBeNull();
    expect(await verifyToken({ ...cfg, audience: "https://x" }, t)).toBeNull();
    expect(await verifyToken({ ...cfg, secret: TEST_JWT_SECRET + "x" }, t)).toBeNull();
    expect(await verifyToken(cfg, t + "x")).toBeNull();
    expect(await verifyToken(cfg, "a.b.c")).toBeNull();
  });

  it("refuses a short secret outright", async () => {
    await expect(signToken({ ...cfg, secret: "short" }, { sub: "u", typ: "access" }, 60)).rejects.toThrow(/32/);
  });

  it("looksLikeJwt: three base64url segments", () => {
    expect(looksLikeJwt("aaa.bbb.ccc")).toBe(true);
    expect(looksLikeJwt("aaa.bbb.")).toBe(true);
    expect(looksLikeJwt("pk_" + "a".repeat(32))).toBe(false);
    expect(looksLikeJwt("aaa.bbb")).toBe(false);
    expect(looksLikeJwt("a+a.b.c")).toBe(false);
    expect(looksLikeJwt("")).toBe(false);
  });
});

describe("crypto helpers", () => {
  it("base64url round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const enc = base64url(bytes);
        expect(enc).toMatch(/^[A-Za-z0-9_-]*$/);
        expect([...fromBase64url(enc)]).toEqual([...bytes]);
      }),
    );
  });

  it("sha256Hex", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("timingSafeEqual compares content and length", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (a, b) => {
        const same = a.length === b.length && a.every((x, i) => x === b[i]);
        expect(timingSafeEqual(a, b)).toBe(same);
        expect(timingSafeEqual(a, a.slice())).toBe(true);
      }),
    );
    expect(timingSafeEqualString("abc", "abc")).toBe(true);
    expect(timingSafeEqualString("abc", "abd")).toBe(false);
    expect(timingSafeEqualString("abc", "abcd")).toBe(false);
  });
});
