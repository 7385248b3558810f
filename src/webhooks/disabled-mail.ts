// The mail that tells an owner their endpoint stopped receiving webhooks, and how to turn it back on.
import { eq } from "drizzle-orm";
import { WEBHOOKS } from "../config";
import { users, type WebhookEndpointRow } from "../db/schema";
import type { DirectoryDb } from "../platform/data/db";
import { queueMail } from "../mail/outbox";

export async function mailEndpointDisabled(db: DirectoryDb, env: Env, endpoint: WebhookEndpointRow, reason: "gone" | "failures"): Promise<void> {
  const owner = await db.select({ email: users.email, username: users.username, deletedAt: users.deletedAt }).from(users).where(eq(users.id, endpoint.userId)).get();
  if (!owner || owner.deletedAt) return;
  await queueMail(db, env, owner.email, {
    kind: "webhook_disabled",
    username: owner.username,
    endpoint: { id: endpoint.id, url: endpoint.url, description: endpoint.description },
    reason,
    failures: WEBHOOKS.disableAfterFailures,
  });
}
