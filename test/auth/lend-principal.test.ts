// The pages resolve their session once per page request and lend the principal to each in-process API call
// (auth/principal.ts lendPrincipal): the API then trusts it without reading the session again. Only an execution
// context made in this worker can carry one; the same request with workerd's own context is checked as usual.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app";
import { lendPrincipal, resolvePrincipal } from "../../src/auth/principal";
import { directoryDb } from "../../src/platform/data/db";
import { BASE, signup } from "../support/api";

const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;

describe("lendPrincipal", () => {
  it("lets an in-process request skip the session check, and only through the context lent to it", async () => {
    const user = await signup();
    const real = new Request(`${BASE}/account`, { headers: { authorization: `Bearer ${user.access}` } });
    const principal = await resolvePrincipal(env, () => directoryDb(env), real);
    expect(principal.kind).toBe("session");

    const app = createApp();
    const forged = () => new Request(`${BASE}/account`, { headers: { authorization: "Bearer not.a.jwt" } });
    const ok = await app.fetch(forged(), env, lendPrincipal(ctx, principal));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { user: { email: string } }).user.email).toBe(user.email);

    // The same request with a plain context: checked, and refused.
    expect((await app.fetch(forged(), env, ctx)).status).toBe(401);
  });
});
