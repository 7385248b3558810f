// Request and response shapes of /webhooks (routes.ts), also the pages' types.
import { z } from "@hono/zod-openapi";
import { Pagination } from "../platform/http/pagination";
import { WEBHOOK_EVENTS } from "./events";

export const WebhookEvent = z.enum(WEBHOOK_EVENTS).openapi("WebhookEvent");

const url = z.string().trim().min(1).max(2048).openapi({ example: "https://example.com/hooks/images" });
const events = z.array(WebhookEvent).min(1).max(WEBHOOK_EVENTS.length * 2);
const description = z.string().trim().max(200);

export const CreateWebhookRequest = z
  .object({ url, events, description: description.optional(), enabled: z.boolean().optional() })
  .strict()
  .openapi("CreateWebhookRequest");

export const UpdateWebhookRequest = z
  .object({ url: url.optional(), events: events.optional(), description: description.optional(), enabled: z.boolean().optional() })
  .strict()
  .openapi("UpdateWebhookRequest");

export const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: "whk_V1StGXR8_Z5jdHi6B-myT" }),
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: z.enum(["gone", "failures"]).nullable().openapi({ description: "Why delivery stopped by itself: a 410 answer, or 20 failures in a row" }),
    consecutiveFailures: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("WebhookEndpoint");

export const CreatedWebhook = WebhookEndpoint.extend({
  secret: z.string().openapi({ description: "whsec_ + base64 of the HMAC key. Shown only in this response.", example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
}).openapi("CreatedWebhookEndpoint");

export const WebhookList = z.object({ webhooks: z.array(WebhookEndpoint) }).openapi("WebhookList");

export const WebhookAttempt = z
  .object({
    id: z.string(),
    deliveryId: z.string(),
    eventId: z.string().openapi({ description: "The webhook-id header: the same on every try of one event" }),
    event: z.string(),
    attempt: z.number().int(),
    status: z.enum(["pending", "succeeded", "failed"]).openapi({ description: "The delivery's state now" }),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    error: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("WebhookAttempt");

export const WebhookAttemptList = z.object({ deliveries: z.array(WebhookAttempt), pagination: Pagination }).openapi("WebhookDeliveryList");

export const QueuedDelivery = z
  .object({ deliveryId: z.string(), eventId: z.string().optional(), attempt: z.number().int().optional(), message: z.string() })
  .openapi("QueuedWebhookDelivery");

export const WebhookParams = z.object({ id: z.string().max(64) });
export const DeliveryParams = z.object({ id: z.string().max(64), deliveryId: z.string().max(64) });
