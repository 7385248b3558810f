// The audit trail: one audit_log row per administrative action (who, what, on what, when). Returned as an
// unexecuted insert so callers put it in the same db.batch as the change it records.
import { sql, type SQL } from "drizzle-orm";
import { auditLog } from "../../db/schema";
import type { DirectoryDb } from "./db";
import { newId } from "./ids";

export type AuditEntry = {
  actorId: string | null;
  action: string;
  targetType: "user" | "plan_change" | "file" | "report";
  targetId: string;
  details?: Record<string, unknown>;
  at?: Date;
};

export function auditInsert(db: DirectoryDb, e: AuditEntry) {
  return db.insert(auditLog).values({
    id: newId("aud"),
    actorId: e.actorId,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    details: e.details ?? {},
    createdAt: e.at ?? new Date(),
  });
}

/** The same record, written only when `condition` (an SQL boolean) holds inside the transaction. */
export function auditInsertIf(db: DirectoryDb, e: AuditEntry, condition: SQL) {
  const at = (e.at ?? new Date()).getTime();
  // INSERT ... SELECT <values> FROM (SELECT 1) WHERE <condition>: a builder, so it can join a db.batch.
  return db.insert(auditLog).select(
    db
      .select({
        id: sql<string>`${newId("aud")}`.as("id"),
        actorId: sql<string | null>`${e.actorId}`.as("actor_id"),
        action: sql<string>`${e.action}`.as("action"),
        targetType: sql<string>`${e.targetType}`.as("target_type"),
        targetId: sql<string>`${e.targetId}`.as("target_id"),
        details: sql<string>`${JSON.stringify(e.details ?? {})}`.as("details"),
        createdAt: sql<number>`${at}`.as("created_at"),
      })
      .from(sql`(SELECT 1)`)
      .where(condition),
  );
}
