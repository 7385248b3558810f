import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../platform/http/env";
import { randomId } from "../platform/data/ids";

const SAFE_ID = /^[A-Za-z0-9_.:-]{8,64}$/;

/** Tags every response with X-Request-Id; a well-formed incoming id (from a proxy) is kept for tracing. */
export const requestId = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming && SAFE_ID.test(incoming) ? incoming : `req_${randomId()}`;
    c.set("requestId", id);
    await next();
    c.res.headers.set("X-Request-Id", id);
  });
