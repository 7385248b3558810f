// The API's authentication: a thin adapter over auth/principal.ts, which resolves and checks credentials, and the
// stricter session check of the routes that change how the account signs in.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../platform/http/env";
import { sessionPrincipal } from "../middleware/guards";
import { liveSessionAtPrimary, resolvePrincipal } from "./principal";

export const authenticate = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set("principal", await resolvePrincipal(c.env, () => c.get("dbs").directory(), c.req.raw, c.executionCtx));
    await next();
  });

/** After sessionOnly(), for changes a stale principal record must not allow: the session checked at D1's primary. */
export const sessionLiveAtPrimary = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const p = sessionPrincipal(c.get("principal"));
    await liveSessionAtPrimary(c.env, p.user.id, p.sessionId);
    await next();
  });
