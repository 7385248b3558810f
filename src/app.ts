// createApp(): middleware order, feature routers, error mapping and the OpenAPI document.
import { insightsMount } from "./insights/routes";
import { API_BASE } from "./platform/http/api-endpoints";
import { RATE_LIMIT_EXEMPT, READS_PRIMARY, routesWith, STARTS_UPLOAD, STREAMED_BODY, type RouteMatcher } from "./platform/http/route-traits";
import { Hono } from "hono";
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./platform/http/env";
import { requestId } from "./middleware/request-id";
import { apiCors, securityHeaders } from "./middleware/security-headers";
import { dbHandle } from "./middleware/db";
import { describeKeyScope, refusesApiKeys } from "./middleware/guards";
import { authenticate } from "./auth/middleware";
import { rateLimit, rateLimitFailedAuth } from "./limits/middleware";
import { limitMount } from "./limits/routes";
import { billingMount } from "./billing/routes";
import { adminMount } from "./admin/routes";
import { errorResponse, onError } from "./middleware/error-handler";
import { ApiError } from "./platform/errors/errors";
import { apiRouter } from "./platform/http/router";
import { withErrorCodes } from "./platform/http/openapi-errors";
import { REQUEST_LIMITS } from "./config";
import { config } from "./config/env";
import { authMount } from "./auth/routes";
import { mfaMount } from "./auth/mfa-routes";
import { passkeyMount } from "./auth/passkey-routes";
import { accountMount } from "./account/routes";
import { whoamiMount } from "./account/whoami";
import { keyMount } from "./keys/routes";
import { devMount } from "./dev/routes";
import { uploadMount } from "./uploads/routes";
import { multipartMount } from "./uploads/multipart-routes";
import { tusMount } from "./uploads/tus/routes";
import { siteRoutes, notFoundPage } from "./pages/routes";
import { fileMount } from "./files/routes";
import { downloadMount } from "./files/download-route";
import { signedUrlMount } from "./files/signed-url-routes";
import { searchMount } from "./search/routes";
import { albumMount } from "./albums/routes";
import { moderationMount } from "./moderation/routes";
import { imageRoutes, cdnRoutes } from "./serving/routes";
import { webhookMount } from "./webhooks/routes";

const limitJsonBody = bodyLimit({
  maxSize: REQUEST_LIMITS.jsonBodyBytes,
  onError: () => {
    throw new ApiError("body_too_large", `JSON bodies are limited to ${REQUEST_LIMITS.jsonBodyBytes} bytes`);
  },
});

/** JSON bodies over REQUEST_LIMITS.jsonBodyBytes are refused (413) before they are read; byte uploads (the routes
 *  that declare STREAMED_BODY) stream. */
const jsonBodyLimit = (streamsBody: RouteMatcher) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD" || streamsBody(c.req.method, c.req.path)) return next();
    return limitJsonBody(c, next);
  });

export function createApi() {
  const api = apiRouter();
  const exempt = routesWith(api, RATE_LIMIT_EXEMPT);
  api.use(rateLimitFailedAuth(exempt));
  api.use(authenticate());
  api.use(rateLimit({ exempt, startsUpload: routesWith(api, STARTS_UPLOAD) }));
  // After the rate limit, so that a 413 is counted and carries the X-RateLimit-* headers like any answer.
  api.use(jsonBodyLimit(routesWith(api, STREAMED_BODY)));
  // In this order: Hono matches routes in the order they were added, /upload/tus before /upload's.
  const mounts = [authMount, mfaMount, passkeyMount, accountMount, limitMount, whoamiMount, billingMount, adminMount, keyMount, devMount, tusMount, uploadMount, multipartMount, fileMount, downloadMount, signedUrlMount, searchMount, albumMount, moderationMount, webhookMount, insightsMount];
  for (const { base, routes } of mounts) api.route(base, routes);
  describeKeyScope(keyScopeOf(api));
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A session access token (JWT) or an API key (pk_ + 32 base58 characters).",
  });
  return api;
}

/**
 * The documented routes that take a credential, each with whether one of its guards refuses API keys (Hono lists
 * a route's middleware among its handlers; the OpenAPI registry keeps none). Public routes (`security: []`) and
 * hidden ones are left out.
 */
function keyScopeOf(api: OpenAPIHono<AppEnv>) {
  const handlers = new Map<string, unknown[]>();
  for (const r of api.routes) handlers.set(`${r.method} ${r.path}`, [...(handlers.get(`${r.method} ${r.path}`) ?? []), r.handler]);
  return api.openAPIRegistry.definitions.flatMap((d) => {
    if (d.type !== "route" || d.route.security?.length === 0) return [];
    const method = d.route.method.toUpperCase();
    const routed = handlers.get(`${method} ${d.route.path.replace(/\{([^}]+)\}/g, ":$1")}`) ?? [];
    return [{ method, path: d.route.path, refusesKeys: routed.some(refusesApiKeys) }];
  });
}

let openApiDocumentCache: { base: string; doc: unknown } | undefined;

export function createApp() {
  const api = createApi();
  api.get("/openapi.json", (c) => c.json(openApiDocument(api, c.env)));

  const app = new Hono<AppEnv>();
  app.use(requestId());
  app.use(securityHeaders());
  // Byte serving sits beside the API, outside its auth and rate-limit chain: the hot path (serving/routes.ts).
  // Mounted before dbHandle(), whose middleware therefore never runs for them: a cache hit opens no D1
  // session (they open one on a miss, through requestDbs).
  app.route("/i", imageRoutes);
  app.route("/cdn", cdnRoutes);
  app.use("/api/v1/*", apiCors(routesWith(api, (route) => route.method === "options")));
  app.use(dbHandle(routesWith(api, READS_PRIMARY)));
  app.route(API_BASE, api);
  // Pages call the API in-process through the whole app (request id, db handle, auth, limits), lent here.
  app.route("/", siteRoutes({ openApi: (env) => openApiDocument(api, env), api: (req, env, ctx) => app.fetch(req, env, ctx) }));
  // Answered, not thrown: the middleware around it (rate-limit headers, security headers) sees a response.
  app.notFound((c) => {
    if (c.req.path.startsWith("/api/")) return errorResponse(c, new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}`));
    return notFoundPage(c);
  });
  app.onError(onError);
  return app;
}

function openApiDocument(api: OpenAPIHono<AppEnv>, env: Env) {
  const base = config(env).baseUrl;
  if (openApiDocumentCache?.base === base) return openApiDocumentCache.doc;
  const doc = withErrorCodes(api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Image hosting API",
      version: "1.0.0",
      description: "JSON-over-HTTP API of the image host. Errors are `{ error, message, details }`; 429 is `{ error, retryAfter, remaining }`.",
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
    },
    servers: [{ url: base, description: "This deployment's API (BASE_URL)" }],
  }));
  openApiDocumentCache = { base, doc };
  return doc;
}
