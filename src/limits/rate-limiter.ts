// One Durable Object per rate-limit subject (a user, an IP, an e-mail under login protection).
// Fixed windows; each bucket is one SQLite row. RPC methods run one at a time inside the object,
// so a count can never be exceeded by concurrent callers. An alarm deletes rows of ended windows.
import { DurableObject } from "cloudflare:workers";

export type LimitState = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the current window ends. */
  reset: number;
};

type Row = { window_start: number; count: number; window_ms: number };

export class RateLimiter extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS buckets (
         name TEXT PRIMARY KEY, window_start INTEGER NOT NULL, window_ms INTEGER NOT NULL, count INTEGER NOT NULL)`,
    );
  }

  /** Counts `cost` against the bucket when it fits; refuses (and counts nothing) when it does not. */
  hit(bucket: string, limit: number, windowSeconds: number, cost = 1): LimitState {
    const { start, windowMs, count } = this.current(bucket, windowSeconds);
    const reset = Math.ceil((start + windowMs) / 1000);
    if (count + cost > limit) return { allowed: false, limit, remaining: Math.max(0, limit - count), reset };
    this.write(bucket, start, windowMs, count + cost);
    return { allowed: true, limit, remaining: limit - count - cost, reset };
  }

  /** The bucket's state without counting anything. */
  peek(bucket: string, limit: number, windowSeconds: number): LimitState {
    const { start, windowMs, count } = this.current(bucket, windowSeconds);
    return { allowed: count < limit, limit, remaining: Math.max(0, limit - count), reset: Math.ceil((start + windowMs) / 1000) };
  }

  /** Gives back `cost` from the current window (e.g. a successful login is not a failure). */
  refund(bucket: string, windowSeconds: number, cost = 1): void {
    const { start, windowMs, count } = this.current(bucket, windowSeconds);
    if (count > 0) this.write(bucket, start, windowMs, Math.max(0, count - cost));
  }

  clear(bucket: string): void {
    this.sql.exec("DELETE FROM buckets WHERE name = ?", bucket);
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    this.sql.exec("DELETE FROM buckets WHERE window_start + window_ms <= ?", now);
    const next = this.sql.exec<{ ends: number | null }>("SELECT MIN(window_start + window_ms) AS ends FROM buckets").one().ends;
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }

  private current(bucket: string, windowSeconds: number) {
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(Date.now() / windowMs) * windowMs;
    const row = this.sql.exec<Row>("SELECT window_start, window_ms, count FROM buckets WHERE name = ?", bucket).toArray()[0];
    const count = row && row.window_start === start && row.window_ms === windowMs ? row.count : 0;
    return { start, windowMs, count };
  }

  private write(bucket: string, start: number, windowMs: number, count: number) {
    this.sql.exec(
      `INSERT INTO buckets (name, window_start, window_ms, count) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET window_start = excluded.window_start, window_ms = excluded.window_ms, count = excluded.count`,
      bucket, start, windowMs, count,
    );
    // Storage writes are not awaited by RPC callers; the alarm only tidies rows, so its timing is loose.
    void this.ensureAlarm(start + windowMs);
  }

  private async ensureAlarm(at: number) {
    const existing = await this.ctx.storage.getAlarm();
    if (existing === null || existing > at) await this.ctx.storage.setAlarm(at);
  }
}

/** The stub for one subject, e.g. `user:usr_...`, `ip:203.0.113.9`, `login-email:a@b.c`. */
export function limiterFor(env: Env, subject: string): DurableObjectStub<RateLimiter> {
  return env.RATE_LIMITER.getByName(subject);
}
