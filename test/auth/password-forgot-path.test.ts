// POST /auth/password/forgot takes one code path for every address before it answers (extensions.md §7: "the
// same timing"): shown on the binding calls each request made until its answer was handed back, not on a clock.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, signup, uniqueEmail } from "../support/api";
import { freshIp, resetMails } from "../support/password";
import { tracedEnv } from "../support/binding-trace";
import worker from "../../src/index";

const FORGOT_ANSWER = { message: "If an account uses this address, a link to reset its password is on its way. It works for 1 hour." };

describe("POST /auth/password/forgot: one code path before the answer", () => {
  // What each request did on its bindings (D1 statements, Durable Object calls, queue sends) until its answer was
  // handed back: the same list for a known and an unknown address, and no lookup of the address in it.
  const traceUntilAnswer = async (email: string) => {
    const trace: string[] = [];
    const ctx = createExecutionContext();
    const req = new Request(`${BASE}/auth/password/forgot`, { method: "POST", headers: { "content-type": "application/json", "cf-connecting-ip": freshIp() }, body: JSON.stringify({ email }) });
    const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, tracedEnv(env, trace), ctx);
    const untilAnswer = [...trace];
    expect([res.status, await res.text()]).toEqual([202, JSON.stringify(FORGOT_ANSWER)]);
    await waitOnExecutionContext(ctx);
    return untilAnswer;
  };

  it("a known and an unknown address make the same binding calls before the answer; the address is looked up after it", async () => {
    const user = await signup();
    await traceUntilAnswer(uniqueEmail("warm")); // a first request may fill what later ones reuse
    const known = await traceUntilAnswer(user.email);
    const unknown = await traceUntilAnswer(uniqueEmail("nobody"));
    expect(known.filter((call) => /users|email_tokens|outbox/i.test(call))).toEqual([]);
    expect(known).toEqual(unknown);
    expect(known).toContain("JOBS.send password_reset"); // the address goes to the queue, whose consumer looks it up
    // The known address's work was still done, after the answer.
    expect(await resetMails(user.email)).toHaveLength(1);
  });
});
