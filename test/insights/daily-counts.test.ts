// Insights' daily rows written by the view counter's flush (extensions.md § 10): a day's counts equal the views
// counted that day, across a repeated flush and a counter object that restarts; the UTC midnight boundary; the
// referrer's host only.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signup } from "../support/api";
import { IMAGE, fetchRaw, seedFile, settledCount } from "../support/files";
import { ownerDb } from "../support/shard-db";
import { viewCounterFor } from "../../src/serving/view-counter";
import { dayOf, referrerHost } from "../../src/serving/view-counter-days";

type DayRow = { day: number; views: number; downloads: number; referrers: string };
const daysOf = async (id: string) =>
  (await ownerDb.prepare("SELECT day, views, downloads, referrers FROM file_days WHERE file_id = ? ORDER BY day").bind(id).all<DayRow>()).results.map((r) => ({
    ...r,
    referrers: JSON.parse(r.referrers),
  }));
const viewCountOf = async (id: string) => (await ownerDb.prepare("SELECT view_count AS n FROM files WHERE id = ?").bind(id).first<{ n: number }>())!.n;

afterEach(() => {
  vi.useRealTimers();
});

describe("daily counts from the view counter", () => {
  it("a day's views equal the views counted, by referring host, and add up to viewCount's growth", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id, { visibility: "public", viewCount: 5 });
    const today = dayOf(Date.now());
    await fetchRaw(`${IMAGE}/${f.id}`, { headers: { referer: "https://blog.example.com/post/1?utm_source=x#top" } });
    await fetchRaw(`${IMAGE}/${f.id}`, { headers: { referer: "https://Blog.Example.com/other" } });
    await fetchRaw(`${IMAGE}/${f.id}`);
    await fetchRaw(`${IMAGE}/${f.id}/download`);
    expect(await settledCount("file_view", f.id, 8)).toBe(8);
    const days = await daysOf(f.id);
    expect(days).toEqual([{ day: today, views: 3, downloads: 0, referrers: { "blog.example.com": 2, "(direct)": 1 } }]);
    // Nothing of the path, the query or the viewer is kept.
    const raw = await ownerDb.prepare("SELECT * FROM file_days WHERE file_id = ?").bind(f.id).first();
    expect(JSON.stringify(raw)).not.toMatch(/post|utm|top|other/);
    expect((await viewCountOf(f.id)) - 5).toBe(days[0].views);
  });

  it("a view of a variant link keeps its referring host too", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id, { visibility: "public" });
    expect((await fetchRaw(`${IMAGE}/${f.id}?w=320`, { headers: { referer: "https://shop.example.net/item/9" } })).status).toBe(200);
    expect(await settledCount("file_view", f.id, 1)).toBe(1);
    expect((await daysOf(f.id))[0].referrers).toEqual({ "shop.example.net": 1 });
  });

  it("counts downloads per day too", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    const stub = viewCounterFor(env, f.id);
    await stub.add("file_download", f.id, 4);
    await stub.drain();
    expect(await daysOf(f.id)).toEqual([{ day: dayOf(Date.now()), views: 0, downloads: 4, referrers: {} }]);
  });

  it("a repeated flush writes the same numbers, and so does a counter object that restarts", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    let stub = viewCounterFor(env, f.id);
    await stub.add("file_view", f.id, 6, "a.example");
    await stub.drain();
    // A crash after the D1 batch, before the shard noted it: everything is unwritten again.
    await runInDurableObject(stub, (_o, state) => {
      state.storage.sql.exec("UPDATE counters SET flushed = 0 WHERE id = ?", f.id);
      state.storage.sql.exec("UPDATE days SET written = 0 WHERE id = ?", f.id);
    });
    await stub.drain();
    expect((await daysOf(f.id))[0]).toMatchObject({ views: 6, referrers: { "a.example": 6 } });
    expect(await viewCountOf(f.id)).toBe(6);
    // The object restarts (its memory is gone, its storage stays): the day goes on from what it stored.
    await runInDurableObject(stub, (_o, state) => state.abort()).catch(() => undefined);
    stub = viewCounterFor(env, f.id);
    await stub.add("file_view", f.id, 2, "b.example");
    await stub.add("file_view", f.id, 1);
    await stub.drain();
    expect((await daysOf(f.id))[0]).toMatchObject({ views: 9, referrers: { "a.example": 6, "b.example": 2, "(direct)": 1 } });
    expect(await viewCountOf(f.id)).toBe(9);
  });

  it("splits the days at UTC midnight", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    const stub = viewCounterFor(env, f.id);
    const midnight = Date.UTC(2026, 10, 30);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(midnight - 1500);
    await stub.add("file_view", f.id, 3);
    vi.setSystemTime(midnight);
    await stub.add("file_view", f.id, 2);
    await stub.drain();
    const day = dayOf(midnight);
    expect((await daysOf(f.id)).map((d) => [d.day, d.views])).toEqual([
      [day - 1, 3],
      [day, 2],
    ]);
    // Two days on, the shard forgets the written days it no longer needs.
    vi.setSystemTime(midnight + 2 * 86_400_000);
    await stub.add("file_view", f.id, 1);
    await stub.drain();
    const kept = await runInDurableObject(stub, (_o, state) => state.storage.sql.exec<{ day: number }>("SELECT day FROM days WHERE id = ?", f.id).toArray().map((r) => r.day));
    expect(kept).toEqual([day + 2]);
    expect((await daysOf(f.id)).map((d) => d.views)).toEqual([3, 2, 1]);
  });

  it("keeps a capped number of hosts a day; junk hosts count as direct", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    const stub = viewCounterFor(env, f.id);
    for (let i = 0; i < 22; i++) await stub.add("file_view", f.id, 1, `h${i}.example`);
    await stub.add("file_view", f.id, 1, "bad host/../x");
    await stub.drain();
    const [day] = await daysOf(f.id);
    expect(day.views).toBe(23);
    expect(Object.keys(day.referrers)).toHaveLength(21);
    expect(day.referrers["(other)"]).toBe(3);
  });

  it("reduces a Referer to its host", () => {
    expect(referrerHost("https://news.example.org:8443/a/b?c=d")).toBe("news.example.org");
    expect(referrerHost(undefined)).toBe("(direct)");
    expect(referrerHost("not a url")).toBe("(direct)");
  });
});
