// A user's webhook endpoints: create (the secret shown once), read, change, delete. The signing key is kept
// sealed (platform/crypto/secret-box.ts) under TOTP_ENCRYPTION_SECRET with a label of its own, bound to the endpoint id.
import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import { WEBHOOKS } from "../config";
import { webhookEndpoints, type WebhookEndpointRow } from "../db/schema";
import type { DirectoryDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { newId } from "../platform/data/ids";
import { checkOutboundUrl, outboundRules } from "../platform/outbound/outbound-address";
import { openSecret, sealSecret } from "../platform/crypto/secret-box";
import { newSigningKey, secretText } from "./signing";
import { config } from "../config/env";

/** The HKDF label: keys derived for webhooks never meet the TOTP seeds' from the same server secret. */
const SEAL_PURPOSE = "webhook signing key v1";

export type EndpointInput = { url: string; events: string[]; description?: string; enabled?: boolean };

export type EndpointView = {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabledReason: "gone" | "failures" | null;
  consecutiveFailures: number;
  createdAt: string;
  updatedAt: string;
};

export function endpointView(row: WebhookEndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    consecutiveFailures: row.consecutiveFailures,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The URL as it will be called, or 400 invalid_url with the rule it breaks. */
export function allowedEndpointUrl(env: Env, raw: string): string {
  const checked = checkOutboundUrl(raw, outboundRules(env));
  if (!checked.ok) throw new ApiError("invalid_url", `This URL cannot receive webhooks: ${checked.reason}`, { field: "url" });
  return checked.url.href;
}

const notFound = () => new ApiError("webhook_not_found", "Webhook endpoint not found");

const tooMany = () =>
  new ApiError("too_many_webhooks", `At most ${WEBHOOKS.maxEndpointsPerUser} webhook endpoints per account`, { limit: WEBHOOKS.maxEndpointsPerUser });

export async function createEndpoint(db: DirectoryDb, env: Env, userId: string, input: EndpointInput): Promise<{ row: WebhookEndpointRow; secret: string }> {
  const url = allowedEndpointUrl(env, input.url);
  const id = newId("whk");
  const key = newSigningKey();
  const now = new Date();
  const row: WebhookEndpointRow = {
    id,
    userId,
    url,
    description: input.description ?? "",
    events: [...new Set(input.events)],
    secretSealed: await sealSecret(config(env).totpEncryptionSecret, SEAL_PURPOSE, key, id),
    enabled: input.enabled ?? true,
    disabledReason: null,
    consecutiveFailures: 0,
    createdAt: now,
    updatedAt: now,
  };
  // The count and the insert are one statement, so parallel creations cannot all pass a count taken before
  // any of them wrote (D1 has no interactive transaction to hold between a SELECT and an INSERT).
  const underCap = sql`(SELECT COUNT(*) FROM ${webhookEndpoints} WHERE ${webhookEndpoints.userId} = ${userId}) < ${WEBHOOKS.maxEndpointsPerUser}`;
  const inserted = await db.insert(webhookEndpoints).select(rowIf(db, row, underCap)).returning({ id: webhookEndpoints.id });
  if (inserted.length === 0) throw tooMany();
  return { row, secret: secretText(key) };
}

/** SELECT <row's values> FROM (SELECT 1) WHERE <condition>, each value encoded as its column stores it. */
function rowIf(db: DirectoryDb, row: WebhookEndpointRow, condition: ReturnType<typeof sql>) {
  const columns = getTableColumns(webhookEndpoints);
  const fields = Object.fromEntries(
    Object.entries(columns).map(([name, column]) => {
      const value = row[name as keyof WebhookEndpointRow];
      return [name, sql`${value === null ? null : column.mapToDriverValue(value)}`.as(column.name)];
    }),
  ) as { [K in keyof typeof columns]: ReturnType<ReturnType<typeof sql>["as"]> };
  return db.select(fields).from(sql`(SELECT 1)`).where(condition);
}

export async function listEndpoints(db: DirectoryDb, userId: string): Promise<WebhookEndpointRow[]> {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** The caller's endpoint; another user's is 404 like a missing one. */
export async function ownedEndpoint(db: DirectoryDb, userId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, userId)))
    .get();
  if (!row) throw notFound();
  return row;
}

/** Turning an endpoint back on clears why it was off and its failure count: it starts afresh. */
export async function updateEndpoint(db: DirectoryDb, env: Env, userId: string, id: string, input: Partial<EndpointInput>): Promise<WebhookEndpointRow> {
  const row = await ownedEndpoint(db, userId, id);
  const set: Partial<WebhookEndpointRow> = { updatedAt: new Date() };
  if (input.url !== undefined) set.url = allowedEndpointUrl(env, input.url);
  if (input.events !== undefined) set.events = [...new Set(input.events)];
  if (input.description !== undefined) set.description = input.description;
  if (input.enabled !== undefined) {
    set.enabled = input.enabled;
    if (input.enabled && !row.enabled) Object.assign(set, { disabledReason: null, consecutiveFailures: 0 });
  }
  const [updated] = await db.update(webhookEndpoints).set(set).where(eq(webhookEndpoints.id, row.id)).returning();
  return updated;
}

/** Its deliveries and attempts go with it (ON DELETE CASCADE); queued tries then find nothing and stop. */
export async function deleteEndpoint(db: DirectoryDb, userId: string, id: string): Promise<void> {
  const row = await ownedEndpoint(db, userId, id);
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, row.id));
}

/** The HMAC key, or null when the sealed value does not open (TOTP_ENCRYPTION_SECRET changed). */
export async function signingKey(env: Env, row: Pick<WebhookEndpointRow, "id" | "secretSealed">): Promise<Uint8Array | null> {
  return openSecret(config(env).totpEncryptionSecret, SEAL_PURPOSE, row.secretSealed, row.id);
}
