// /billing/plans, /billing/subscription (manual provider) and the admins' decisions on plan changes.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, isErrorBody, verifiedUser, type TestUser } from "../support/api";
import { auditFor, planChangesOf, roleCast, userRow, userWithRole } from "../admin/helpers";

let cast: Awaited<ReturnType<typeof roleCast>>;
beforeAll(async () => {
  cast = await roleCast();
});

const apiKeyRefused = (res: { status: number; body: any }) => {
  expect(res.status).toBe(403);
  expect(res.body.error).toBe("Forbidden");
  expect(res.body.message).toContain("API keys can only access");
};

describe("GET /billing/plans", () => {
  it("lists the plans with their limits", async () => {
    const res = await call("/billing/plans", { token: cast.user.access });
    expect(res.status).toBe(200);
    expect(res.body.plans).toEqual([
      { id: "free", name: "Free", uploadsPerHour: 20, apiCallsPerHour: 1_000, maxFileBytes: 20_000_000, storageQuotaBytes: 2_000_000_000 },
      { id: "pro", name: "Pro", uploadsPerHour: 100, apiCallsPerHour: 10_000, maxFileBytes: 200_000_000, storageQuotaBytes: 200_000_000_000 },
      { id: "enterprise", name: "Enterprise", uploadsPerHour: 1_000, apiCallsPerHour: 100_000, maxFileBytes: 2_000_000_000, storageQuotaBytes: 5_000_000_000_000 },
    ]);
    expect(res.body.anonymous).toMatchObject({ id: "anonymous", uploadsPerHour: 5, apiCallsPerHour: 100, storageQuotaBytes: null });
  });

  it("is session-only", async () => {
    apiKeyRefused(await call("/billing/plans", { token: cast.adminKey }));
    const anon = await call("/billing/plans");
    expect(anon.status).toBe(401);
    expect(isErrorBody(anon.body)).toBe(true);
  });
});

