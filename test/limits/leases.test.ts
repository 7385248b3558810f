// Leased rate limiting (src/limits/leases.ts) against the real RateLimiter object. Each LeaseHolder plays
// one isolate; several holders on one subject are several isolates serving the same user.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { LeaseHolder, type LeaseSource } from "../../src/limits/leases";
import { limiterFor, type LeaseRequest } from "../../src/limits/rate-limiter";

const api = (limit: number) => ({ name: "api", limit, windowSeconds: 3600 });
const uploads = (limit: number) => ({ name: "uploads", limit, windowSeconds: 3600 });

/** The subject's real stub, with its lease calls counted; background work is collected to be awaited. */
function isolate() {
  const subject = `test:lease:${crypto.randomUUID()}`;
  const stub = limiterFor(env, subject);
  const calls: LeaseRequest[][] = [];
  const source: LeaseSource = {
    lease: (reqs) => {
      calls.push(reqs);
      return stub.lease(reqs);
    },
  };
  const background: Promise<unknown>[] = [];
  const waitUntil = (p: Promise<unknown>) => void background.push(p);
  const settle = () => Promise.all(background.splice(0));
  return { subject, stub, source, calls, waitUntil, settle };
}

describe("RateLimiter.lease", () => {
  it("grants the need plus at most an eighth of what is left, all or nothing", async () => {
    const s = limiterFor(env, `test:lease-do:${crypto.randomUUID()}`);
    const first = await s.lease([{ ...api(100), need: 1, want: 1000 }]);
    // need 1, then min(999, floor(99 / 8)) = 12 more: tickets 1..13
    expect(first.buckets[0]).toMatchObject({ allowed: true, count: 13, granted: 13, remaining: 87 });
    const refused = await s.lease([
      { ...api(100), need: 1, want: 1 },
      { ...uploads(1), need: 2, want: 2 },
    ]);
    expect(refused.allowed).toBe(false);
    expect(refused.buckets.map((b) => b.granted)).toEqual([0, 0]);
    const peek = await s.lease([{ ...api(100), need: 0, want: 0 }]);
    expect(peek.buckets[0]).toMatchObject({ count: 13, granted: 0 });
    // Near the end a lease shrinks to one call.
    await s.hit("api", 100, 3600, 85);
    expect((await s.lease([{ ...api(100), need: 0, want: 50 }])).buckets[0]).toMatchObject({ count: 99, granted: 1 });
    expect((await s.lease([{ ...api(100), need: 0, want: 50 }])).buckets[0]).toMatchObject({ count: 100, granted: 1 });
    expect((await s.lease([{ ...api(100), need: 0, want: 50 }])).buckets[0]).toMatchObject({ count: 100, granted: 0, remaining: 0 });
  });
});

