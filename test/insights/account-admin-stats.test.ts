// GET /account/stats and GET /admin/stats (extensions.md § 10), and the cron's rows behind them: each owner's
// finished day, the service's sums over every shard, and the 90-day prune.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, signup, verifiedUser } from "../support/api";
import { seedFile } from "../support/files";
import { uploadKeys } from "../support/key-set";
import { setStorage } from "../support/owners";
import { ownerDb } from "../support/shard-db";
import { roleCast } from "../admin/helpers";
import { viewCounterFor } from "../../src/serving/view-counter";
import { DAY_MS, dateOf, dayOf } from "../../src/insights/range";
import { pruneDays, rollInsights, rollOwnerDays } from "../../src/insights/rollup";
import { shardDb } from "../../src/platform/data/db";
import { shardOfUser } from "../support/shard-db";
import { runScheduled } from "../../src/jobs/scheduled";

const views = async (id: string, n: number, host?: string) => {
  const stub = viewCounterFor(env, id);
  await stub.add("file_view", id, n, host);
  await stub.drain();
};

describe("GET /account/stats", () => {
  it("answers views, downloads, uploads and storage per day, the top files and referrers", async () => {
    const owner = await verifiedUser();
    const [a, b] = [await seedFile(owner.id, { title: "A" }), await seedFile(owner.id, { title: "B" })];
    await setStorage(owner.id, 5000);
    await views(a.id, 2, "x.example");
    await views(b.id, 5, "y.example");
    const res = await call("/account/stats", { token: owner.access });
    expect(res.status, res.text).toBe(200);
    expect(res.body.days).toHaveLength(30);
    expect(res.body.days[29]).toEqual({ date: dateOf(dayOf(Date.now())), views: 7, downloads: 0, uploads: 2, storageBytes: 5000 });
    expect(res.body.topFiles.map((f: { id: string; views: number }) => [f.id, f.views])).toEqual([
      [b.id, 5],
      [a.id, 2],
    ]);
    expect(res.body.topFiles[0].thumbnailUrl).toContain(b.id);
    expect(res.body.referrers).toEqual([
      { host: "y.example", views: 5 },
      { host: "x.example", views: 2 },
    ]);
  });

  it("past days come from the cron's row for the owner, written once after the day", async () => {
    const owner = await verifiedUser();
    const yesterday = Date.now() - DAY_MS;
    await seedFile(owner.id, { createdAt: new Date(yesterday) });
    await setStorage(owner.id, 1234);
    const db = shardDb(env, await shardOfUser(owner.id));
    await rollOwnerDays(db, Date.now());
    await setStorage(owner.id, 9999);
    expect(await rollOwnerDays(db, Date.now())).toBe(0); // done for that day: nothing rewritten
    const res = await call("/account/stats", { token: owner.access });
    expect(res.body.days[28]).toMatchObject({ date: dateOf(dayOf(yesterday)), uploads: 1, storageBytes: 1234 });
    expect(res.body.days[29]).toMatchObject({ uploads: 0, storageBytes: 9999 });
  });

  it("needs a session or a key with `read`", async () => {
    const owner = await verifiedUser();
    const keys = await uploadKeys(owner);
    const read = (await createKey(owner, { permissions: ["read"] })).key;
    expect((await call("/account/stats", { token: read })).status).toBe(200);
    expect((await call("/account/stats", { token: keys.upload })).body.details.code).toBe("missing_permission");
    for (const token of [keys.revoked, keys.expired, undefined]) expect((await call("/account/stats", { token })).status).toBe(401);
    expect((await call("/account/stats?from=2020-01-01", { token: owner.access })).status).toBe(400);
  });
});

describe("the cron's insights", () => {
  it("is one of the cron's tasks", async () => {
    expect((await runScheduled(env, Date.now())).insights).toMatchObject({ serviceDays: 2, prunedFileDays: expect.any(Number), ownerDays: expect.any(Number) });
  });

  it("prunes file and owner days older than 90 days", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    const today = dayOf(Date.now());
    for (const day of [today - 90, today - 89]) {
      await ownerDb.prepare("INSERT INTO file_days (file_id, day, user_id, views) VALUES (?, ?, ?, 1)").bind(f.id, day, owner.id).run();
      await ownerDb.prepare("INSERT INTO owner_days (user_id, day, uploads) VALUES (?, ?, 1)").bind(owner.id, day).run();
    }
    await pruneDays(shardDb(env, await shardOfUser(owner.id)), Date.now());
    const left = await ownerDb.prepare("SELECT day FROM file_days WHERE file_id = ?").bind(f.id).all<{ day: number }>();
    expect(left.results.map((r) => r.day)).toEqual([today - 89]);
    const owned = await ownerDb.prepare("SELECT day FROM owner_days WHERE user_id = ?").bind(owner.id).all<{ day: number }>();
    expect(owned.results.map((r) => r.day)).toEqual([today - 89]);
  });
});

describe("GET /admin/stats", () => {
  it("answers the service's days as every shard's sums, for admins only", async () => {
    const { user, moderator, admin, adminKey } = await roleCast();
    const f = await seedFile(user.id);
    await views(f.id, 4);
    await rollInsights(env, Date.now());
    const before = (await call("/admin/stats", { token: admin.access })).body.days[29];
    const g = await seedFile(user.id);
    await views(g.id, 3);
    await env.DB.prepare("INSERT INTO reports (id, file_id, reason, created_at, updated_at) VALUES (?, ?, 'spam', ?, ?)")
      .bind(`rpt_insights_${g.id}`, g.id, Date.now(), Date.now())
      .run();
    await rollInsights(env, Date.now());
    const res = await call("/admin/stats", { token: admin.access });
    expect(res.status, res.text).toBe(200);
    const today = res.body.days[29];
    expect(today.date).toBe(dateOf(dayOf(Date.now())));
    expect(today.views - before.views).toBe(3);
    expect(today.uploads - before.uploads).toBe(1);
    expect(today.uploadBytes - before.uploadBytes).toBe(g.bytes);
    expect(today.signups).toBeGreaterThanOrEqual(3);
    expect(today.reports - before.reports).toBe(1);
    for (const [token, status] of [[user.access, 403], [moderator.access, 403], [adminKey, 403], [undefined, 401]] as const) {
      expect((await call("/admin/stats", { token })).status).toBe(status);
    }
  });
});