describe("POST /billing/subscription (manual provider)", () => {
  let u: TestUser;
  beforeAll(async () => {
    u = await verifiedUser();
  });

  it("records an upgrade as a pending request; the plan stays until an admin approves", async () => {
    const res = await call("/billing/subscription", { token: u.access, body: { plan: "pro" } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "pending", plan: "free", planChange: { userId: u.id, fromPlan: "free", toPlan: "pro", status: "pending", provider: "manual", decidedAt: null } });
    expect(res.body.planChange.id).toMatch(/^pch_[A-Za-z0-9_-]{21}$/);
    expect((await userRow(u.id))?.plan).toBe("free");
    const sub = await call("/billing/subscription", { token: u.access });
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({ plan: "free", provider: "manual", pendingChange: { id: res.body.planChange.id, toPlan: "pro" } });
    // Asking again keeps the one request.
    const again = await call("/billing/subscription", { token: u.access, body: { plan: "pro" } });
    expect(again.body.planChange.id).toBe(res.body.planChange.id);
    // A different upgrade supersedes it.
    const other = await call("/billing/subscription", { token: u.access, body: { plan: "enterprise" } });
    expect(other.status).toBe(202);
    const rows = await planChangesOf(u.id);
    expect(rows.map((r) => [r.to_plan, r.status])).toEqual([
      ["pro", "cancelled"],
      ["enterprise", "pending"],
    ]);
  });

  it("asking for the current plan cancels a pending request", async () => {
    const res = await call("/billing/subscription", { token: u.access, body: { plan: "free" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "unchanged", plan: "free", planChange: null });
    expect(res.body.message).toContain("cancelled");
    expect((await call("/billing/subscription", { token: u.access })).body.pendingChange).toBeNull();
  });

  it("applies a downgrade at once", async () => {
    const pro = await userWithRole("user", "enterprise");
    const res = await call("/billing/subscription", { token: pro.access, body: { plan: "pro" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "applied", plan: "pro", planChange: { fromPlan: "enterprise", toPlan: "pro", status: "applied" } });
    expect((await userRow(pro.id))?.plan).toBe("pro");
    const free = await call("/billing/subscription", { token: pro.access, body: { plan: "free" } });
    expect(free.body).toMatchObject({ status: "applied", plan: "free" });
    expect((await call("/account/limits", { token: pro.access })).body.plan).toBe("free");
  });

  it("validates the body", async () => {
    for (const body of [{}, { plan: "gold" }, { plan: "pro", card: "4242424242424242" }, { plan: 1 }]) {
      const res = await call("/billing/subscription", { token: u.access, body });
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    const raw = await call("/billing/subscription", { token: u.access, raw: "{nope", headers: { "content-type": "application/json" } });
    expect(raw.status).toBe(400);
  });

  it("is session-only", async () => {
    apiKeyRefused(await call("/billing/subscription", { token: cast.adminKey, body: { plan: "pro" } }));
    apiKeyRefused(await call("/billing/subscription", { token: cast.adminKey }));
    expect((await call("/billing/subscription", { body: { plan: "pro" } })).status).toBe(401);
  });
});

describe("admin decisions on plan changes", () => {
  async function pendingFor(user: TestUser, plan = "pro") {
    const res = await call("/billing/subscription", { token: user.access, body: { plan } });
    expect(res.status).toBe(202);
    return res.body.planChange.id as string;
  }

  it("approve changes the plan, records the decision and audits it", async () => {
    const u = await verifiedUser();
    const id = await pendingFor(u);
    const list = await call("/admin/plan-changes?status=pending", { token: cast.admin.access });
    expect(list.status).toBe(200);
    expect(list.body.planChanges.map((p: any) => p.id)).toContain(id);
    const res = await call(`/admin/plan-changes/${id}/approve`, { token: cast.admin.access, body: { note: "paid by invoice 17" } });
    expect(res.status).toBe(200);
    expect(res.body.planChange).toMatchObject({ id, status: "applied", toPlan: "pro" });
    expect((await userRow(u.id))?.plan).toBe("pro");
    const limits = await call("/account/limits", { token: u.access });
    expect(limits.body).toMatchObject({ plan: "pro", rateLimits: { uploads: { limit: 100 * Number(env.RATE_LIMIT_MULTIPLIER) } } });
    const audit = await auditFor(id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: cast.admin.id, action: "plan_change.approve", target_type: "plan_change" });
    expect(audit[0].details).toMatchObject({ userId: u.id, fromPlan: "free", toPlan: "pro", note: "paid by invoice 17" });
    // Decided once.
    const again = await call(`/admin/plan-changes/${id}/reject`, { token: cast.admin.access, method: "POST" });
    expect(again.status).toBe(409);
    expect(again.body.details.code).toBe("plan_change_decided");
  });

  it("reject leaves the plan and audits it", async () => {
    const u = await verifiedUser();
    const id = await pendingFor(u, "enterprise");
    const res = await call(`/admin/plan-changes/${id}/reject`, { token: cast.admin.access, method: "POST" });
    expect(res.status).toBe(200);
    expect(res.body.planChange.status).toBe("rejected");
    expect((await userRow(u.id))?.plan).toBe("free");
    expect((await auditFor(id)).map((a) => a.action)).toEqual(["plan_change.reject"]);
    expect((await call("/billing/subscription", { token: u.access })).body.pendingChange).toBeNull();
  });

  it("two admins deciding at once: exactly one wins", async () => {
    const u = await verifiedUser();
    const id = await pendingFor(u);
    const other = await userWithRole("admin");
    const replies = await Promise.all([
      call(`/admin/plan-changes/${id}/approve`, { token: cast.admin.access, method: "POST" }),
      call(`/admin/plan-changes/${id}/reject`, { token: other.access, method: "POST" }),
      call(`/admin/plan-changes/${id}/approve`, { token: other.access, method: "POST" }),
    ]);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(2);
    expect(await auditFor(id)).toHaveLength(1);
    const winner = replies.find((r) => r.status === 200)!.body.planChange.status;
    expect((await userRow(u.id))?.plan).toBe(winner === "applied" ? "pro" : "free");
  });

  it("unknown ids are 404", async () => {
    const res = await call("/admin/plan-changes/pch_V1StGXR8_Z5jdHi6B-myT/approve", { token: cast.admin.access, method: "POST" });
    expect(res.status).toBe(404);
  });

  it("only admins with a session may decide", async () => {
    const u = await verifiedUser();
    const id = await pendingFor(u);
    for (const who of [cast.user, cast.moderator]) {
      const res = await call(`/admin/plan-changes/${id}/approve`, { token: who.access, method: "POST" });
      expect(res.status).toBe(403);
      expect(res.body.details.code).toBe("insufficient_role");
    }
    apiKeyRefused(await call(`/admin/plan-changes/${id}/approve`, { token: cast.adminKey, method: "POST" }));
    apiKeyRefused(await call("/admin/plan-changes", { token: cast.adminKey }));
    expect((await call(`/admin/plan-changes/${id}/approve`, { method: "POST" })).status).toBe(401);
    expect((await call("/admin/plan-changes", { token: cast.moderator.access })).status).toBe(403);
    expect((await userRow(u.id))?.plan).toBe("free");
  });
});
