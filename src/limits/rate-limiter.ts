// One Durable Object per rate-limit subject (a user, an IP, an e-mail under login protection), one SQLite row per
// bucket, in fixed windows aligned to the clock. RPC methods are synchronous over SQLite, so each runs to completion
// before the next request: concurrent callers cannot exceed a count. An alarm deletes ended windows. `lease()` hands
// isolates blocks of tickets (./leases.ts): the count is tickets issued, spent or not, so it never passes the limit.
// Every method takes an optional `now` (epoch ms) so tests move through windows without sleeping; production omits it.
import { DurableObject } from "cloudflare:workers";

export type LimitState = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the current window ends. */
  reset: number;
};

/** One bucket of a subject: its name, the limit per window and the window length. */
export type BucketSpec = { name: string; limit: number; windowSeconds: number; cost?: number };

export type ConsumeResult = {
  /** True when every bucket in `hits` had room; then all of them were counted, else none was. */
  allowed: boolean;
  hits: LimitState[];
  peeks: LimitState[];
};

/** A bucket in a lease call: `need` calls must fit (all or nothing across the call), up to `want` are granted. */
export type LeaseRequest = BucketSpec & { need: number; want: number };

/** What a lease call did to one bucket: tickets `count - granted + 1` to `count` are the caller's. */
export type LeaseGrant = LimitState & { count: number; granted: number };

export type LeaseResult = { allowed: boolean; buckets: LeaseGrant[] };

/**
 * Beyond what a caller needs now, a lease takes at most this share of what is left in the window (and at
 * least one call while any is left). Several isolates leasing for one subject cannot starve each other, and
 * near the end of the budget leases shrink to single calls, so the last ones are decided here, exactly.
 */
export const LEASE_SHARE = 8;

type Row = { window_start: number; count: number; window_ms: number };

