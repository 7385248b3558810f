// Outgoing mail goes through a D1 outbox. Development prints it and serves it at GET /api/v1/dev/outbox;
// a production deployment adds a mail binding that delivers pending rows (sentAt null).
import { desc, eq } from "drizzle-orm";
import type { DirectoryDb } from "../platform/db";
import { outbox } from "../db/schema";
import { newId } from "../platform/ids";

export type Mail = { to: string; subject: string; text: string; kind: string };

export async function queueMail(db: DirectoryDb, env: Env, mail: Mail): Promise<void> {
  await db.insert(outbox).values({ id: newId("msg"), ...mail, createdAt: new Date() });
  // Only local environments print mail: it carries one-time tokens, which must not reach production logs.
  if (env.ENVIRONMENT === "development") console.log(`[outbox] to=${mail.to} subject=${mail.subject}\n${mail.text}`);
}

export async function readOutbox(db: DirectoryDb, to: string, limit = 50) {
  const rows = await db
    .select({ to: outbox.to, subject: outbox.subject, text: outbox.text, createdAt: outbox.createdAt })
    .from(outbox)
    .where(eq(outbox.to, to))
    .orderBy(desc(outbox.createdAt), desc(outbox.id))
    .limit(limit);
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}
