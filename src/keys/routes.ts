import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import type { AppEnv } from "../platform/http/env";
import { sessionOnly, sessionPrincipal } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { ApiKeyList, CreatedKey, CreateKeyRequest } from "./schemas";
import { createApiKey, listApiKeys, revokeApiKey } from "../auth/api-keys";
import { PageQuery } from "../platform/http/pagination";
import { sessionLiveAtPrimary } from "../auth/middleware";

export const keyRoutes = apiRouter();
export const keyMount = mountAt("/keys", keyRoutes);
const tags = ["API keys"];

keyRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/",
    operationId: "keys.create",
    tags,
    summary: "Create an API key",
    description: "Session only; the e-mail address must be verified. The key is returned once and stored only as a hash.",
    security: bearer,
    // A key outlives the session: a session revoked elsewhere must not mint one from a stale record.
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    request: { body: jsonBody(CreateKeyRequest) },
    errors: ["too_many_keys", "email_not_verified"],
    responses: { 201: json(CreatedKey, "Created"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { key, resource } = await createApiKey(c.get("dbs").directory(), sessionPrincipal(c.get("principal")).user, {
      name: input.name,
      permissions: input.permissions,
      expiresAt: input.expiresAt ? new Date(input.expiresAt) : undefined,
    });
    const { id, name, prefix, permissions, expiresAt, createdAt } = resource;
    return c.json({ id, name, key, prefix, permissions, expiresAt, createdAt }, 201);
  },
);

keyRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/",
    operationId: "keys.list",
    tags,
    summary: "List your API keys",
    security: bearer,
    middleware: [sessionOnly()] as const,
    request: { query: PageQuery },
    responses: { 200: json(ApiKeyList, "Keys"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const { limit, offset } = c.req.valid("query");
    return c.json(await listApiKeys(c.get("dbs").directory(), sessionPrincipal(c.get("principal")).user.id, limit, offset), 200);
  },
);

keyRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/{id}",
    operationId: "keys.revoke",
    tags,
    summary: "Revoke an API key",
    description: "Takes effect on the very next request made with the key.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    request: { params: z.object({ id: z.string().max(64) }) },
    errors: ["not_found"],
    responses: { 200: json(MessageBody, "Revoked"), ...errors(401, 403, 404) },
  }),
  async (c) => {
    await revokeApiKey(c.get("dbs").directory(), c.env, sessionPrincipal(c.get("principal")).user.id, c.req.valid("param").id);
    return c.json({ message: "API key revoked" }, 200);
  },
);
