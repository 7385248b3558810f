// Response headers every address gets (Hono's secure-headers), and the API's CORS policy.
import { createMiddleware } from "hono/factory";
import { secureHeaders } from "hono/secure-headers";
import { cors } from "hono/cors";
import type { AppEnv } from "../platform/env";

// Headers a route already set win (overwrite: false): pages send their own CSP and X-Frame-Options, and
// byte links their Cross-Origin-Resource-Policy: cross-origin (images are embedded everywhere).
const common = { overwrite: false, crossOriginResourcePolicy: false } as const;
const withHsts = secureHeaders({ ...common, strictTransportSecurity: "max-age=31536000; includeSubDomains" });
const withoutHsts = secureHeaders({ ...common, strictTransportSecurity: false });

/** nosniff and friends everywhere; HSTS only in production (locally everything is plain http). */
export const securityHeaders = () =>
  createMiddleware<AppEnv>((c, next) => (c.env.ENVIRONMENT === "production" ? withHsts : withoutHsts)(c, next));

/**
 * Browser clients on other origins may call the API with Bearer credentials: any origin, never cookies
 * (the API reads none; the web app's cookie routes under /app get no CORS headers and stay same-origin).
 * Preflights are answered here, before authentication and rate limiting.
 */
export const apiCors = () =>
  cors({
    origin: "*",
    credentials: false,
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", "X-Album-Password", "X-Delete-Token", "If-None-Match", "X-D1-Bookmark", "X-Request-Id"],
    exposeHeaders: ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "X-Request-Id", "ETag", "Content-Disposition", "X-D1-Bookmark"],
    maxAge: 86400,
  });
