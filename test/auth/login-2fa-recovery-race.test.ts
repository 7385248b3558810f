// A double-submitted second step (extensions.md §5): parallel POST /auth/login/2fa with one mfaToken and several
// recovery codes. One signs in; the others answer 401 invalid_mfa_token and spend nothing, because the token is
// claimed before a recovery code is spent (auth/second-factor.ts recoveryProofOk).
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, signup } from "../support/api";
import { atNextStep, enableTotp, factorStatus, mfaTokenFor, secondStep } from "../support/totp";

afterEach(() => vi.useRealTimers());

describe("the mfaToken and recovery codes under concurrency", () => {
  it("one token, several recovery codes at once: only the code that opened the session is spent (repeated trials)", async () => {
    atNextStep();
    const user = await signup();
    let unspent = (await enableTotp(user)).recoveryCodes;
    for (let trial = 0; trial < 3; trial++) {
      const token = await mfaTokenFor(user.email, PASSWORD);
      const tried = unspent.slice(0, 3);
      const results = await Promise.all(tried.map((code) => secondStep(token, code)));
      const winner = results.findIndex((r) => r.status === 200);
      expect(results.map((r) => r.status).sort(), `trial ${trial}`).toEqual([200, 401, 401]);
      for (const r of results.filter((r) => r.status !== 200)) expect(r.body.details.code, `trial ${trial}`).toBe("invalid_mfa_token");
      unspent = unspent.filter((c) => c !== tried[winner]);
      expect((await factorStatus(user.access)).body.recoveryCodesRemaining, `trial ${trial}`).toBe(unspent.length);
    }
    // The losers' codes still sign in.
    expect((await secondStep(await mfaTokenFor(user.email, PASSWORD), unspent[0])).status).toBe(200);
  });
});
