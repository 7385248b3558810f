// POST /moderation/reports/:id/resolve: each action and its effects, audit records, conflicts, validation.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, call, createKey, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, CDN, SITE, fetchRaw, seedFile } from "../support/files";
import { auditOf, report, reportRow, reportsOfFile, resolve, testPhash, userWithRole } from "../support/moderation";
import { matchBlocklist } from "../../src/analysis/blocklist";
import { bandValues } from "../../src/analysis/bands";
import { directoryDb } from "../../src/platform/data/db";
import { newId } from "../../src/platform/data/ids";
import type { FileRow } from "../../src/db/schema";
import { ownerRow } from "../support/owners";
import { databaseOf, ownerDb } from "../support/shard-db";
import { newShardedId } from "../../src/platform/data/shard-ids";
import { shardOfIdIn } from "../../src/platform/data/shards";

let owner: TestUser;
let moderator: TestUser;
let admin: TestUser;

beforeAll(async () => {
  owner = await verifiedUser();
  moderator = await userWithRole("moderator");
  admin = await userWithRole("admin");
});

async function reported(file: FileRow, reason = "spam"): Promise<string> {
  const res = await report({ fileId: file.id, reason });
  expect(res.status, res.text).toBe(201);
  return res.body.reportId;
}

const fileState = (id: string) =>
  ownerDb.prepare("SELECT hidden_at, quarantined_at, banned_at, deleted_at FROM files WHERE id = ?").bind(id).first<Record<string, number | null>>();

/** Flips `bits` distinct bits of a 16-hex-digit hash. */
function flipBits(hex: string, bits: number[]): string {
  let v = BigInt(`0x${hex}`);
  for (const b of bits) v ^= 1n << BigInt(b);
  return v.toString(16).padStart(16, "0");
}

