// The RateLimiter Durable Object on its own: counting, all-or-nothing multi-bucket consumption, windows
// moving with time (explicit `now`) and the alarm's cleanup.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { limiterFor, type RateLimiter } from "../../src/limits/rate-limiter";

const HOUR = 3600_000;
/** A fixed instant at the start of an hour, so window edges are easy to reason about. */
const T0 = Math.floor(Date.now() / HOUR) * HOUR + 10 * HOUR;

const stub = (name: string) => limiterFor(env, `test:${name}:${crypto.randomUUID()}`);
const api = (limit: number) => ({ name: "api", limit, windowSeconds: 3600 });
const uploads = (limit: number) => ({ name: "uploads", limit, windowSeconds: 3600 });

describe("RateLimiter.hit", () => {
  it("counts up to the limit and refuses after, without counting refusals", async () => {
    const s = stub("hit");
    const states = [];
    for (let i = 0; i < 4; i++) states.push(await s.hit("api", 3, 3600, 1, T0 + i));
    expect(states.map((x) => [x.allowed, x.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(states[0].reset).toBe((T0 + HOUR) / 1000);
    expect((await s.peek("api", 3, 3600, T0 + 10)).remaining).toBe(0);
  });

  it("starts a new window when the hour turns", async () => {
    const s = stub("window");
    await s.hit("api", 1, 3600, 1, T0 + HOUR - 1);
    expect((await s.hit("api", 1, 3600, 1, T0 + HOUR - 1)).allowed).toBe(false);
    const next = await s.hit("api", 1, 3600, 1, T0 + HOUR);
    expect(next).toEqual({ allowed: true, limit: 1, remaining: 0, reset: (T0 + 2 * HOUR) / 1000 });
  });

  it("refund gives back and clear forgets", async () => {
    const s = stub("refund");
    await s.hit("b", 5, 3600, 3, T0);
    await s.refund("b", 3600, 1, T0);
    expect((await s.peek("b", 5, 3600, T0)).remaining).toBe(3);
    await s.clear("b");
    expect((await s.peek("b", 5, 3600, T0)).remaining).toBe(5);
  });
});

describe("RateLimiter.consume", () => {
  it("counts every bucket when all have room, and none when one is full", async () => {
    const s = stub("consume");
    const first = await s.consume([api(10), uploads(1)], [], T0);
    expect(first.allowed).toBe(true);
    expect(first.hits.map((h) => h.remaining)).toEqual([9, 0]);
    const second = await s.consume([api(10), uploads(1)], [], T0);
    expect(second.allowed).toBe(false);
    expect(second.hits.map((h) => h.allowed)).toEqual([true, false]);
    // The refused call used up nothing in the bucket that had room.
    const after = await s.consume([], [api(10), uploads(1)], T0);
    expect(after.peeks.map((h) => h.remaining)).toEqual([9, 0]);
  });

  it("peeks without counting", async () => {
    const s = stub("peek");
    const res = await s.consume([api(5)], [uploads(2)], T0);
    expect(res.peeks[0]).toMatchObject({ allowed: true, limit: 2, remaining: 2 });
    expect((await s.consume([api(5)], [uploads(2)], T0)).peeks[0].remaining).toBe(2);
  });

  it("is exact under concurrency: 2x the limit in parallel lets exactly the limit through", async () => {
    const s = stub("parallel");
    const results = await Promise.all(Array.from({ length: 60 }, () => s.consume([api(30), uploads(100)], [], T0)));
    expect(results.filter((r) => r.allowed)).toHaveLength(30);
    expect((await s.peek("api", 30, 3600, T0)).remaining).toBe(0);
    expect((await s.peek("uploads", 100, 3600, T0)).remaining).toBe(70);
  });
});

describe("RateLimiter alarm", () => {
  it("deletes rows of ended windows and re-arms for the rest", async () => {
    // Only Date is faked (the DO shares the test's isolate), so storage I/O runs normally.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(T0 + 5 * 60_000);
      const s = stub("alarm");
      await s.hit("hourly", 5, 3600);
      await s.hit("minutely", 5, 60);
      await runInDurableObject(s, async (instance: RateLimiter, state) => {
        expect(instance.rowCount()).toBe(2);
        expect(await state.storage.getAlarm()).toBe(T0 + 6 * 60_000); // the earliest window end
      });
      vi.setSystemTime(T0 + 6 * 60_000);
      expect(await runDurableObjectAlarm(s)).toBe(true);
      await runInDurableObject(s, async (instance: RateLimiter, state) => {
        expect(instance.rowCount()).toBe(1);
        expect(await state.storage.getAlarm()).toBe(T0 + HOUR);
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it("sweep(now) clears everything once every window has ended", async () => {
    const s = stub("sweep");
    await s.hit("a", 5, 3600, 1, T0);
    await s.hit("b", 5, 60, 1, T0);
    expect(await s.sweep(T0 + 60_000)).toBe(T0 + HOUR);
    expect(await s.sweep(T0 + HOUR)).toBeNull();
    expect(await s.rowCount()).toBe(0);
  });
});
