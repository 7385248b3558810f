// Test helpers for moderation: users with a role, reports, the queue, the outbox and the audit log.
import { env } from "cloudflare:workers";
import { call, verifiedUser, type Reply, type TestUser } from "./api";

export type Role = "user" | "moderator" | "admin";

/** A verified user whose role is set straight in D1 (the auth middleware reads the role on every request). */
export async function userWithRole(role: Role): Promise<TestUser> {
  const user = await verifiedUser();
  await env.DB.prepare("UPDATE users SET role = ? WHERE id = ?").bind(role, user.id).run();
  return user;
}

export type ReportBody = { fileId: string; reason: string; details?: string; email?: string; [extra: string]: unknown };

export function report(body: ReportBody, opts: { token?: string; ip?: string } = {}): Promise<Reply> {
  return call("/moderation/report", { body, ...opts });
}

export function queue(token: string, query = ""): Promise<Reply> {
  return call(`/moderation/queue${query ? `?${query}` : ""}`, { token });
}

export function resolve(token: string, reportId: string, body: Record<string, unknown>): Promise<Reply> {
  return call(`/moderation/reports/${reportId}/resolve`, { token, body });
}

export type ReportDbRow = {
  id: string;
  file_id: string;
  reason: string;
  details: string;
  email: string | null;
  reporter_user_id: string | null;
  reporter_ip_hash: string | null;
  priority: string;
  status: string;
  report_count: number;
  action: string | null;
  resolved_by: string | null;
  resolved_at: number | null;
  note: string | null;
};

export async function reportRow(id: string): Promise<ReportDbRow | null> {
  return env.DB.prepare("SELECT * FROM reports WHERE id = ?").bind(id).first<ReportDbRow>();
}

export async function reportsOfFile(fileId: string): Promise<ReportDbRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM reports WHERE file_id = ? ORDER BY created_at").bind(fileId).all<ReportDbRow>();
  return results;
}

export type AuditRow = { actor_id: string | null; action: string; target_type: string; target_id: string; details: Record<string, any>; created_at: number };

export async function auditOf(targetType: string, targetId: string): Promise<AuditRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM audit_log WHERE target_type = ? AND target_id = ? ORDER BY created_at, rowid")
    .bind(targetType, targetId)
    .all<AuditRow & { details: string }>();
  return results.map((r) => ({ ...r, details: JSON.parse(r.details as unknown as string) }));
}

export type OutboxRow = { to_address: string; subject: string; text: string; kind: string };

export async function outboxOfKind(kind: string, textContains?: string): Promise<OutboxRow[]> {
  const { results } = await env.DB.prepare("SELECT to_address, subject, text, kind FROM outbox WHERE kind = ? ORDER BY created_at").bind(kind).all<OutboxRow>();
  return textContains ? results.filter((r) => r.text.includes(textContains)) : results;
}

/** A 16-hex-digit phash for tests (never decoded). */
export function testPhash(seed: number): string {
  let out = "";
  let x = (seed * 2654435761) >>> 0;
  for (let i = 0; i < 16; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += ((x >>> 16) & 15).toString(16);
  }
  return out;
}

let ipCounter = 0;
/** A client address no other test of the file uses. */
export function freshIp(): string {
  ipCounter += 1;
  return `203.0.113.${ipCounter}`;
}
