// The mail that tells an owner their endpoint stopped receiving webhooks, and how to turn it back on.
import { eq } from "drizzle-orm";
import { WEBHOOKS } from "../config";
import { users, type WebhookEndpointRow } from "../db/schema";
import type { DirectoryDb } from "../platform/db";
import { queueMail } from "../mail/outbox";

export async function mailEndpointDisabled(db: DirectoryDb, env: Env, endpoint: WebhookEndpointRow, reason: "gone" | "failures"): Promise<void> {
  const owner = await db.select({ email: users.email, deletedAt: users.deletedAt }).from(users).where(eq(users.id, endpoint.userId)).get();
  if (!owner || owner.deletedAt) return;
  const why =
    reason === "gone"
      ? "it answered 410 Gone, which asks us to stop sending"
      : `its last ${WEBHOOKS.disableAfterFailures} deliveries in a row failed`;
  await queueMail(db, env, {
    to: owner.email,
    subject: "A webhook endpoint was disabled",
    kind: "webhook_disabled",
    text:
      `We stopped sending webhooks to ${endpoint.url} (${endpoint.id}) because ${why}.\n` +
      `Events that happen while it is disabled are not sent to it. Once it works again, turn it back on in your ` +
      `account (Webhooks), or with PATCH ${env.BASE_URL}/webhooks/${endpoint.id} and {"enabled": true}.`,
  });
}
