// createApp(): middleware order, feature routers, error mapping and the OpenAPI document.
import { insightsRoutes } from "./insights/routes";
import { API_BASE } from "./platform/http/api-endpoints";
import { Hono } from "hono";
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./platform/http/env";
import { requestId } from "./middleware/request-id";
import { apiCors, securityHeaders } from "./middleware/security-headers";
import { dbHandle } from "./middleware/db";
import { authenticate } from "./auth/middleware";
import { rateLimit, rateLimitFailedAuth } from "./limits/middleware";
import { limitRoutes } from "./limits/routes";
import { billingRoutes } from "./billing/routes";
import { adminRoutes } from "./admin/routes";
import { errorResponse, onError } from "./middleware/error-handler";
import { ApiError } from "./platform/errors/errors";
import { apiRouter } from "./platform/http/router";
import { withErrorCodes } from "./platform/http/openapi-errors";
import { REQUEST_LIMITS } from "./config";
import { config } from "./config/env";
import { authRoutes } from "./auth/routes";
import { mfaRoutes } from "./auth/mfa-routes";
import { passkeyRoutes } from "./auth/passkey-routes";
import { accountRoutes } from "./account/routes";
import { whoamiRoutes } from "./account/whoami";
import { keyRoutes } from "./keys/routes";
import { devRoutes } from "./dev/routes";
import { uploadRoutes } from "./uploads/routes";
import { multipartRoutes } from "./uploads/multipart-routes";
import { tusRoutes } from "./uploads/tus/routes";
import { siteRoutes, notFoundPage } from "./pages/routes";
import { fileRoutes } from "./files/routes";
import { downloadRoutes } from "./files/download-route";
import { signedUrlRoutes } from "./files/signed-url-routes";
import { searchRoutes } from "./search/routes";
import { albumRoutes } from "./albums/routes";
import { moderationRoutes } from "./moderation/routes";
import { imageRoutes, cdnRoutes } from "./serving/routes";
import { webhookRoutes } from "./webhooks/routes";

/** Routes that stream file bytes and so are exempt from the JSON body limit. */
const STREAMING_UPLOAD = /^\/api\/v1\/upload\/(direct\/[^/]+|multipart\/[^/]+\/parts\/\d+|form|tus(\/[^/]+)?)$/;

const limitJsonBody = bodyLimit({
  maxSize: REQUEST_LIMITS.jsonBodyBytes,
  onError: () => {
    throw new ApiError("body_too_large", `JSON bodies are limited to ${REQUEST_LIMITS.jsonBodyBytes} bytes`);
  },
});

/** JSON bodies over REQUEST_LIMITS.jsonBodyBytes are refused (413) before they are read; byte uploads stream. */
const jsonBodyLimit = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD" || STREAMING_UPLOAD.test(c.req.path)) return next();
    return limitJsonBody(c, next);
  });

export function createApi() {
  const api = apiRouter();
  api.use(rateLimitFailedAuth());
  api.use(authenticate());
  api.use(rateLimit());
  // After the rate limit, so that a 413 is counted and carries the X-RateLimit-* headers like any answer.
  api.use(jsonBodyLimit());
  api.route("/auth", authRoutes);
  api.route("/auth", mfaRoutes);
  api.route("/auth", passkeyRoutes);
  api.route("/account", accountRoutes);
  api.route("/account", limitRoutes);
  api.route("/account", whoamiRoutes);
  api.route("/billing", billingRoutes);
  api.route("/admin", adminRoutes);
  api.route("/keys", keyRoutes);
  api.route("/dev", devRoutes);
  api.route("/upload/tus", tusRoutes);
  api.route("/upload", uploadRoutes);
  api.route("/upload", multipartRoutes);
  api.route("/files", fileRoutes);
  api.route("/files", downloadRoutes);
  api.route("/files", signedUrlRoutes);
  api.route("/", searchRoutes);
  api.route("/albums", albumRoutes);
  api.route("/moderation", moderationRoutes);
  api.route("/webhooks", webhookRoutes);
  api.route("/", insightsRoutes);
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A session access token (JWT) or an API key (pk_ + 32 base58 characters).",
  });
  return api;
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
  app.use("/api/v1/*", apiCors());
  app.use(dbHandle());
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
