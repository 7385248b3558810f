// A resolution claims the report in the directory, then applies its effects on the file's shard
// (moderation/resolve-effects.ts). A request that stopped between the two leaves `effects_applied_at` null; the
// cron applies them, once, and a second run changes nothing.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { report, reportRow, resolve, userWithRole } from "../support/moderation";
import { runScheduled } from "../../src/jobs/scheduled";
import { ownerDb } from "../support/shard-db";

let owner: TestUser;
let moderator: TestUser;

beforeAll(async () => {
  owner = await verifiedUser();
  moderator = await userWithRole("moderator");
});

const fileState = (id: string) => ownerDb.prepare("SELECT hidden_at, banned_at, deleted_at FROM files WHERE id = ?").bind(id).first<Record<string, number | null>>();

/** The claim as a resolution's first transaction writes it, as if the request stopped right after it. */
async function claimOnly(reportId: string, action: string, at: number) {
  await env.DB.prepare("UPDATE reports SET status = 'resolved', action = ?, resolved_by = ?, resolved_at = ?, updated_at = ? WHERE id = ?")
    .bind(action, moderator.id, at, at, reportId)
    .run();
}

describe("a resolution's effects on the file's shard", () => {
  it("are applied by the request and recorded (effects_applied_at)", async () => {
    const file = await seedFile(owner.id);
    const filed = await report({ fileId: file.id, reason: "spam" });
    const res = await resolve(moderator.access, filed.body.reportId, { action: "remove_file" });
    expect(res.status, res.text).toBe(200);
    expect((await fileState(file.id))!.deleted_at).not.toBeNull();
    const row = await env.DB.prepare("SELECT effects_applied_at FROM reports WHERE id = ?").bind(filed.body.reportId).first<{ effects_applied_at: number | null }>();
    expect(row!.effects_applied_at).not.toBeNull();
  });

  it("left undone by a stopped request are applied by the cron a minute later, once", async () => {
    const file = await seedFile(owner.id);
    const filed = await report({ fileId: file.id, reason: "spam" });
    const at = Date.now();
    await claimOnly(filed.body.reportId, "ban_file", at);
    expect((await fileState(file.id))!.banned_at).toBeNull();
    // Too recent: the resolving request may still be applying them.
    expect((await runScheduled(env, at + 10_000)).resolutionEffects).toEqual({ applied: 0 });
    expect((await runScheduled(env, at + 120_000)).resolutionEffects).toEqual({ applied: 1 });
    expect((await fileState(file.id))!.banned_at).toBe(at);
    expect((await reportRow(filed.body.reportId))!.status).toBe("resolved");
    expect((await runScheduled(env, at + 240_000)).resolutionEffects).toEqual({ applied: 0 });
  });

  it("a dismissal left undone unhides only while no other high-priority report is open", async () => {
    const file = await seedFile(owner.id);
    const first = await report({ fileId: file.id, reason: "csam" }); // high: hides the file
    expect((await fileState(file.id))!.hidden_at).not.toBeNull();
    const at = Date.now();
    await claimOnly(first.body.reportId, "dismiss", at);
    const second = await report({ fileId: file.id, reason: "csam" }); // a new high report, filed after the claim
    expect(second.body.reportId).not.toBe(first.body.reportId);
    await runScheduled(env, at + 120_000);
    expect((await fileState(file.id))!.hidden_at).not.toBeNull();
  });
});
