// Moderation follows a moved owner (issue 35, docs/sharding.md § Moving an owner): a report filed before the move
// and one filed after it show their file in the queue, show its bytes to a moderator, and every resolution acts
// on the shard the file lives on now; a csam report made during any step of the move leaves the file hidden on the
// shard it ends on, and so does a takedown that reached only the old shard while the copy ran (verify catches it).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, fetchRaw, seedFile } from "../support/files";
import { queue, report, resolve, userWithRole } from "../support/moderation";
import { beginMove, moveOwner, runMoveStep, type MoveStep } from "../../src/admin/shard-move/move";

const shard = (n: number): D1Database => (n === 0 ? env.DB : env.SHARD_1);
let moderator: TestUser;

beforeAll(async () => {
  moderator = await userWithRole("moderator");
});

/** A verified owner placed on shard 0 with `n` finalized files there (ids naming shard 0). */
async function ownerOnShard0(n: number) {
  const user = await verifiedUser();
  await env.DB.prepare("UPDATE users SET shard = 0 WHERE id = ?").bind(user.id).run();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await seedFile(user.id, { visibility: "public" })).id);
  return { user, ids };
}

const stateOn = (n: number, id: string) =>
  shard(n).prepare("SELECT hidden_at, deleted_at, banned_at FROM files WHERE id = ?").bind(id).first<Record<string, number | null>>();

/** Runs the owner's move a page at a time until it is about to run `step` (or, for "copy", after `pages` pages of it). */
async function moveUntil(userId: string, step: MoveStep, copyPages = 0) {
  let progress = await beginMove(env, userId, 1);
  for (let i = 0; i < 50 && progress.step !== step; i++) progress = await runMoveStep(env, userId, { pages: 1 });
  expect(progress.step, `the move reached ${step}`).toBe(step);
  for (let i = 0; i < copyPages; i++) progress = await runMoveStep(env, userId, { pages: 1 });
  return progress;
}

const RESOLUTIONS = [
  { action: "dismiss", expect: (s: Record<string, number | null>) => expect(s.hidden_at).toBeNull(), status: 200 },
  { action: "remove_file", expect: (s: Record<string, number | null>) => expect(s.deleted_at).not.toBeNull(), status: 410 },
  { action: "ban_file", expect: (s: Record<string, number | null>) => expect(s.banned_at).not.toBeNull(), status: 410 },
  { action: "ban_user", expect: (s: Record<string, number | null>) => expect(s.banned_at).not.toBeNull(), status: 410 },
] as const;

/** Each resolution on its own file's report: the queue shows the file, the content view its bytes, the action lands on shard 1. */
async function resolveEach(ids: string[], reportIds: string[]) {
  for (const [i, r] of RESOLUTIONS.entries()) {
    const listed = await queue(moderator.access, `fileId=${ids[i]}`);
    expect(listed.status).toBe(200);
    expect(listed.body.reports[0].file, `the queue shows ${ids[i]}`).toMatchObject({ id: ids[i], state: "live" });
    const content = await call(`/moderation/reports/${reportIds[i]}/content`, { token: moderator.access });
    expect(content.status, content.text).toBe(200);
    const res = await resolve(moderator.access, reportIds[i], { action: r.action, note: "checked" });
    expect(res.status, `${r.action}: ${res.text}`).toBe(200);
    r.expect((await stateOn(1, ids[i]))!);
    expect((await fetchRaw(`${IMAGE}/${ids[i]}`)).status, `${r.action}: the byte link`).toBe(r.status);
  }
}

