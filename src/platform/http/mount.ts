// A feature's router with the base it is mounted at under the API, declared in its route file beside its routes:
// the app mounts each where it says, and the OpenAPI document's paths follow.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env";

export type MountedRoutes = { readonly base: string; readonly routes: OpenAPIHono<AppEnv> };

export const mountAt = (base: string, routes: OpenAPIHono<AppEnv>): MountedRoutes => ({ base, routes });
