// `npm run admin` (scripts/admin.mjs) changes a local account through PATCH /api/v1/dev/users, which runs the code of
// PATCH /admin/users/:id: the request the script builds (scripts/admin-request.mjs) is sent here to the worker with
// the edge-cached records on, and the very next request of the account has the new plan and role. The script used
// to write D1 itself, and the cached account record kept the old plan for up to 30 s.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { adminRequest } from "../../scripts/admin-request.mjs";
import { BASE, signup, verifiedUser } from "../support/api";
import { recordsOn } from "../support/records";
import { auditFor, planChangesOf, userRow } from "./helpers";

/** A request to the worker with the records on (filled after the answer, so the next one may use them). */
async function send(url: string, init: RequestInit = {}, bindings: Partial<Env> = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init) as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, ...bindings }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const asUser = (token: string, path: string) => send(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } });
const script = (change: Parameters<typeof adminRequest>[0]) => {
  const { url, init } = adminRequest(change);
  return send(url, init);
};

describe("npm run admin's request", () => {
  it("a plan change reaches the account's very next request, with the history and audit of PATCH /admin/users/:id", async () => {
    const user = await verifiedUser();
    const limit = async () => Number((await asUser(user.access, "/billing/plans")).headers.get("x-ratelimit-limit"));
    const free = await limit();
    expect(await limit()).toBe(free); // the account's record is warm
    expect((await asUser(user.access, "/account")).body.user.plan).toBe("free");

    const res = await script({ email: user.email.toUpperCase(), plan: "pro" });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, plan: "pro", role: "user" });
    expect((await asUser(user.access, "/account")).body.user.plan).toBe("pro");
    expect(await limit()).toBe(free * 10);
    expect(await planChangesOf(user.id)).toMatchObject([{ from_plan: "free", to_plan: "pro", provider: "cli", status: "applied", decided_by: null }]);
    expect((await auditFor(user.id)).map((a) => [a.action, a.actor_id, a.details])).toContainEqual(["user.plan_change", null, { from: "free", to: "pro" }]);

    // The downgrade too, at once.
    expect((await script({ email: user.email, plan: "free" })).status).toBe(200);
    expect(await limit()).toBe(free);
  });

  it("a role change reaches the next request: the first admin is made this way", async () => {
    const user = await verifiedUser();
    expect((await asUser(user.access, "/admin/users")).status).toBe(403); // warm, and refused
    expect((await script({ email: user.email, role: "admin" })).status).toBe(200);
    expect((await asUser(user.access, "/admin/users")).status).toBe(200);
    expect((await userRow(user.id))?.role).toBe("admin");
  });

  it("404 for an unknown address, 400 for a bad plan", async () => {
    const missing = await script({ email: "nobody-here@example.com", plan: "pro" });
    expect([missing.status, missing.body.details.code]).toEqual([404, "user_not_found"]);
    const user = await signup();
    const bad = await script({ email: user.email, plan: "gold" });
    expect([bad.status, bad.body.details.code]).toEqual([400, "validation_error"]);
  });

  it("answers only in development, to a loopback host (like the dev outbox)", async () => {
    const user = await verifiedUser();
    const { url, init } = adminRequest({ email: user.email, role: "admin" });
    const elsewhere = await send(url.replace("localhost:8787", "imghost.example"), init);
    expect(elsewhere.status).toBe(404);
    const production = await send(url, init, { ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "" });
    expect(production.status).toBe(404);
    expect((await userRow(user.id))?.role).toBe("user");
  });
});
