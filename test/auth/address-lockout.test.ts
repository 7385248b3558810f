// Knowing an address is not enough to lock its owner out: wrong passwords are counted strictly per (address, IP)
// and only loosely per address (a ceiling that still bounds a guess spread over many IPs); a passkey's answer is
// never refused for the address's password count; a successful reset clears the address's count.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PASSWORD, signup } from "../support/api";
import { freshIp, requestReset, resetPassword } from "../support/password";
import { startOfNextWindow } from "../support/clock";
import { login } from "../support/totp";
import { signInWith, withPasskey } from "../support/passkeys";
import { LOGIN_LIMITS } from "../../src/config/auth";

const NEW_PASSWORD = "a completely new passphrase";

/** Wrong passwords for `email` until the address's ceiling is reached, spread over IPs each below its own limit. */
async function fillAddressCeiling(email: string): Promise<void> {
  for (let sent = 0; sent < LOGIN_LIMITS.failuresPerAddress; ) {
    const ip = freshIp();
    for (let i = 0; i < LOGIN_LIMITS.failuresPerAddressAndIp && sent < LOGIN_LIMITS.failuresPerAddress; i++, sent++) {
      expect((await login(email, `wrong ${sent} password`, ip)).status, `guess ${sent + 1}`).toBe(401);
    }
  }
  const refused = await login(email, PASSWORD, freshIp());
  expect(refused.status).toBe(429);
  expect(refused.headers.get("x-ratelimit-limit")).toBe(String(LOGIN_LIMITS.failuresPerAddress));
}

describe("the address's lockout", () => {
  let restoreClock: () => void;
  beforeEach(() => {
    restoreClock = startOfNextWindow(LOGIN_LIMITS.windowSeconds);
  });
  afterEach(() => restoreClock());

  it("a stranger's wrong passwords from one IP stop that IP, not the owner at another", async () => {
    const owner = await signup();
    const stranger = freshIp();
    for (let i = 0; i < LOGIN_LIMITS.failuresPerAddressAndIp; i++) expect((await login(owner.email, `guess ${i} password`, stranger)).status).toBe(401);
    const refused = await login(owner.email, PASSWORD, stranger);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe(String(LOGIN_LIMITS.failuresPerAddressAndIp));
    expect((await login(owner.email, PASSWORD, freshIp())).status).toBe(200);
  });

  it("a guess spread over many IPs is still bounded per address", async () => {
    expect(LOGIN_LIMITS.failuresPerAddress).toBeGreaterThan(LOGIN_LIMITS.failuresPerAddressAndIp);
    await fillAddressCeiling((await signup()).email);
  });

  it("a passkey signs in while the address is at its password limit", async () => {
    const owner = await signup();
    const { authenticator } = await withPasskey(owner);
    await fillAddressCeiling(owner.email);
    expect((await signInWith(authenticator)).status).toBe(200);
  });

  it("a successful reset clears the address's count: the new password signs in at once", async () => {
    const owner = await signup();
    await fillAddressCeiling(owner.email);
    const token = await requestReset(owner.email);
    expect((await resetPassword(token, NEW_PASSWORD)).status).toBe(200);
    expect((await login(owner.email, NEW_PASSWORD, freshIp())).status).toBe(200);
  });
});
