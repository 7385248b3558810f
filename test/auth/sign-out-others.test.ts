// "Sign out everywhere else" (POST /auth/logout/others): turning a factor on does not end the sessions opened before
// it (perhaps by whoever knew the password), so the pages offer this right there. Every other session of the
// account ends, access and refresh tokens, warm edge records included; the caller's stays.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { BASE, PASSWORD, call, createKey, signup, verifiedUser } from "../support/api";
import { recordsOn } from "../support/records";
import { unreachableBindings } from "../support/unreachable";
import { atNextStep, enableTotp } from "../support/totp";
import { withPasskey } from "../support/passkeys";

afterEach(() => vi.useRealTimers());

const refresh = (token: string) => call("/auth/refresh", { body: { refresh_token: token } });
const signOutOthers = (token: string) => call("/auth/logout/others", { method: "POST", token });
/**
 * GET /billing/plans with the edge records on (filling them), then decided from the records alone (D1 and the
 * Durable Objects unreachable; the rate limiter off, as its object would never answer).
 */
async function warm(token: string): Promise<number[]> {
  const statuses: number[] = [];
  for (const offline of [false, true]) {
    const ctx = createExecutionContext();
    const bindings = { ...recordsOn, RATE_LIMIT_MULTIPLIER: "off", ...(offline ? unreachableBindings(env).bindings : {}) };
    const req = new Request(`${BASE}/billing/plans`, { headers: { authorization: `Bearer ${token}` } }) as Request<unknown, IncomingRequestCfProperties>;
    const res = await worker.fetch(req, bindings, ctx);
    await res.arrayBuffer();
    if (!offline) await waitOnExecutionContext(ctx); // the records are written after the answer
    statuses.push(res.status);
  }
  return statuses;
}

describe("POST /auth/logout/others", () => {
  for (const factor of ["TOTP", "a passkey"] as const) {
    it(`after ${factor} is turned on: the sessions from before end at once (warm ones too), the caller's stays`, async () => {
      atNextStep();
      const owner = await signup();
      const before = (await call("/auth/login", { body: { email: owner.email, password: PASSWORD } })).body.session;
      expect(await warm(before.access_token)).toEqual([200, 200]);
      if (factor === "TOTP") await enableTotp(owner);
      else await withPasskey(owner);
      expect(await warm(before.access_token)).toEqual([200, 200]); // the factor alone ends nothing

      const res = await signOutOthers(owner.access);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: "Signed out 1 other session", revoked: 1 });
      expect(await warm(before.access_token)).toEqual([401, 401]);
      expect((await refresh(before.refresh_token)).body.details.code).toBe("session_revoked");
      expect((await call("/account", { token: owner.access })).status).toBe(200);
      expect((await refresh(owner.refresh)).status).toBe(200);
      expect((await signOutOthers(owner.access)).body.revoked).toBe(0);
    });
  }

  it("session-only: an API key gets 403, no credentials 401", async () => {
    const owner = await verifiedUser();
    const { key } = await createKey(owner, { permissions: ["read", "upload", "manage"] });
    expect((await signOutOthers(key)).status).toBe(403);
    expect((await call("/auth/logout/others", { method: "POST" })).status).toBe(401);
  });
});
