import { describe, expect, it } from "vitest";
import { burnPasswordCheck, hashPassword, verifyPassword } from "../../src/platform/crypto/passwords";
import { base64url } from "../../src/platform/crypto/crypto";

const FORMAT = /^pbkdf2-sha256\$i=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

describe("passwords", () => {
  it("hash format: pbkdf2-sha256$i=100000$salt$hash (16-byte salt, 32-byte hash)", async () => {
    const stored = await hashPassword("correct horse battery staple");
    const m = FORMAT.exec(stored);
    expect(m).not.toBeNull();
    expect(m![1]).toBe("100000");
    expect(m![2]).toHaveLength(22); // 16 bytes base64url
    expect(m![3]).toHaveLength(43); // 32 bytes base64url
  });

  it("salts: the same password hashes differently each time", async () => {
    const [a, b] = await Promise.all([hashPassword("same password"), hashPassword("same password")]);
    expect(a).not.toBe(b);
  });

  it("verifies the right password and refuses others", async () => {
    const stored = await hashPassword("correct horse", 1000);
    expect(await verifyPassword("correct horse", stored)).toEqual({ ok: true, needsRehash: true });
    expect(await verifyPassword("correct horsE", stored)).toEqual({ ok: false, needsRehash: false });
    expect(await verifyPassword("", stored)).toEqual({ ok: false, needsRehash: false });
  });

  it("unicode passwords round-trip", async () => {
    const pw = "pässwörd 🔑 密码";
    const stored = await hashPassword(pw, 1000);
    expect((await verifyPassword(pw, stored)).ok).toBe(true);
    expect((await verifyPassword(pw.normalize("NFD"), stored)).ok).toBe(false);
  });

  it("needsRehash: only for a correct password whose hash uses other parameters", async () => {
    const current = await hashPassword("pw-current");
    expect(await verifyPassword("pw-current", current)).toEqual({ ok: true, needsRehash: false });
    const old = await hashPassword("pw-old", 50_000);
    expect(await verifyPassword("pw-old", old)).toEqual({ ok: true, needsRehash: true });
    expect((await verifyPassword("wrong", old)).needsRehash).toBe(false);
  });

  it("refuses malformed or unsupported stored hashes without throwing", async () => {
    const good = await hashPassword("pw", 1000);
    const [, , salt, hash] = good.split("$");
    const bad = [
      "",
      "plaintext",
      `bcrypt$i=1000$${salt}$${hash}`,
      `pbkdf2-sha256$i=0$${salt}$${hash}`,
      `pbkdf2-sha256$i=100001$${salt}$${hash}`, // above what Workers allow
      `pbkdf2-sha256$i=abc$${salt}$${hash}`,
      `pbkdf2-sha256$${salt}$${hash}`,
      `pbkdf2-sha256$i=1000$${salt}$${hash}$extra`,
      `pbkdf2-sha256$i=1000$${salt}$${base64url(new Uint8Array(16))}`, // hash of the wrong length
    ];
    for (const stored of bad) expect(await verifyPassword("pw", stored), stored).toEqual({ ok: false, needsRehash: false });
  });

  it("burnPasswordCheck spends the work without failing", async () => {
    await expect(burnPasswordCheck("anything")).resolves.toBeUndefined();
  });
});
