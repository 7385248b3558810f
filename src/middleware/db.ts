import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { createDb } from "../platform/db";

/** A drizzle handle per request (cheap: it wraps the D1 binding, no connection is opened). */
export const dbHandle = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set("db", createDb(c.env.DB));
    await next();
  });
