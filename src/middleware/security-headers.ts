// Response headers every address gets (Hono's secure-headers), and the API's CORS policy.
import { createMiddleware } from "hono/factory";
import { secureHeaders } from "hono/secure-headers";
import { cors } from "hono/cors";
import type { AppEnv } from "../platform/http/env";
import type { RouteMatcher } from "../platform/http/route-traits";
import { setAnswerHeaders } from "../platform/http/answer-headers";
import { TUS_REQUEST_HEADERS, TUS_RESPONSE_HEADERS } from "../platform/http/tus-headers";
import { config } from "../config/env";

// Headers a route already set win (overwrite: false): pages send their own CSP and X-Frame-Options, and
// byte links their Cross-Origin-Resource-Policy: cross-origin (images are embedded everywhere).
const common = { overwrite: false, crossOriginResourcePolicy: false } as const;
// JSON is never a document: the API gets the headers OWASP's REST cheat sheet names (nosniff, no framing; HSTS),
// not those that only act on pages (COOP, Origin-Agent-Cluster, DNS prefetch, IE8's download and XSS options).
const forJson = {
  ...common, xFrameOptions: "DENY", crossOriginOpenerPolicy: false, originAgentCluster: false, referrerPolicy: false,
  xDnsPrefetchControl: false, xDownloadOptions: false, xPermittedCrossDomainPolicies: false, xXssProtection: false,
} as const;
const HSTS = "max-age=31536000; includeSubDomains";
const headers = {
  production: { api: secureHeaders({ ...forJson, strictTransportSecurity: HSTS }), other: secureHeaders({ ...common, strictTransportSecurity: HSTS }) },
  local: { api: secureHeaders({ ...forJson, strictTransportSecurity: false }), other: secureHeaders({ ...common, strictTransportSecurity: false }) },
};

/** nosniff everywhere, and the rest of Hono's set where it applies; HSTS only in production (locally all is http). */
export const securityHeaders = () =>
  createMiddleware<AppEnv>((c, next) => {
    const set = config(c.env).environment === "production" ? headers.production : headers.local;
    return (c.req.path.startsWith("/api/") ? set.api : set.other)(c, next);
  });

const corsHeaders = {
  allowHeaders: ["Authorization", "Content-Type", "X-Album-Password", "X-Delete-Token", "If-None-Match", "X-D1-Bookmark", "X-Request-Id", ...TUS_REQUEST_HEADERS],
  exposeHeaders: ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "X-Request-Id", "ETag", "Content-Disposition", "X-D1-Bookmark", ...TUS_RESPONSE_HEADERS],
};
const apiCorsPolicy = cors({
  origin: "*",
  credentials: false,
  allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
  ...corsHeaders,
  maxAge: 86400,
});

const answerCors = [["Access-Control-Allow-Origin", "*"], ["Access-Control-Expose-Headers", corsHeaders.exposeHeaders.join(",")]] as const;

/**
 * CORS for Bearer credentials from any origin, never cookies (the API reads none; the web app's /app routes get no
 * CORS headers). Preflights are answered here by Hono's cors, before authentication and rate limiting; a non-preflight
 * OPTIONS to a route of its own (`hasOptionsRoute`: tus's capability request, extensions.md § 1) goes on to that route.
 */
export const apiCors = (hasOptionsRoute: RouteMatcher) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === "OPTIONS" && !(hasOptionsRoute("OPTIONS", c.req.path) && c.req.header("access-control-request-method") === undefined)) {
      return apiCorsPolicy(c, next);
    }
    // Set on the answer, not before it: a header set before the handler makes Hono build a placeholder response
    // and copy its headers into the real one (a tenth of an API read's CPU in the profile).
    await next();
    setAnswerHeaders(c, answerCors);
  });
