// /webhooks (extensions.md § 4): a session, or an API key with `manage`. Another user's endpoint is 404.
import { defineRoute } from "../platform/http/route-errors";
import type { Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import { callerUser, requirePermission } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { PageQuery } from "../platform/http/pagination";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { createEndpoint, deleteEndpoint, endpointView, listEndpoints, ownedEndpoint, updateEndpoint } from "./endpoints";
import { listAttempts, retryDelivery, sendPing } from "./deliveries";
import {
  CreatedWebhook,
  CreateWebhookRequest,
  DeliveryParams,
  QueuedDelivery,
  UpdateWebhookRequest,
  WebhookAttemptList,
  WebhookEndpoint,
  WebhookList,
  WebhookParams,
} from "./schemas";

export const webhookRoutes = apiRouter();
export const webhookMount = mountAt("/webhooks", webhookRoutes);
const tags = ["Webhooks"];
const user = (c: Context<AppEnv>) => callerUser(c.get("principal"));

webhookRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/",
    operationId: "webhooks.create",
    tags,
    summary: "Add a webhook endpoint",
    description: "At most 10 per account. The signing secret is returned once; the URL follows the outbound address rules.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { body: jsonBody(CreateWebhookRequest) },
    errors: ["too_many_webhooks", "invalid_url"],
    responses: { 201: json(CreatedWebhook, "Created"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const { row, secret } = await createEndpoint(c.get("dbs").directory(), c.env, user(c).id, c.req.valid("json"));
    return c.json({ ...endpointView(row), secret }, 201);
  },
);

webhookRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/",
    operationId: "webhooks.list",
    tags,
    summary: "List your webhook endpoints",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    responses: { 200: json(WebhookList, "Endpoints"), ...errors(401, 403) },
  }),
  async (c) => c.json({ webhooks: (await listEndpoints(c.get("dbs").directory(), user(c).id)).map(endpointView) }, 200),
);

webhookRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/{id}",
    operationId: "webhooks.get",
    tags,
    summary: "Read a webhook endpoint",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: WebhookParams },
    errors: ["webhook_not_found"],
    responses: { 200: json(WebhookEndpoint, "Endpoint"), ...errors(401, 403, 404) },
  }),
  async (c) => c.json(endpointView(await ownedEndpoint(c.get("dbs").directory(), user(c).id, c.req.valid("param").id)), 200),
);

webhookRoutes.openapi(
  defineRoute({
    method: "patch",
    path: "/{id}",
    operationId: "webhooks.update",
    tags,
    summary: "Change a webhook endpoint",
    description: "`enabled: true` turns a disabled endpoint back on and clears its failure count.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: WebhookParams, body: jsonBody(UpdateWebhookRequest) },
    errors: ["invalid_url", "webhook_not_found"],
    responses: { 200: json(WebhookEndpoint, "Updated"), ...errors(400, 401, 403, 404) },
  }),
  async (c) => {
    const row = await updateEndpoint(c.get("dbs").directory(), c.env, user(c).id, c.req.valid("param").id, c.req.valid("json"));
    return c.json(endpointView(row), 200);
  },
);

webhookRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/{id}",
    operationId: "webhooks.delete",
    tags,
    summary: "Delete a webhook endpoint",
    description: "Its delivery history goes with it; tries still queued send nothing.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: WebhookParams },
    errors: ["webhook_not_found"],
    responses: { 200: json(MessageBody, "Deleted"), ...errors(401, 403, 404) },
  }),
  async (c) => {
    await deleteEndpoint(c.get("dbs").directory(), user(c).id, c.req.valid("param").id);
    return c.json({ message: "Webhook endpoint deleted" }, 200);
  },
);

webhookRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/{id}/ping",
    operationId: "webhooks.ping",
    tags,
    summary: "Send a ping event",
    description: "Queued at once; its tries show in the deliveries list.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: WebhookParams },
    errors: ["webhook_not_found", "webhook_disabled"],
    responses: { 202: json(QueuedDelivery, "Queued"), ...errors(401, 403, 404, 409) },
  }),
  async (c) => {
    const db = c.get("dbs").directory();
    const endpoint = await ownedEndpoint(db, user(c).id, c.req.valid("param").id);
    return c.json({ ...(await sendPing(c.env, db, endpoint)), message: "Ping queued" }, 202);
  },
);

webhookRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/{id}/deliveries",
    operationId: "webhooks.listDeliveries",
    tags,
    summary: "List an endpoint's delivery attempts",
    description: "Every try, newest first: event, status code, duration, error and when the next try is due.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: WebhookParams, query: PageQuery },
    errors: ["webhook_not_found"],
    responses: { 200: json(WebhookAttemptList, "Attempts"), ...errors(400, 401, 403, 404) },
  }),
  async (c) => {
    const db = c.get("dbs").directory();
    const endpoint = await ownedEndpoint(db, user(c).id, c.req.valid("param").id);
    const { limit, offset } = c.req.valid("query");
    const { items, total } = await listAttempts(db, endpoint.id, limit, offset);
    return c.json({ deliveries: items, pagination: { total, limit, offset, hasMore: offset + items.length < total } }, 200);
  },
);

webhookRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/{id}/deliveries/{deliveryId}/retry",
    operationId: "webhooks.retryDelivery",
    tags,
    summary: "Send a delivery again",
    description: "The same event id and body, as the next try.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: DeliveryParams },
    errors: ["webhook_not_found", "delivery_not_found", "webhook_disabled"],
    responses: { 202: json(QueuedDelivery, "Queued"), ...errors(401, 403, 404, 409) },
  }),
  async (c) => {
    const db = c.get("dbs").directory();
    const { id, deliveryId } = c.req.valid("param");
    const endpoint = await ownedEndpoint(db, user(c).id, id);
    return c.json({ ...(await retryDelivery(c.env, db, endpoint, deliveryId)), message: "Retry queued" }, 202);
  },
);