describe("moderation of a moved owner's files", () => {
  it("a report filed before the move: the queue, the content view and every resolution follow the file", async () => {
    const { user, ids } = await ownerOnShard0(4);
    const reportIds: string[] = [];
    for (const id of ids) {
      const filed = await report({ fileId: id, reason: "spam" });
      expect(filed.status).toBe(201);
      reportIds.push(filed.body.reportId);
    }
    expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done" });
    await resolveEach(ids, reportIds);
  });

  it("a report filed after the move: filing finds the file, and every resolution acts on it", async () => {
    const { user, ids } = await ownerOnShard0(4);
    expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done" });
    const reportIds: string[] = [];
    for (const id of ids) {
      const filed = await report({ fileId: id, reason: "spam" });
      expect(filed.status, filed.text).toBe(201);
      reportIds.push(filed.body.reportId);
    }
    await resolveEach(ids, reportIds);
  });

  it("a csam report hides the file on shard 1 after the move is done", async () => {
    const { user, ids } = await ownerOnShard0(1);
    expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done" });
    expect((await report({ fileId: ids[0], reason: "csam" })).status).toBe(201);
    expect((await stateOn(1, ids[0]))!.hidden_at).not.toBeNull();
    expect((await fetchRaw(`${IMAGE}/${ids[0]}`)).status).toBe(410);
  });
});

describe("a csam report during each step of the move leaves the file hidden where it ends", () => {
  // [the step the move is about to run, pages of the copy already run]: the copy after its files page is the
  // case a hide on the old shard alone would lose (the row was copied before it, and is deleted after the switch).
  const cases: [MoveStep, number][] = [
    ["copy", 0],
    ["copy", 1],
    ["verify", 0],
    ["switch", 0],
    ["delete", 0],
  ];
  for (const [step, pages] of cases) {
    it(`reported before ${step}${pages ? ` (after ${pages} page of it)` : ""}`, async () => {
      const { user, ids } = await ownerOnShard0(1);
      await moveUntil(user.id, step, pages);
      const filed = await report({ fileId: ids[0], reason: "csam" });
      expect(filed.status, filed.text).toBe(201);
      expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done" });
      expect((await stateOn(1, ids[0]))!.hidden_at, "hidden on the shard it ends on").not.toBeNull();
      expect(await stateOn(0, ids[0]), "gone from the old shard").toBeNull();
      expect((await fetchRaw(`${IMAGE}/${ids[0]}`)).status).toBe(410);
      // And the moderator acts on it there.
      const res = await resolve(moderator.access, filed.body.reportId, { action: "ban_file", note: "csam" });
      expect(res.status, res.text).toBe(200);
      expect((await stateOn(1, ids[0]))!.banned_at).not.toBeNull();
    });
  }

  it("a change that reached only the old shard after its page was copied is caught by verify and copied again", async () => {
    const { user, ids } = await ownerOnShard0(1);
    await moveUntil(user.id, "copy", 1); // the files page is on shard 1 already
    const at = Date.now() + 1;
    await env.DB.prepare("UPDATE files SET hidden_at = ?, updated_at = ? WHERE id = ?").bind(at, at, ids[0]).run();
    expect((await stateOn(1, ids[0]))!.hidden_at).toBeNull();
    await expect(moveOwner(env, user.id, 1)).rejects.toMatchObject({ code: "owner_move_unverified" });
    expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done" });
    expect((await stateOn(1, ids[0]))!.hidden_at).toBe(at);
  });

  it("a membership removed on the old shard after its album was copied leaves the new shard too, so the move converges", async () => {
    const { user, ids } = await ownerOnShard0(1);
    const album = await call("/albums", { token: user.access, body: { title: "Copied", visibility: "public", fileIds: ids } });
    expect(album.status, album.text).toBe(201);
    await moveUntil(user.id, "copy", 2); // the files page, then the albums page with its membership
    expect(await env.SHARD_1.prepare("SELECT COUNT(*) AS n FROM album_files WHERE album_id = ?").bind(album.body.id).first("n")).toBe(1);
    await env.DB.prepare("DELETE FROM album_files WHERE album_id = ?").bind(album.body.id).run();
    await expect(moveOwner(env, user.id, 1)).rejects.toMatchObject({ code: "owner_move_unverified" });
    expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done" });
    expect(await env.SHARD_1.prepare("SELECT COUNT(*) AS n FROM album_files WHERE album_id = ?").bind(album.body.id).first("n")).toBe(0);
  });
});
