// Plan changes: the plan_changes history and the users.plan it drives. Every change is one db.batch
// (a D1 transaction), so the history and the plan never disagree.
import { and, count, desc, eq, ne, sql, type SQL } from "drizzle-orm";
import { runBatch, type DirectoryDb, type Statement } from "../platform/data/db";
import { planChanges, users } from "../db/schema";
import { newId } from "../platform/data/ids";
import { ApiError } from "../platform/errors/errors";
import { auditInsertIf } from "../platform/data/audit";
import { forgetUser } from "../auth/principal-records";
import type { Plan } from "../config";

export type PlanChangeRow = typeof planChanges.$inferSelect;
export type PlanChangeStatus = PlanChangeRow["status"];

export function planChangeResource(r: PlanChangeRow) {
  return {
    id: r.id,
    userId: r.userId,
    fromPlan: r.fromPlan as Plan,
    toPlan: r.toPlan as Plan,
    status: r.status,
    provider: r.provider,
    createdAt: r.createdAt.toISOString(),
    decidedAt: r.decidedAt?.toISOString() ?? null,
  };
}

type Batch = Statement[];

/** Older pending requests are superseded by any newer decision or request. */
function cancelPending(db: DirectoryDb, userId: string, now: Date, exceptId?: string) {
  const where: SQL[] = [eq(planChanges.userId, userId), eq(planChanges.status, "pending")];
  if (exceptId) where.push(ne(planChanges.id, exceptId));
  return db.update(planChanges).set({ status: "cancelled", decidedAt: now }).where(and(...where));
}

export function findPendingChange(db: DirectoryDb, userId: string) {
  return db
    .select()
    .from(planChanges)
    .where(and(eq(planChanges.userId, userId), eq(planChanges.status, "pending")))
    .orderBy(desc(planChanges.createdAt))
    .get();
}

export type ApplyInput = {
  userId: string;
  fromPlan: Plan;
  toPlan: Plan;
  provider: string;
  providerRef?: string | null;
  /** Who decided: the user themselves (downgrade), an admin, or null (a payment processor's webhook). */
  decidedBy: string | null;
  now?: Date;
  /** More statements for the same transaction (an audit record, a webhook event id). */
  also?: Statement[];
};

type RequestedChange = { userId: string; fromPlan: Plan; toPlan: Plan; provider: string };

/** A plan_changes row for a change that was just requested or decided. */
function planChangeRow(
  change: RequestedChange,
  now: Date,
  outcome: Pick<PlanChangeRow, "status" | "providerRef" | "decidedBy" | "decidedAt">,
): PlanChangeRow {
  const { userId, fromPlan, toPlan, provider } = change;
  return { id: newId("pch"), userId, fromPlan, toPlan, provider, ...outcome, createdAt: now };
}

/**
 * Sets the plan now and records it as an applied change; pending requests of the user are cancelled. The
 * plan is in the user's principal record: dropped, so their next request has the new plan's limits.
 */
export async function applyPlanChange(db: DirectoryDb, env: Env, input: ApplyInput): Promise<PlanChangeRow> {
  const now = input.now ?? new Date();
  const row = planChangeRow(input, now, { status: "applied", providerRef: input.providerRef ?? null, decidedBy: input.decidedBy, decidedAt: now });
  const statements: Batch = [
    ...(input.also ?? []),
    cancelPending(db, input.userId, now),
    db.update(users).set({ plan: input.toPlan, updatedAt: now }).where(eq(users.id, input.userId)),
    db.insert(planChanges).values(row),
  ] as unknown as Batch;
  await runBatch(db, statements);
  await forgetUser(env, input.userId);
  return row;
}

/** Records a request that waits for a decision (an admin, or the payment processor's webhook). */
export async function requestPlanChange(db: DirectoryDb, input: RequestedChange & { now?: Date }) {
  const now = input.now ?? new Date();
  const row = planChangeRow(input, now, { status: "pending", providerRef: null, decidedBy: null, decidedAt: null });
  await runBatch(db, [cancelPending(db, input.userId, now), db.insert(planChanges).values(row)]);
  return row;
}

/** Cancels the caller's pending request (they asked for the plan they already have). */
export async function cancelPendingChanges(db: DirectoryDb, userId: string): Promise<number> {
  const res = await cancelPending(db, userId, new Date()).run();
  return res.meta.changes;
}

/**
 * An admin approves or rejects a pending request. One transaction whose later statements only act when its
 * first one (pending -> decided, stamped with this admin and instant) did: two admins deciding at once
 * cannot both win, and the plan, the superseded requests and the audit record follow the winner.
 */
export async function decidePlanChange(db: DirectoryDb, env: Env, id: string, adminId: string, decision: "approve" | "reject", note?: string) {
  const found = await db.select().from(planChanges).where(eq(planChanges.id, id)).get();
  if (!found) throw new ApiError("plan_change_not_found", "Plan change not found");
  if (found.status !== "pending") throw new ApiError("plan_change_decided", `This plan change is already ${found.status}`);
  const now = new Date();
  const status = decision === "approve" ? "applied" : "rejected";
  const ours = sql`EXISTS (SELECT 1 FROM plan_changes WHERE id = ${id} AND status = ${status} AND decided_by = ${adminId} AND decided_at = ${now.getTime()})`;
  const statements: Batch = [
    db.update(planChanges).set({ status, decidedBy: adminId, decidedAt: now }).where(and(eq(planChanges.id, id), eq(planChanges.status, "pending"))),
  ];
  if (decision === "approve") {
    statements.push(
      db
        .update(users)
        .set({ plan: found.toPlan as Plan, updatedAt: now })
        .where(and(eq(users.id, found.userId), sql`deleted_at IS NULL`, ours)),
      db
        .update(planChanges)
        .set({ status: "cancelled", decidedAt: now })
        .where(and(eq(planChanges.userId, found.userId), eq(planChanges.status, "pending"), ne(planChanges.id, id), ours)),
    );
  }
  const audit = auditInsertIf(db, {
    actorId: adminId,
    action: decision === "approve" ? "plan_change.approve" : "plan_change.reject",
    targetType: "plan_change",
    targetId: id,
    details: { userId: found.userId, fromPlan: found.fromPlan, toPlan: found.toPlan, ...(note ? { note } : {}) },
    at: now,
  }, ours);
  const results = await runBatch(db, [...statements, audit]);
  if ((results[0] as D1Result).meta.changes !== 1) {
    // Lost the race: the other statements saw no row stamped by us, so nothing else changed.
    throw new ApiError("plan_change_decided", "This plan change was decided by someone else");
  }
  if (decision === "approve") await forgetUser(env, found.userId); // the plan is in their principal record
  return { ...found, status, decidedBy: adminId, decidedAt: now } as PlanChangeRow;
}

export async function listPlanChanges(db: DirectoryDb, status: PlanChangeStatus | undefined, limit: number, offset: number) {
  const cond = status ? eq(planChanges.status, status) : undefined;
  const [rows, total] = await Promise.all([
    db.select().from(planChanges).where(cond).orderBy(desc(planChanges.createdAt), desc(planChanges.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(planChanges).where(cond).get(),
  ]);
  const n = total?.n ?? 0;
  return { planChanges: rows.map(planChangeResource), pagination: { total: n, limit, offset, hasMore: offset + rows.length < n } };
}
