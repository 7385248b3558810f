// View counts during an owner's move (issue 35): the counter shards hold a key's count while its owner is fenced
// (the move may have copied the row already and deletes this copy after the switch), and write it where the row
// lives once the move is done. Views made during every step are all counted afterwards.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, verifiedUser } from "../support/api";
import { IMAGE, fetchRaw, seedFile } from "../support/files";
import { viewCounterFor } from "../../src/serving/view-counter";
import { beginMove, runMoveStep } from "../../src/admin/shard-move/move";

const viewsOn = async (db: D1Database, id: string) => (await db.prepare("SELECT view_count AS n FROM files WHERE id = ?").bind(id).first<{ n: number }>())?.n;
const albumViewsOn = async (db: D1Database, id: string) => (await db.prepare("SELECT view_count AS n FROM albums WHERE id = ?").bind(id).first<{ n: number }>())?.n;

describe("view counts while the owner moves", () => {
  it("views made during every step of the move are all counted on the shard the owner ends on", async () => {
    const user = await verifiedUser();
    await env.DB.prepare("UPDATE users SET shard = 0 WHERE id = ?").bind(user.id).run();
    const file = await seedFile(user.id, { visibility: "public" });
    const album = await call("/albums", { token: user.access, body: { title: "Moving views", visibility: "public", fileIds: [file.id] } });
    expect(album.status, album.text).toBe(201);
    const albumId: string = album.body.id;
    const counters = [viewCounterFor(env, file.id), viewCounterFor(env, albumId)];
    const drain = () => Promise.all(counters.map((c) => c.drain()));

    let expected = 0;
    const view = async () => {
      expect((await fetchRaw(`${IMAGE}/${file.id}`)).status).toBe(200);
      expect((await call(`/albums/${albumId}`)).status).toBe(200);
      expected += 1;
      await drain(); // a flush in this very step: held while fenced, written once the row can take it
    };

    await view(); // before the move: written on shard 0 at once
    expect(await viewsOn(env.DB, file.id)).toBe(1);
    let progress = await beginMove(env, user.id, 1);
    let atFence = 0;
    for (let i = 0; i < 50 && progress.step !== "done"; i++) {
      await view();
      if (progress.step === "fence") atFence = expected; // the fence is not up yet: written at once
      // Fenced: nothing is written to the old shard's rows, which the move copies once and then deletes.
      else expect((await viewsOn(env.DB, file.id)) ?? atFence, `step ${progress.step}: shard 0 unchanged`).toBe(atFence);
      progress = await runMoveStep(env, user.id, { pages: 1 });
    }
    expect(progress.step).toBe("done");
    await view(); // after the move
    expect(await viewsOn(env.SHARD_1, file.id)).toBe(expected);
    expect(await albumViewsOn(env.SHARD_1, albumId)).toBe(expected);
    expect(await Promise.all(counters.map((c) => c.pending()))).toEqual([0, 0]);
  });
});
