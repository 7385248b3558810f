// The directory's webhook tables (database DB). Re-exported with the rest by ./schema.ts.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./directory-schema";

// Webhooks (extensions.md § 4; src/webhooks/). An endpoint belongs to one user; its deliveries are one event each,
// sent at least once from the queue, and every try of one is an attempt row (GET /webhooks/:id/deliveries).

export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** JSON array of the event types sent to this endpoint. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    /** The signing key sealed with AES-GCM (platform/crypto/secret-box.ts), bound to the endpoint id. */
    secretSealed: text("secret_sealed").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** Why delivery stopped by itself: "gone" (the endpoint answered 410) or "failures" (20 in a row). */
    disabledReason: text("disabled_reason", { enum: ["gone", "failures"] }),
    /** Failed attempts since the last success, across deliveries. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("webhook_endpoints_user").on(t.userId, t.createdAt)],
);

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** The event's id, sent as webhook-id on every try (one event to several endpoints shares it). */
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    /** The exact body signed and sent on every try. */
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "succeeded", "failed"] }).notNull().default("pending"),
    /** Tries made so far: a queue message names the try it is for, so a repeated message sends nothing twice. */
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_deliveries_endpoint").on(t.endpointId, t.createdAt)],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id").notNull(),
    attempt: integer("attempt").notNull(),
    /** The endpoint's answer; null when none came (refused address, timeout, network error). */
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    /** When the next try is due; null when this one ended the delivery. */
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_attempts_endpoint").on(t.endpointId, t.createdAt)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