describe("LeaseHolder", () => {
  it("a hot subject's calls are decided in memory: far fewer object calls than requests", async () => {
    const i = isolate();
    const holder = new LeaseHolder();
    for (let n = 0; n < 500; n++) {
      const res = await holder.countCall(i.source, i.subject, api(100_000), uploads(100), i.waitUntil);
      expect(res.allowed).toBe(true);
      if (n % 50 === 0) await i.settle();
    }
    await i.settle();
    expect(i.calls.length).toBeLessThan(20);
    // The object counted every ticket issued, spent or not: never less than what was spent.
    expect((await i.stub.peek("api", 100_000, 3600)).remaining).toBeLessThanOrEqual(100_000 - 500);
  });

  it("a hot isolate holds only a small share of what is left, however long it runs", async () => {
    const i = isolate();
    const holder = new LeaseHolder();
    const limit = 2_000;
    for (let n = 1; n <= 1_000; n++) {
      await holder.countCall(i.source, i.subject, api(limit), uploads(100), i.waitUntil);
      await i.settle(); // every background lease lands before the next call
      if (n % 25 === 0) {
        const issued = limit - (await i.stub.peek("api", limit, 3600)).remaining;
        expect(issued - n).toBeLessThanOrEqual((limit - n) / 4 + 1);
      }
    }
  });

  it("a quiet subject with a large budget that comes back leases a floor of 1/256 of its limit", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Math.floor(Date.now() / 3600_000) * 3600_000 + 60_000);
      const i = isolate();
      const holder = new LeaseHolder();
      await holder.countCall(i.source, i.subject, api(100_000), uploads(1_000));
      expect(i.calls.map((c) => c[0].want)).toEqual([1]); // seen once: one call
      for (let n = 0; n < 50; n++) {
        vi.setSystemTime(Date.now() + 30_000); // one call every 30 s: never "busy"
        expect((await holder.countCall(i.source, i.subject, api(100_000), uploads(1_000))).allowed).toBe(true);
      }
      expect(i.calls.map((c) => c[0].want)).toEqual([1, 390]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("Remaining never goes up within a window, through background refills", async () => {
    const i = isolate();
    const holder = new LeaseHolder();
    const seen: number[] = [];
    for (let n = 0; n < 300; n++) {
      const res = await holder.countCall(i.source, i.subject, api(1_000), uploads(20), i.waitUntil);
      seen.push(res.api.remaining);
      if (n % 7 === 0) await i.settle();
    }
    for (let n = 1; n < seen.length; n++) expect(seen[n]).toBeLessThan(seen[n - 1]);
  });

  it("several isolates under parallel load never let more than the limit through", async () => {
    const i = isolate();
    const holders = Array.from({ length: 4 }, () => new LeaseHolder());
    const limit = 150;
    const bursts = holders.map(async (h) => {
      const replies = [];
      // Each isolate alone asks for the whole limit, in waves, with background refills in between.
      for (let wave = 0; wave < 5; wave++) {
        replies.push(...(await Promise.all(Array.from({ length: 30 }, () => h.countCall(i.source, i.subject, api(limit), uploads(5), i.waitUntil)))));
      }
      return replies;
    });
    const all = (await Promise.all(bursts)).flat();
    await i.settle();
    const allowed = all.filter((r) => r.allowed);
    // Leases lapse unspent in some isolates, so fewer may pass, but never more; most of the budget is used.
    expect(allowed.length).toBeLessThanOrEqual(limit);
    expect(allowed.length).toBeGreaterThan(limit * 0.6);
    // Every allowed call spent a distinct number: no call was counted twice or not at all.
    expect(new Set(allowed.map((r) => r.api.remaining)).size).toBe(allowed.length);
    expect((await i.stub.peek("api", limit, 3600)).remaining).toBe(0);
    for (const r of all.filter((x) => !x.allowed)) {
      expect(r.refusedBy).toMatchObject({ allowed: false, remaining: 0, limit });
      expect(r.refusedBy!.reset).toBe(allowed[0].api.reset);
    }
  });

  it("refuses in memory once the object said the bucket is used up, until the window ends", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const i = isolate();
      const holder = new LeaseHolder();
      await i.stub.hit("api", 10, 3600, 9);
      expect((await holder.countCall(i.source, i.subject, api(10), uploads(5))).api.remaining).toBe(0);
      const refused = await holder.countCall(i.source, i.subject, api(10), uploads(5));
      expect(refused.allowed).toBe(false);
      const calls = i.calls.length;
      expect((await holder.countCall(i.source, i.subject, api(10), uploads(5))).allowed).toBe(false);
      expect(i.calls.length).toBe(calls);
      vi.setSystemTime(refused.refusedBy!.reset * 1000);
      const fresh = await holder.countCall(i.source, i.subject, api(10), uploads(5));
      expect(fresh).toMatchObject({ allowed: true, api: { remaining: 9, reset: refused.refusedBy!.reset + 3600 } });
    } finally {
      vi.useRealTimers();
    }
  });

  it("the object's clock decides the window: an isolate that saw the next window still gets this one's tickets", async () => {
    // A clock that ran ahead (skew; in tests, a fake time across the top of the hour) left this isolate a
    // bucket of the next window. The object answers for its own window: those tickets are spent, not refused.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const i = isolate();
      const holder = new LeaseHolder();
      const now = Date.now();
      const nextHour = (Math.floor(now / 3_600_000) + 1) * 3_600_000;
      vi.setSystemTime(nextHour + 1_000);
      expect((await holder.countCall(i.source, i.subject, api(1_000), uploads(5))).allowed).toBe(true);
      vi.setSystemTime(now);
      const back = await holder.countCall(i.source, i.subject, api(1_000), uploads(5));
      expect(back).toMatchObject({ allowed: true, api: { reset: nextHour / 1000 } });
      expect((await holder.countCall(i.source, i.subject, api(1_000), uploads(5))).allowed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("an upload start takes from both buckets in one object call, and a refused one costs no API call", async () => {
    const i = isolate();
    const holder = new LeaseHolder();
    // A few API tickets in hand first.
    for (let n = 0; n < 4; n++) await holder.countCall(i.source, i.subject, api(1_000), uploads(2), i.waitUntil);
    await i.settle();
    const before = await holder.countCall(i.source, i.subject, api(1_000), uploads(2), i.waitUntil);
    const calls = i.calls.length;
    const started = await holder.countUploadStart(i.source, i.subject, api(1_000), uploads(2));
    expect(i.calls.length).toBe(calls + 1);
    expect(started).toMatchObject({ allowed: true, api: { remaining: before.api.remaining - 1 }, uploads: { remaining: 1 } });
    // Another isolate takes the last upload: this one learns it from the object and refuses.
    expect((await new LeaseHolder().countUploadStart(i.source, i.subject, api(1_000), uploads(2))).allowed).toBe(true);
    const refused = await holder.countUploadStart(i.source, i.subject, api(1_000), uploads(2));
    expect(refused).toMatchObject({ allowed: false, refusedBy: { limit: 2, remaining: 0 } });
    const after = await holder.countCall(i.source, i.subject, api(1_000), uploads(2), i.waitUntil);
    expect(after.api.remaining).toBe(started.api.remaining - 1);
    // Now known used up here: refused without asking.
    const known = i.calls.length;
    expect((await holder.countUploadStart(i.source, i.subject, api(1_000), uploads(2))).allowed).toBe(false);
    expect(i.calls.length).toBe(known);
    await i.settle();
  });

  it("a lease call the object never answers is given up: its waiters make their own calls, the bucket leases again", async () => {
    const i = isolate();
    const BOUND = 1000; // the real object answers in a few ms, even on a busy machine
    const holder = new LeaseHolder(BOUND);
    const silent: LeaseSource = { lease: () => new Promise(() => {}) };
    // The first request's own call never answers: it fails (as a request waiting for the object always did).
    // Two requests that found that call in flight each make their own once it is given up, not one after the
    // other; and the call given up does not make the next lease larger.
    const first = holder.countCall(silent, i.subject, api(1_000), uploads(20), i.waitUntil);
    let inFlight = 0;
    let mostInFlight = 0;
    const counted: LeaseSource = {
      lease: async (reqs) => {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        return i.source.lease(reqs).finally(() => inFlight--);
      },
    };
    const waiters = [0, 1].map(() => holder.countCall(counted, i.subject, api(1_000), uploads(20), i.waitUntil));
    await expect(first).rejects.toThrow(`the rate limiter did not answer a lease within ${BOUND} ms`);
    expect((await Promise.all(waiters)).map((r) => r.allowed)).toEqual([true, true]);
    expect(mostInFlight).toBe(2);
    expect(i.calls.map((c) => c[0].want)).toEqual([1, 2]);
    // A background refill that never answers (sent by a request long gone) does not hold the subject: once the
    // tickets in hand are spent, the next request waits at most the bound, then leases itself.
    expect(await holder.countCall(silent, i.subject, api(1_000), uploads(20), i.waitUntil)).toMatchObject({ allowed: true });
    const seen: number[] = [];
    for (let n = 0; n < 12; n++) seen.push((await holder.countCall(i.source, i.subject, api(1_000), uploads(20), i.waitUntil)).api.remaining);
    for (let n = 1; n < seen.length; n++) expect(seen[n]).toBeLessThan(seen[n - 1]);
    await i.settle();
  });
});
