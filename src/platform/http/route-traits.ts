// What the app's middleware, which runs before routing, must know of a route: a route declares it in its own
// createRoute as an OpenAPI extension (so the document says it too), and the app reads it from the mounted routes,
// so no list of paths is kept beside them.
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { AppEnv } from "./env";
import { API_BASE } from "./api-endpoints";

/** The request body is file bytes, streamed to storage: the JSON body limit does not apply. */
export const STREAMED_BODY = "x-streamed-body";
/** Reads at the database's primary although its method reads (its clients send no bookmark). */
export const READS_PRIMARY = "x-reads-primary";
/** Starts an upload (a file record, storage reserved): it counts in the uploads bucket too. */
export const STARTS_UPLOAD = "x-starts-upload";
/** Outside the per-caller rate limits (the payment processor's webhook). */
export const RATE_LIMIT_EXEMPT = "x-rate-limit-exempt";
export type RouteTrait = typeof STREAMED_BODY | typeof READS_PRIMARY | typeof STARTS_UPLOAD | typeof RATE_LIMIT_EXEMPT;

/** Whether a request (its method, its path under the app) is for one of `api`'s routes that declare `trait`. */
export type RouteMatcher = (method: string, path: string) => boolean;

/** A matcher over the routes of `api` (mounted at API_BASE) that declare `trait` (or that `trait` picks), built at
 *  its first use. */
export function routesWith(api: OpenAPIHono<AppEnv>, trait: RouteTrait | ((route: RouteConfig) => boolean)): RouteMatcher {
  const picks = typeof trait === "function" ? trait : (route: RouteConfig) => (route as RouteConfig & Partial<Record<RouteTrait, boolean>>)[trait] === true;
  let marked: { method: string; path: RegExp }[] | undefined;
  return (method, path) => {
    marked ??= api.openAPIRegistry.definitions.flatMap((d) =>
      d.type === "route" && picks(d.route)
        ? [{ method: d.route.method.toUpperCase(), path: pathPattern(d.route.path) }]
        : [],
    );
    return marked.some((r) => r.method === method && r.path.test(path));
  };
}

/** "/upload/tus/{uploadId}" as the pattern of the app's paths it routes: a parameter is one segment. */
function pathPattern(openApiPath: string): RegExp {
  const escaped = `${API_BASE}${openApiPath}`.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
  return new RegExp(`^${escaped.replace(/\{[^}]+\}/g, "[^/]+")}$`);
}
