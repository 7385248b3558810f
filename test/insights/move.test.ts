// An owner's move (admin/shard-move) takes their insights along: every file's days and the owner's days are on the
// new shard and gone from the old one, and the account's stats read the same before and after. A page of the copy
// is SHARD_MOVE.pageRows files, each with its days.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, verifiedUser } from "../support/api";
import { seedFile } from "../support/files";
import { viewCounterFor } from "../../src/serving/view-counter";
import { moveOwner } from "../../src/admin/shard-move/move";
import { dayOf } from "../../src/insights/range";

const count = async (db: D1Database, sql: string, id: string) => (await db.prepare(sql).bind(id).first<{ n: number }>())!.n;

describe("insights on an owner's move", () => {
  it("file days and owner days move with the owner; the stats read the same", async () => {
    const user = await verifiedUser();
    await env.DB.prepare("UPDATE users SET shard = 0 WHERE id = ?").bind(user.id).run();
    const today = dayOf(Date.now());
    const files = [await seedFile(user.id, { shard: 0 }), await seedFile(user.id, { shard: 0 })];
    for (const [i, f] of files.entries()) {
      for (let back = 1; back <= 5; back++) {
        await env.DB.prepare("INSERT INTO file_days (file_id, day, user_id, views, referrers) VALUES (?, ?, ?, ?, ?)")
          .bind(f.id, today - back, user.id, back + i, JSON.stringify({ "a.example": back + i }))
          .run();
      }
    }
    for (let back = 1; back <= 3; back++) {
      await env.DB.prepare("INSERT INTO owner_days (user_id, day, uploads, storage_bytes) VALUES (?, ?, 1, ?)").bind(user.id, today - back, back * 1000).run();
    }
    const stub = viewCounterFor(env, files[0].id);
    await stub.add("file_view", files[0].id, 4, "b.example");
    await stub.drain();
    const before = (await call("/account/stats", { token: user.access })).body;
    expect(before.days.at(-1).views).toBe(4);

    expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done", toShard: 1 });
    const fileDays = "SELECT COUNT(*) AS n FROM file_days WHERE user_id = ?";
    const ownerDays = "SELECT COUNT(*) AS n FROM owner_days WHERE user_id = ?";
    expect([await count(env.SHARD_1, fileDays, user.id), await count(env.SHARD_1, ownerDays, user.id)]).toEqual([11, 3]);
    expect([await count(env.DB, fileDays, user.id), await count(env.DB, ownerDays, user.id)]).toEqual([0, 0]);
    const after = (await call("/account/stats", { token: user.access })).body;
    expect(after.days.map((d: { views: number }) => d.views)).toEqual(before.days.map((d: { views: number }) => d.views));
    expect(after.referrers).toEqual(before.referrers);

    // Counted after the move: written where the owner now lives, on the same day's row.
    await stub.add("file_view", files[0].id, 2, "b.example");
    await stub.drain();
    const now = (await call(`/files/${files[0].id}/stats`, { token: user.access })).body;
    expect(now.days.at(-1).views).toBe(6);
  });
});
