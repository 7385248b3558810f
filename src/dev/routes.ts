// Development-only helpers. Mounted for every environment, but answer 404 unless ENVIRONMENT is
// development or test AND the request came to this machine (a loopback host): a deployment that kept
// wrangler.toml's default ENVIRONMENT = "development" still never shows anyone its outbox (reset links), nor lets
// anyone change an account.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import { createMiddleware } from "hono/factory";
import { isDevEnvironment, type AppEnv } from "../platform/http/env";
import { ApiError } from "../platform/errors/errors";
import { json } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { readOutbox } from "../mail/outbox";
import { normalizeEmail } from "../auth/service";
import { findLiveUserByEmail } from "../auth/queries";
import { updateUser } from "../admin/users";
import { AdminUser, PlanId, RoleId } from "../admin/schemas";

export const devRoutes = apiRouter();
export const devMount = mountAt("/dev", devRoutes);

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

const devOnly = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const url = new URL(c.req.url);
    if (!isDevEnvironment(c.env) || !LOOPBACK.has(url.hostname)) throw new ApiError("not_found", `No route for ${c.req.method} ${url.pathname}`);
    await next();
  });

/** A mail as written (the text keeps its token here), with how its delivery went (mail/deliver.ts). */
const DevMail = z.object({
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.number().int(),
  messageId: z.string().nullable(),
  createdAt: z.string(),
});

devRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/outbox",
    operationId: "dev.outbox",
    hide: true,
    middleware: [devOnly()] as const,
    request: { query: z.object({ to: z.string().min(1).max(254) }) },
    responses: {
      200: json(z.object({ messages: z.array(DevMail) }), "Mail"),
    },
  }),
  async (c) => c.json({ messages: await readOutbox(c.get("dbs").directory(), normalizeEmail(c.req.valid("query").to)) }, 200),
);

// `npm run admin` (scripts/admin.mjs): a local account's role or plan, changed by updateUser as PATCH
// /admin/users/:id changes it (history, audit, and the account's edge records forgotten before the answer), with
// no admin to act: the script is how the first one is made.
devRoutes.openapi(
  defineRoute({
    method: "patch",
    path: "/users",
    operationId: "dev.updateUser",
    hide: true,
    middleware: [devOnly()] as const,
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: z.object({ email: z.string().min(1).max(254), role: RoleId.optional(), plan: PlanId.optional() }).strict() } },
      },
    },
    responses: { 200: json(z.object({ user: AdminUser }), "Updated") },
  }),
  async (c) => {
    const { email, ...patch } = c.req.valid("json");
    const dbs = c.get("dbs").directoryAndShards();
    const found = await findLiveUserByEmail(dbs.directory, normalizeEmail(email));
    if (!found) throw new ApiError("user_not_found", "No live account has this address");
    return c.json({ user: await updateUser(dbs, c.env, { actorId: null, provider: "cli" }, found.id, patch) }, 200);
  },
);
