// Removing a second factor ends what it may have opened: every other session of the account is revoked (access
// and refresh tokens, edge records forgotten), the caller's own session stays.
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, call, signup } from "../support/api";
import { atNextStep, codeAt, enableTotp, mfaTokenFor, secondStep, turnOff } from "../support/totp";
import { removePasskey, signInWith, withPasskey } from "../support/passkeys";

afterEach(() => vi.useRealTimers());

const refresh = (token: string) => call("/auth/refresh", { body: { refresh_token: token } });
const account = (token: string) => call("/account", { token });

describe("removing a factor", () => {
  it("a passkey's removal from another session ends the sessions it opened (access and refresh); the caller's stays", async () => {
    const owner = await signup();
    const { passkey, authenticator } = await withPasskey(owner);
    const opened = (await signInWith(authenticator)).body.session;
    expect((await account(opened.access_token)).status).toBe(200);

    expect((await removePasskey(owner.access, passkey.id, { password: PASSWORD })).status).toBe(200);
    expect((await account(opened.access_token)).status).toBe(401);
    expect((await refresh(opened.refresh_token)).status).toBe(401);
    expect((await account(owner.access)).status).toBe(200);
    expect((await refresh(owner.refresh)).status).toBe(200);
  });

  it("turning TOTP off ends the sessions its codes opened; the caller's stays", async () => {
    const now = atNextStep();
    const owner = await signup();
    const { secret } = await enableTotp(owner);
    const opened = (await secondStep(await mfaTokenFor(owner.email, PASSWORD), codeAt(secret, now))).body.session;
    expect((await account(opened.access_token)).status).toBe(200);

    expect((await turnOff(owner.access, { password: PASSWORD })).status).toBe(200);
    expect((await account(opened.access_token)).status).toBe(401);
    expect((await refresh(opened.refresh_token)).status).toBe(401);
    expect((await account(owner.access)).status).toBe(200);
  });
});