describe("resolving, whatever the action", () => {
  it("marks the report resolved with action, resolvedBy, resolvedAt and note, and answers the updated report", async () => {
    const file = await seedFile(owner.id);
    const id = await reported(file);
    const before = Date.now();
    const res = await resolve(moderator.access, id, { action: "dismiss", note: "not spam" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toContain("dismiss");
    expect(res.body.report).toMatchObject({ reportId: id, status: "resolved", action: "dismiss", note: "not spam", resolvedBy: moderator.id });
    expect(Date.parse(res.body.report.resolvedAt)).toBeGreaterThanOrEqual(before - 5);
    const row = (await reportRow(id))!;
    expect(row).toMatchObject({ status: "resolved", action: "dismiss", note: "not spam", resolved_by: moderator.id });
  });

  it("the note is optional", async () => {
    const id = await reported(await seedFile(owner.id));
    const res = await resolve(admin.access, id, { action: "dismiss" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.report.note).toBe("");
  });

  it("a resolved report cannot be resolved again: 409, nothing changes", async () => {
    const file = await seedFile(owner.id);
    const id = await reported(file);
    expect((await resolve(moderator.access, id, { action: "dismiss" })).status).toBe(200);
    const again = await resolve(admin.access, id, { action: "ban_file" });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("Conflict");
    expect(again.body.details.code).toBe("report_already_resolved");
    expect((await fileState(file.id))!.banned_at).toBeNull();
    expect((await auditOf("report", id)).map((a) => a.action)).toEqual(["report.dismiss"]);
  });

  it("two moderators at once: exactly one wins, only its action happens, one audit record", async () => {
    const file = await seedFile(owner.id, { phash: testPhash(77) });
    const id = await reported(file);
    const [x, y] = await Promise.all([
      resolve(moderator.access, id, { action: "dismiss" }),
      resolve(admin.access, id, { action: "ban_file" }),
    ]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    const winner = x.status === 200 ? "dismiss" : "ban_file";
    expect((await reportRow(id))!.action).toBe(winner);
    const state = (await fileState(file.id))!;
    expect(state.banned_at !== null).toBe(winner === "ban_file");
    expect(await auditOf("report", id)).toHaveLength(1);
    const entries = await env.DB.prepare("SELECT id FROM blocklist WHERE source_file_id = ?").bind(file.id).all();
    expect(entries.results.length).toBe(winner === "ban_file" ? 1 : 0);
    // The loser's index rows (if it was the ban) were removed again.
    const bands = await env.DB.prepare("SELECT DISTINCT entry FROM blocklist_bands WHERE phash = ?").bind(file.phash).all<{ entry: string }>();
    expect(bands.results.map((r) => r.entry)).toEqual(entries.results.map((r: any) => r.id));
  });

  it("404 for unknown and malformed report ids", async () => {
    for (const id of [newId("rep"), "rep_short", "file_V1StGXR8_Z5jdHi6B-myT", "x".repeat(64)]) {
      const res = await resolve(moderator.access, id, { action: "dismiss" });
      expect(res.status, id).toBe(404);
      expect(res.body.details.code).toBe("report_not_found");
    }
  });

  it("400 for a missing or unknown action, unknown fields, a too long note", async () => {
    const id = await reported(await seedFile(owner.id));
    for (const body of [{}, { action: "delete" }, { action: "dismiss", extra: 1 }, { action: "dismiss", note: "n".repeat(2_001) }, { action: 1 }]) {
      const res = await resolve(moderator.access, id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    expect((await reportRow(id))!.status).toBe("pending");
  });

  it("after resolution, a new report of the file opens a new report", async () => {
    const file = await seedFile(owner.id);
    const first = await reported(file);
    await resolve(moderator.access, first, { action: "dismiss" });
    const second = await reported(file, "other");
    expect(second).not.toBe(first);
    expect((await reportsOfFile(file.id)).map((r) => r.status)).toEqual(["resolved", "pending"]);
  });
});

describe("dismiss", () => {
  it("leaves a live file as it is", async () => {
    const file = await seedFile(owner.id);
    const res = await resolve(moderator.access, await reported(file), { action: "dismiss", note: "ok" });
    expect(res.body.effects).toEqual({ fileRestored: false, fileRemoved: false, fileBanned: false, userBanned: null, blocklistEntryId: null });
    expect((await call(`/files/${file.id}`)).status).toBe(200);
  });

  it("restores a file hidden by a csam report on every address, and audits who did it", async () => {
    const file = await seedFile(owner.id, { thumb: new Uint8Array([1, 2, 3]) });
    const id = await reported(file, "csam");
    expect((await fetchRaw(`${IMAGE}/${file.id}`)).status).toBe(410);
    const res = await resolve(moderator.access, id, { action: "dismiss", note: "false alarm" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.effects.fileRestored).toBe(true);
    expect(res.body.report.file.state).toBe("live");
    expect((await fileState(file.id))!.hidden_at).toBeNull();
    expect((await call(`/files/${file.id}`)).status).toBe(200);
    expect((await fetchRaw(`${IMAGE}/${file.id}`)).status).toBe(200);
    expect((await fetchRaw(`${IMAGE}/${file.id}/thumb`)).status).toBe(200);
    expect((await fetchRaw(`${CDN}/${file.storeKey}`)).status).toBe(200);
    expect((await fetchRaw(`${SITE}/f/${file.id}`)).status).toBe(200);

    const audit = await auditOf("report", id);
    expect(audit.map((a) => a.action)).toEqual(["report.escalated", "report.dismiss"]);
    expect(audit[1]).toMatchObject({ actor_id: moderator.id });
    expect(audit[1].details).toMatchObject({ fileId: file.id, ownerId: owner.id, reason: "csam", note: "false alarm" });
    expect(audit[1].created_at).toBeGreaterThan(0);
  });

  it("lifts a blocklist quarantine", async () => {
    const file = await seedFile(owner.id, { quarantinedAt: new Date() });
    // A quarantined file is under review, so it can be reported (the analysis job files such reports itself).
    const id = await reported(file, "other");
    expect((await call(`/files/${file.id}`)).status).toBe(410);
    const res = await resolve(moderator.access, id, { action: "dismiss" });
    expect(res.body.effects.fileRestored).toBe(true);
    expect((await call(`/files/${file.id}`)).status).toBe(200);
  });

  it("does not restore a file removed for other reasons", async () => {
    const file = await seedFile(owner.id);
    const id = await reported(file, "terrorism");
    await ownerDb.prepare("UPDATE files SET deleted_at = ? WHERE id = ?").bind(Date.now(), file.id).run();
    const res = await resolve(moderator.access, id, { action: "dismiss" });
    expect(res.body.effects.fileRestored).toBe(true); // hidden_at cleared ...
    expect((await call(`/files/${file.id}`)).status).toBe(410); // ... but the owner's delete stands
  });
});

describe("remove_file", () => {
  it("soft-deletes the file (410 'deleted' everywhere), takes it out of its albums, audits", async () => {
    const file = await seedFile(owner.id);
    const albumId = newShardedId("alb", shardOfIdIn(env, "file", file.id)); // on the file's (its owner's) shard
    const now = Date.now();
    const shard = (await databaseOf(file.id))!;
    await shard.batch([
      shard.prepare("INSERT INTO albums (id, user_id, title, file_count, cover_file_id, created_at, updated_at) VALUES (?, ?, 'a', 1, ?, ?, ?)").bind(
        albumId,
        owner.id,
        file.id,
        now,
        now,
      ),
      shard.prepare("INSERT INTO album_files (album_id, file_id, added_at) VALUES (?, ?, ?)").bind(albumId, file.id, now),
    ]);
    const id = await reported(file, "copyright");
    const res = await resolve(moderator.access, id, { action: "remove_file", note: "DMCA notice 42" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.effects).toMatchObject({ fileRemoved: true, fileBanned: false, blocklistEntryId: null });
    expect(res.body.report.file.state).toBe("deleted");
    expect((await fileState(file.id))!.deleted_at).toBeGreaterThan(0);
    const api = await call(`/files/${file.id}`, { token: owner.access });
    expect(api.status).toBe(410);
    expect(api.body.details.code).toBe("file_deleted");
    expect((await fetchRaw(`${IMAGE}/${file.id}`)).status).toBe(410);
    expect((await fetchRaw(`${CDN}/${file.storeKey}`)).status).toBe(410);
    expect((await fetchRaw(`${SITE}/f/${file.id}`)).status).toBe(410);

    const album = await ownerDb.prepare("SELECT file_count, cover_file_id FROM albums WHERE id = ?").bind(albumId).first<any>();
    expect(album).toEqual({ file_count: 0, cover_file_id: null });
    expect((await ownerDb.prepare("SELECT COUNT(*) AS n FROM album_files WHERE file_id = ?").bind(file.id).first<any>()).n).toBe(0);

    const audit = await auditOf("report", id);
    expect(audit.at(-1)).toMatchObject({ actor_id: moderator.id, action: "report.remove_file" });
    expect(audit.at(-1)!.details.note).toBe("DMCA notice 42");
  });

  it("the owner's account is untouched", async () => {
    const other = await verifiedUser();
    const file = await seedFile(other.id);
    await resolve(moderator.access, await reported(file), { action: "remove_file" });
    expect((await call("/account", { token: other.access })).status).toBe(200);
  });
});

describe("ban_file", () => {
  it("bans the file (410 'removed' everywhere) and adds its phash to the blocklist the analysis job checks", async () => {
    const phash = testPhash(1);
    const file = await seedFile(owner.id, { phash });
    const id = await reported(file, "violence");
    const res = await resolve(admin.access, id, { action: "ban_file", note: "gore" });
    expect(res.status, res.text).toBe(200);
    const entryId = res.body.effects.blocklistEntryId;
    expect(entryId).toMatch(/^blk_/);
    expect(res.body.effects).toMatchObject({ fileBanned: true, fileRemoved: false, userBanned: null });
    expect(res.body.report.file.state).toBe("banned");

    const api = await call(`/files/${file.id}`);
    expect(api.status).toBe(410);
    expect(api.body.details.code).toBe("file_banned");
    expect((await fetchRaw(`${IMAGE}/${file.id}`)).status).toBe(410);
    expect((await fetchRaw(`${IMAGE}/${file.id}/thumb`)).status).toBe(410);
    expect((await fetchRaw(`${CDN}/${file.storeKey}`)).status).toBe(410);
    expect((await fetchRaw(`${SITE}/f/${file.id}`)).status).toBe(410);

    const entry = await env.DB.prepare("SELECT * FROM blocklist WHERE id = ?").bind(entryId).first<any>();
    expect(entry).toMatchObject({ phash, source_file_id: file.id, report_id: id, created_by: admin.id });
    const bands = await env.DB.prepare("SELECT band, value, phash FROM blocklist_bands WHERE entry = ? ORDER BY band").bind(entryId).all<any>();
    expect(bands.results).toEqual(bandValues(phash).map((value, band) => ({ band, value, phash })));

    // The analysis job's lookup finds it for the same and for a near hash (a resized copy), not for a far one.
    expect(await matchBlocklist(directoryDb(env), phash)).toMatchObject({ entryId, distance: 0, reason: "violence" });
    expect(await matchBlocklist(directoryDb(env), flipBits(phash, [0, 9, 20, 33, 47, 60]))).toMatchObject({ entryId, distance: 6 });
    expect(await matchBlocklist(directoryDb(env), flipBits(phash, Array.from({ length: 32 }, (_, i) => i * 2)))).toBeNull();

    const audit = await auditOf("report", id);
    expect(audit.at(-1)).toMatchObject({ actor_id: admin.id, action: "report.ban_file" });
    expect(audit.at(-1)!.details).toMatchObject({ fileId: file.id, blocklistEntryId: entryId });
  });

  it("uses the client's phash hint when the server's analysis has not produced one", async () => {
    const clientPhash = testPhash(2);
    const file = await seedFile(owner.id, { phash: null, clientPhash, analysis: "pending" });
    const res = await resolve(moderator.access, await reported(file), { action: "ban_file" });
    const entry = await env.DB.prepare("SELECT phash FROM blocklist WHERE id = ?").bind(res.body.effects.blocklistEntryId).first<any>();
    expect(entry.phash).toBe(clientPhash);
  });

  it("without any phash the file is still banned; no blocklist entry is made", async () => {
    const file = await seedFile(owner.id, { phash: null, clientPhash: null });
    const res = await resolve(moderator.access, await reported(file), { action: "ban_file" });
    expect(res.status).toBe(200);
    expect(res.body.effects).toMatchObject({ fileBanned: true, blocklistEntryId: null });
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM blocklist WHERE source_file_id = ?").bind(file.id).first<any>()).n).toBe(0);
  });

  it("a file hidden by a csam report stays gone: banned, not restored", async () => {
    const file = await seedFile(owner.id, { phash: testPhash(3) });
    const res = await resolve(moderator.access, await reported(file, "csam"), { action: "ban_file" });
    expect(res.body.effects.fileBanned).toBe(true);
    const api = await call(`/files/${file.id}`);
    expect(api.status).toBe(410);
    expect(api.body.details.code).toBe("file_banned");
  });
});

describe("ban_user", () => {
  it("suspends the owner: sessions and keys stop at once, every file of theirs reads 410, the reported one is banned and blocklisted", async () => {
    const victim = await verifiedUser();
    const { key } = await createKey(victim, { permissions: ["read", "upload"] });
    const reportedFile = await seedFile(victim.id, { phash: testPhash(4) });
    const otherFile = await seedFile(victim.id);
    expect((await call(`/files/${otherFile.id}`)).status).toBe(200);

    const id = await reported(reportedFile, "hate_speech");
    const res = await resolve(moderator.access, id, { action: "ban_user", note: "repeat offender" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.effects).toMatchObject({ fileBanned: true, userBanned: victim.id });
    expect(res.body.effects.blocklistEntryId).toMatch(/^blk_/);

    const user = await env.DB.prepare("SELECT banned_at FROM users WHERE id = ?").bind(victim.id).first<any>();
    expect(user.banned_at).toBeGreaterThan(0);
    // The owner's shard has the same ban: what its files' reads decide from.
    expect(await ownerRow(victim.id)).toMatchObject({ banned_at: user.banned_at });
    // Access token: refused on the next request.
    const session = await call("/account", { token: victim.access });
    expect(session.status).toBe(401);
    expect(session.body.details.code).toBe("account_banned");
    // Refresh and login refused.
    expect((await call("/auth/refresh", { body: { refresh_token: victim.refresh } })).status).toBe(401);
    expect((await call("/auth/login", { body: { email: victim.email, password: PASSWORD } })).status).toBe(403);
    // API key: refused (the key is fine; its account is suspended).
    const viaKey = await call("/files", { token: key });
    expect([viaKey.status, viaKey.body.details.code]).toEqual([403, "account_banned"]);
    // Files: the reported one banned, the others gone with their owner.
    expect((await call(`/files/${reportedFile.id}`)).body.details.code).toBe("file_banned");
    expect((await call(`/files/${otherFile.id}`)).status).toBe(410);
    expect((await fetchRaw(`${IMAGE}/${otherFile.id}`)).status).toBe(410);
    expect((await fetchRaw(`${CDN}/${otherFile.storeKey}`)).status).toBe(410);
    expect((await fetchRaw(`${SITE}/f/${otherFile.id}`)).status).toBe(410);

    const reportAudit = await auditOf("report", id);
    expect(reportAudit.at(-1)).toMatchObject({ actor_id: moderator.id, action: "report.ban_user" });
    const userAudit = await auditOf("user", victim.id);
    expect(userAudit).toHaveLength(1);
    expect(userAudit[0]).toMatchObject({ actor_id: moderator.id, action: "user.ban" });
    expect(userAudit[0].details).toMatchObject({ reportId: id, fileId: reportedFile.id, note: "repeat offender" });
  });

  it("racing bans of one owner: one claim wins, both copies of the ban hold its time, a later ban keeps it", async () => {
    const victim = await verifiedUser();
    const first = await seedFile(victim.id);
    const id = await reported(first);
    const later = await reported(await seedFile(victim.id)); // filed before the ban
    const replies = await Promise.all([moderator, admin].map((m) => resolve(m.access, id, { action: "ban_user" })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = replies.find((r) => r.status === 200)!;
    const claimedAt = Date.parse(winner.body.report.resolvedAt);
    const directory = () => env.DB.prepare("SELECT banned_at FROM users WHERE id = ?").bind(victim.id).first<{ banned_at: number }>();
    expect((await directory())!.banned_at).toBe(claimedAt);
    expect((await ownerRow(victim.id))!.banned_at).toBe(claimedAt);
    // Banning the banned owner again (another report) moves neither copy.
    expect((await resolve(admin.access, later, { action: "ban_user" })).status).toBe(200);
    expect((await directory())!.banned_at).toBe(claimedAt);
    expect((await ownerRow(victim.id))!.banned_at).toBe(claimedAt);
  });

  it("409 for an anonymous upload (no account to ban); the report stays open", async () => {
    const file = await seedFile(null);
    const id = await reported(file);
    const res = await resolve(moderator.access, id, { action: "ban_user" });
    expect(res.status).toBe(409);
    expect(res.body.details.code).toBe("no_owner_account");
    expect((await reportRow(id))!.status).toBe("pending");
    // ban_file works for it.
    expect((await resolve(moderator.access, id, { action: "ban_file" })).status).toBe(200);
  });

  it("a moderator cannot ban themselves (409) nor an admin or another moderator (403); an admin can ban a moderator", async () => {
    const ownFile = await seedFile(moderator.id);
    const self = await resolve(moderator.access, await reported(ownFile), { action: "ban_user" });
    expect(self.status).toBe(409);
    expect(self.body.details.code).toBe("cannot_ban_self");

    const adminFile = await seedFile(admin.id);
    const onAdmin = await resolve(moderator.access, await reported(adminFile), { action: "ban_user" });
    expect(onAdmin.status).toBe(403);
    expect(onAdmin.body.details.code).toBe("insufficient_role");

    const otherMod = await userWithRole("moderator");
    const modFile = await seedFile(otherMod.id);
    const modReport = await reported(modFile);
    expect((await resolve(moderator.access, modReport, { action: "ban_user" })).status).toBe(403);
    const byAdmin = await resolve(admin.access, modReport, { action: "ban_user" });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.body.effects.userBanned).toBe(otherMod.id);
    expect((await call("/moderation/queue", { token: otherMod.access })).status).toBe(401);
  });
});
