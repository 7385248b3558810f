// The router every API feature declares its routes on: OpenAPIHono with the contract's validation hook, and JSON
// bodies parsed here before Hono's validator reads them. Hono answers a body that is not JSON with a bare
// HTTPException(400) that only its message text tells apart; parsed here first, the failure is the parser's
// SyntaxError, known by its type, and leaves as `malformed_json` through the validation hook.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./env";
import { malformedJson, validationHook } from "./validation";

/** A media type @hono/zod-openapi validates as JSON (its `isJSONContentType`). */
const JSON_MEDIA_TYPE = /^application\/([a-z-.]+\+)?json/i;
/** A Content-Type its media-type gate lets through to a JSON body ... */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
/** ... and that hono/validator then parses (it compares the media type alone). */
const JSON_PARSED = /^application\/([\w.-]+\+)?json$/i;

/**
 * Parses the body exactly when Hono's validator would (so every other outcome, 415 included, is unchanged).
 * A body that does not parse is not refused here: route middleware runs before the validators, and the path,
 * query and header checks (and the media-type gate) must still answer first, as they did when Hono's validator
 * found the bad JSON. The request is marked instead, the body validator reads an empty object (so Hono's own
 * refusal is never raised), and the validation hook refuses the marked request in the body's turn.
 */
const parseJsonBody = createMiddleware<AppEnv>(async (c, next) => {
  const type = c.req.header("content-type");
  if (type && JSON_REQUEST.test(type) && JSON_PARSED.test(type.split(";")[0].trim())) {
    try {
      await c.req.json();
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      malformedJson.add(c.req);
      c.req.json = (async () => ({})) as typeof c.req.json;
    }
  }
  await next();
});

function hasJsonBody(route: RouteConfig): boolean {
  return Object.keys(route.request?.body?.content ?? {}).some((type) => JSON_MEDIA_TYPE.test(type));
}

/** Route middleware (guards) still runs first: a caller who may not call the route learns nothing of its body. */
function withJsonParsing<R extends RouteConfig>(route: R): R {
  if (!hasJsonBody(route)) return route;
  const middleware = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return { ...route, middleware: [...middleware, parseJsonBody] };
}

export function apiRouter(): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, ...rest: unknown[]) =>
    (register as (...args: unknown[]) => unknown)(withJsonParsing(route), ...rest)) as typeof register;
  return router;
}
