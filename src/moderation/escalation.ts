// Escalation of a high-priority report (csam, terrorism): an outbox message to every moderator and admin,
// and an audit record. Recipients are the accounts holding the role; a fresh deployment without any falls
// back to the ADMIN_EMAILS var, so the message always has somewhere to go.
import { and, asc, inArray, isNull } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { users, type FileRow } from "../db/schema";
import { MODERATION } from "../config";
import { queueMail } from "../mail/outbox";
import { auditInsert } from "../platform/data/audit";
import { config } from "../config/env";

export type Escalation = {
  reportId: string;
  file: Pick<FileRow, "id" | "userId">;
  reason: string;
  fileHidden: boolean;
  now: number;
};

export async function moderatorAddresses(db: DirectoryDb, env: Env): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(users)
    .where(and(inArray(users.role, ["moderator", "admin"]), isNull(users.bannedAt), isNull(users.deletedAt)))
    .orderBy(asc(users.createdAt))
    .limit(MODERATION.escalationMaxRecipients);
  if (rows.length > 0) return rows.map((r) => r.email);
  return config(env).adminEmails.slice(0, MODERATION.escalationMaxRecipients);
}

export async function escalate(env: Env, db: DirectoryDb, e: Escalation): Promise<string[]> {
  const recipients = await moderatorAddresses(db, env);
  // No reporter contact or free text in the mail (mail/templates.ts): moderators read those behind their login.
  const mail = { kind: "moderation_escalation", reportId: e.reportId, fileId: e.file.id, reason: e.reason, fileHidden: e.fileHidden } as const;
  await Promise.all(recipients.map((to) => queueMail(db, env, to, mail)));
  await auditInsert(db, {
    actorId: null,
    action: "report.escalated",
    targetType: "report",
    targetId: e.reportId,
    details: { fileId: e.file.id, ownerId: e.file.userId, reason: e.reason, fileHidden: e.fileHidden, notified: recipients.length },
    at: new Date(e.now),
  });
  if (recipients.length === 0) console.error(`moderation: no moderator to notify of report ${e.reportId}`);
  return recipients;
}
