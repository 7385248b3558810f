// The router every API feature declares its routes on: OpenAPIHono with the contract's validation hook. A JSON
// body that does not parse is answered `malformed_json` by the error mapper (platform/http/validation.ts).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env";
import { validationHook } from "./validation";

export function apiRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
