// Development-only helpers. Mounted for every environment, but answer 404 unless ENVIRONMENT is
// development or test, so a production deployment never exposes them.
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { isDevEnvironment, type AppEnv } from "../platform/env";
import { ApiError } from "../platform/errors";
import { json } from "../platform/openapi";
import { apiRouter } from "../platform/router";
import { readOutbox } from "../mail/outbox";
import { normalizeEmail } from "../auth/service";

export const devRoutes = apiRouter();

const devOnly = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!isDevEnvironment(c.env)) throw new ApiError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
    await next();
  });

devRoutes.openapi(
  createRoute({
    method: "get",
    path: "/outbox",
    hide: true,
    middleware: [devOnly()] as const,
    request: { query: z.object({ to: z.string().min(1).max(254) }) },
    responses: {
      200: json(z.object({ messages: z.array(z.object({ to: z.string(), subject: z.string(), text: z.string(), createdAt: z.string() })) }), "Mail"),
    },
  }),
  async (c) => c.json({ messages: await readOutbox(c.var.dbs.directory(), normalizeEmail(c.req.valid("query").to)) }, 200),
);
