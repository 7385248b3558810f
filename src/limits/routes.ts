// GET /account/limits: the caller's plan, size limit, storage quota and both rate-limit buckets.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import { eq } from "drizzle-orm";
import type { AppEnv } from "../platform/http/env";
import { callerUser, signedIn } from "../middleware/guards";
import { bearer, errors, json } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { PLAN_LIMITS } from "../config";
import { owners } from "../db/schema";
import { limiterFor, type LimitState } from "./rate-limiter";
import { leases } from "./leases";
import { LimitsBody } from "./schemas";
import { bucketsFor, multiplierOf, subjectOf, WINDOW_SECONDS } from "./policy";

export const limitRoutes = apiRouter();
export const limitMount = mountAt("/account", limitRoutes);

const bucket = (s: LimitState | undefined) => ({
  limit: s?.limit ?? null,
  remaining: s?.remaining ?? null,
  reset: s?.reset ?? null,
  windowSeconds: WINDOW_SECONDS,
});

limitRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/limits",
    operationId: "account.limits",
    tags: ["Account"],
    summary: "The caller's plan limits, storage quota and rate-limit buckets",
    description:
      "Works with a session or an API key (any permission). Both buckets are as they stand after counting this request " +
      "(as the answering server last heard from the limiter; the same figures as the X-RateLimit-* headers); " +
      "reading them consumes nothing else.",
    security: bearer,
    middleware: [signedIn()] as const,
    responses: { 200: json(LimitsBody, "Limits"), ...errors(401, 429) },
  }),
  async (c) => {
    const principal = c.get("principal");
    const caller = callerUser(principal);
    // The plan from the principal, the usage from the owner's shard: no directory read. No row there: no upload yet.
    const usage = await c.get("dbs")
      .shard(caller.shard)
      .select({ used: owners.storageUsed, reserved: owners.storageReserved })
      .from(owners)
      .where(eq(owners.userId, caller.id))
      .get();
    const row = { plan: caller.plan, used: usage?.used ?? 0, reserved: usage?.reserved ?? 0 };
    // The rate-limit middleware counted this request; the object is asked only about a bucket this isolate
    // has not heard of in this window.
    let limits = c.get("rateLimits");
    const multiplier = multiplierOf(c.env);
    if ((!limits || !limits.uploads) && multiplier !== "off") {
      const b = bucketsFor(row.plan, multiplier);
      const subject = subjectOf(principal).subject;
      const specs = limits ? [b.uploads] : [b.api, b.uploads];
      const states = await leases.lookUp(limiterFor(c.env, subject), subject, specs);
      limits = limits ? { ...limits, uploads: states[0] } : { api: states[0], uploads: states[1] };
    }
    const plan = PLAN_LIMITS[row.plan];
    const total = plan.storageQuotaBytes ?? 0;
    return c.json(
      {
        plan: row.plan,
        maxFileBytes: plan.maxFileBytes,
        quota: { used: row.used, reserved: row.reserved, total, remaining: Math.max(0, total - row.used - row.reserved) },
        rateLimits: { apiCalls: bucket(limits?.api), uploads: bucket(limits?.uploads) },
      },
      200,
    );
  },
);
