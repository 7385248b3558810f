// The API's authentication: a thin adapter over auth/principal.ts, which resolves and checks credentials.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../platform/env";
import { resolvePrincipal } from "./principal";

export const authenticate = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set("principal", await resolvePrincipal(c.env, c.var.dbs.directory(), c.req.raw, c.executionCtx));
    await next();
  });
