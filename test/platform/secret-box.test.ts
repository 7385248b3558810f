// AES-GCM sealing of stored secrets (platform/crypto/secret-box.ts): a key derived from a server secret and a purpose,
// bound to the record it belongs to; anything else opens to null.
import { describe, expect, it } from "vitest";
import { openSecret, sealSecret } from "../../src/platform/crypto/secret-box";
import { base64url, fromBase64url, utf8 } from "../../src/platform/crypto/crypto";

const SERVER_SECRET = "a-server-secret-for-this-test-only-0123456789";
const PURPOSE = "test secret v1";
const bytes = utf8("the stored secret");

describe("sealSecret / openSecret", () => {
  it("opens what it sealed; the sealed text shows none of the secret and differs each time (random IV)", async () => {
    const a = await sealSecret(SERVER_SECRET, PURPOSE, bytes, "usr_1");
    const b = await sealSecret(SERVER_SECRET, PURPOSE, bytes, "usr_1");
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(base64url(bytes));
    expect(await openSecret(SERVER_SECRET, PURPOSE, a, "usr_1")).toEqual(bytes);
    expect(await openSecret(SERVER_SECRET, PURPOSE, b, "usr_1")).toEqual(bytes);
  });

  it("another server secret, another purpose or another record cannot open it", async () => {
    const sealed = await sealSecret(SERVER_SECRET, PURPOSE, bytes, "usr_1");
    expect(await openSecret(`${SERVER_SECRET}x`, PURPOSE, sealed, "usr_1")).toBeNull();
    expect(await openSecret(SERVER_SECRET, "other purpose", sealed, "usr_1")).toBeNull();
    expect(await openSecret(SERVER_SECRET, PURPOSE, sealed, "usr_2")).toBeNull();
  });

  it("a changed byte, a cut or an unknown format opens to null, never throws", async () => {
    const sealed = await sealSecret(SERVER_SECRET, PURPOSE, bytes, "usr_1");
    const [v, iv, body] = sealed.split(".");
    const flipped = fromBase64url(body);
    flipped[0] ^= 1;
    for (const bad of [`${v}.${iv}.${base64url(flipped)}`, `${v}.${iv}.${body.slice(0, 10)}`, `v2.${iv}.${body}`, "garbage", "", `${v}.${iv}`]) {
      expect(await openSecret(SERVER_SECRET, PURPOSE, bad, "usr_1"), bad).toBeNull();
    }
  });

  it("refuses a short server secret", async () => {
    await expect(sealSecret("short", PURPOSE, bytes, "usr_1")).rejects.toThrow(/at least 32 characters/);
  });
});