export class RateLimiter extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** The alarm time this instance last set; saves a storage read per request. */
  private alarmAt: number | null | undefined;
  /**
   * Rows as last read or written. This instance is the only writer of its storage and runs one method at a
   * time, so the copy is exact; it saves the SELECT per bucket per request (writes still go to SQLite).
   */
  private readonly rows = new Map<string, Row>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS buckets (
         name TEXT PRIMARY KEY, window_start INTEGER NOT NULL, window_ms INTEGER NOT NULL, count INTEGER NOT NULL)`,
    );
  }

  /** Counts `cost` against the bucket when it fits; refuses (and counts nothing) when it does not. */
  hit(bucket: string, limit: number, windowSeconds: number, cost = 1, now = Date.now()): LimitState {
    return this.consume([{ name: bucket, limit, windowSeconds, cost }], [], now).hits[0];
  }

  /**
   * Several buckets in one round trip, all or nothing: when every bucket in `hits` has room for its cost,
   * all are counted; when any is full, none is (a refused request uses up nothing). `peeks` are reported
   * without being counted.
   */
  consume(hits: BucketSpec[], peeks: BucketSpec[] = [], now = Date.now()): ConsumeResult {
    const current = hits.map((b) => ({ spec: b, cost: b.cost ?? 1, ...this.current(b.name, b.windowSeconds, now) }));
    const allowed = current.every((b) => b.count + b.cost <= b.spec.limit);
    const hitStates = current.map((b): LimitState => {
      const reset = resetOf(b.start, b.windowMs);
      if (!allowed) return { allowed: b.count + b.cost <= b.spec.limit, limit: b.spec.limit, remaining: Math.max(0, b.spec.limit - b.count), reset };
      this.write(b.spec.name, b.start, b.windowMs, b.count + b.cost);
      return { allowed: true, limit: b.spec.limit, remaining: Math.max(0, b.spec.limit - b.count - b.cost), reset };
    });
    return { allowed, hits: hitStates, peeks: peeks.map((b) => this.peek(b.name, b.limit, b.windowSeconds, now)) };
  }

  /**
   * Leases tickets: when every bucket has room for its `need`, each is granted its need plus up to
   * `want - need` more (at most 1/LEASE_SHARE of what is left after the need); otherwise nothing is
   * granted anywhere. need = want = 0 is a peek.
   */
  lease(requests: LeaseRequest[], now = Date.now()): LeaseResult {
    const current = requests.map((r) => ({ r, ...this.current(r.name, r.windowSeconds, now) }));
    const allowed = current.every((b) => b.count + b.r.need <= b.r.limit);
    const buckets = current.map(({ r, start, windowMs, count }): LeaseGrant => {
      let granted = 0;
      if (allowed) {
        const spare = r.limit - count - r.need;
        const extra = Math.min(Math.max(0, r.want - r.need), spare <= 0 ? 0 : Math.max(1, Math.floor(spare / LEASE_SHARE)));
        granted = r.need + extra;
        if (granted > 0) this.write(r.name, start, windowMs, count + granted);
      }
      const issued = count + granted;
      return { allowed: count + r.need <= r.limit, limit: r.limit, remaining: Math.max(0, r.limit - issued), reset: resetOf(start, windowMs), count: issued, granted };
    });
    return { allowed, buckets };
  }

  /** The bucket's state without counting anything. */
  peek(bucket: string, limit: number, windowSeconds: number, now = Date.now()): LimitState {
    const { start, windowMs, count } = this.current(bucket, windowSeconds, now);
    return { allowed: count < limit, limit, remaining: Math.max(0, limit - count), reset: resetOf(start, windowMs) };
  }

  /** Gives back `cost` from the current window (e.g. a successful login is not a failure). */
  refund(bucket: string, windowSeconds: number, cost = 1, now = Date.now()): void {
    const { start, windowMs, count } = this.current(bucket, windowSeconds, now);
    if (count > 0) this.write(bucket, start, windowMs, Math.max(0, count - cost));
  }

  clear(bucket: string): void {
    this.sql.exec("DELETE FROM buckets WHERE name = ?", bucket);
    this.rows.delete(bucket);
  }

  /** Deletes the rows of windows that ended by `now`; returns when the next one ends (null: none left). */
  sweep(now = Date.now()): number | null {
    this.sql.exec("DELETE FROM buckets WHERE window_start + window_ms <= ?", now);
    this.rows.clear();
    return this.sql.exec<{ ends: number | null }>("SELECT MIN(window_start + window_ms) AS ends FROM buckets").one().ends;
  }

  /** Number of bucket rows held (tests check the alarm's cleanup with it). */
  rowCount(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM buckets").one().n;
  }

  override async alarm(): Promise<void> {
    const next = this.sweep();
    this.alarmAt = next;
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }

  private current(bucket: string, windowSeconds: number, now: number) {
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    let row = this.rows.get(bucket);
    if (!row) {
      // A bucket never written is remembered as an empty window, so peeks at it cost no query either.
      row = this.sql.exec<Row>("SELECT window_start, window_ms, count FROM buckets WHERE name = ?", bucket).toArray()[0] ?? { window_start: -1, window_ms: 0, count: 0 };
      this.rows.set(bucket, row);
    }
    const count = row && row.window_start === start && row.window_ms === windowMs ? row.count : 0;
    return { start, windowMs, count };
  }

  private write(bucket: string, start: number, windowMs: number, count: number) {
    this.sql.exec(
      `INSERT INTO buckets (name, window_start, window_ms, count) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET window_start = excluded.window_start, window_ms = excluded.window_ms, count = excluded.count`,
      bucket, start, windowMs, count,
    );
    this.rows.set(bucket, { window_start: start, window_ms: windowMs, count });
    this.ensureAlarm(start + windowMs);
  }

  /** The alarm only tidies rows (counts reset by timestamp), so its exact timing does not matter. */
  private ensureAlarm(at: number) {
    if (this.alarmAt !== undefined && this.alarmAt !== null && this.alarmAt <= at) return;
    // Not awaited: the RPC answer must not wait for it, and a lost alarm is re-armed by the next write
    // of a new instance (alarmAt starts undefined).
    void this.ctx.storage.getAlarm().then(async (existing) => {
      if (existing !== null && existing <= at) {
        this.alarmAt = existing;
        return;
      }
      this.alarmAt = at;
      await this.ctx.storage.setAlarm(at);
    });
  }
}

function resetOf(start: number, windowMs: number): number {
  return Math.ceil((start + windowMs) / 1000);
}

/** The stub for one subject, e.g. `user:usr_...`, `ip:203.0.113.9`, `login-email:a@b.c`. */
export function limiterFor(env: Env, subject: string): DurableObjectStub<RateLimiter> {
  return env.RATE_LIMITER.getByName(subject);
}
