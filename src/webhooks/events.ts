// The events a webhook endpoint can ask for (extensions.md § 4) and the body every delivery carries.

export const WEBHOOK_EVENTS = [
  "file.created",
  "file.analyzed",
  "file.flagged",
  "file.deleted",
  "album.created",
  "album.updated",
  "album.deleted",
] as const;

/** `ping` is not subscribed to: it goes to one endpoint when its owner asks (POST /webhooks/:id/ping). */
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number] | "ping";

/** Why a file was flagged: the analysis or a moderator made it age-restricted, hid it for review, or removed it. */
export type FlagReason = "age_restricted" | "hidden" | "removed";

/** Standard Webhooks' body: `{ type, timestamp, data }`, the timestamp being when the event happened. */
export function eventBody(type: WebhookEventType, data: Record<string, unknown>, at: Date): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}
