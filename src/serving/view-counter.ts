// View and download counting without a D1 write per request: hits gathered per isolate, then one RPC per counted
// thing to a ViewCounter shard, which writes absolute values to D1 (`MAX(col, base + counted)`), so a retried flush
// never counts twice. Why that is exactly-once, and the key's one writer: docs/files-and-serving.md § View counting.
import { DurableObject } from "cloudflare:workers";
import { SHARD_MOVE, VIEW_COUNTER } from "../config";
import { runBatch, shardDb, type ShardDb } from "../platform/data/db";
import { shardOfIdIn } from "../platform/data/shards";
import { movedShards } from "../platform/data/moved-ids";
import { KINDS, TARGETS, groupBy, type CounterKind } from "./view-counter-targets";
import { DIRECT, countDay, createDayTable, dayStatements, markDaysWritten, pruneDays, referrerHost } from "./view-counter-days";
import { config } from "../config/env";

export type { CounterKind };

type Row = { kind: CounterKind; id: string; base: number | null; counted: number; flushed: number };
const COLUMNS = "kind, id, base, counted, flushed";

/** D1 binds at most 100 parameters per statement. */
const IDS_PER_QUERY = 90;

export class ViewCounter extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private alarmArmed = false;
  private flushing: Promise<number> | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS counters (
         kind TEXT NOT NULL, id TEXT NOT NULL, base INTEGER, counted INTEGER NOT NULL, flushed INTEGER NOT NULL DEFAULT 0,
         PRIMARY KEY (kind, id))`,
    );
    // Ids whose owner moved to another shard (moved_files, learnt when their base was read): written there.
    this.sql.exec("CREATE TABLE IF NOT EXISTS moved (id TEXT PRIMARY KEY, shard INTEGER NOT NULL)");
    // Keys held while their owner is being moved: not tried again before this time (epoch ms).
    if (!this.sql.exec<{ name: string }>("PRAGMA table_info(counters)").toArray().some((c) => c.name === "held_until")) {
      this.sql.exec("ALTER TABLE counters ADD COLUMN held_until INTEGER");
    }
    createDayTable(this.sql); // per file and UTC day: view-counter-days.ts
  }

  /** Counts `n` hits (from referring `host`). Stored before the RPC answers (output gate), flushed to D1 by the alarm. */
  add(kind: CounterKind, id: string, n = 1, host?: string): void {
    if (!KINDS.includes(kind) || typeof id !== "string" || id.length > 64 || !Number.isSafeInteger(n) || n < 1) return;
    countDay(this.sql, kind, id, n, typeof host === "string" ? host : undefined, Date.now());
    this.sql.exec(
      `INSERT INTO counters (kind, id, base, counted, flushed) VALUES (?, ?, NULL, ?, 0)
       ON CONFLICT (kind, id) DO UPDATE SET counted = counted + excluded.counted`,
      kind,
      id,
      n,
    );
    this.armAlarm();
  }

  /** Hits received but not yet written to D1. */
  pending(): number {
    return this.sql.exec<{ n: number | null }>("SELECT SUM(counted - flushed) AS n FROM counters").one().n ?? 0;
  }

  /** Hits of one key not yet written to D1. */
  pendingOf(kind: CounterKind, id: string): number {
    const row = this.sql.exec<{ n: number }>("SELECT counted - flushed AS n FROM counters WHERE kind = ? AND id = ?", kind, id).toArray()[0];
    return row?.n ?? 0;
  }

  /** Writes everything pending now (tests and shutdown drains); returns the number of keys written. */
  async drain(): Promise<number> {
    let total = 0;
    for (let i = 0; i < 100; i++) {
      const n = await this.flush(true);
      total += n;
      if (n === 0 || this.pending() === 0) break;
    }
    return total;
  }

  override async alarm(): Promise<void> {
    this.alarmArmed = false;
    await this.flush();
    if (this.pending() > 0) {
      // More than one batch was waiting, or hits came in during the flush.
      this.alarmArmed = true;
      await this.ctx.storage.setAlarm(Date.now() + VIEW_COUNTER.flushDelayMs);
    }
  }

  /** One batch; concurrent callers share the flush in progress. `evenHeld`: held keys are tried too (drain). */
  flush(evenHeld = false): Promise<number> {
    this.flushing ??= this.flushBatch(evenHeld).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private armAlarm() {
    if (this.alarmArmed) return;
    this.alarmArmed = true;
    // Not awaited: the hit is already stored; an alarm that fails to be set is re-armed by the next hit of
    // a fresh instance, and pending rows survive in storage meanwhile.
    void this.ctx.storage
      .getAlarm()
      .then((at) => (at === null ? this.ctx.storage.setAlarm(Date.now() + VIEW_COUNTER.flushDelayMs) : undefined))
      .catch(() => {
        this.alarmArmed = false;
      });
  }

  private async flushBatch(evenHeld: boolean): Promise<number> {
    const heldBefore = evenHeld ? Number.MAX_SAFE_INTEGER : Date.now();
    const rows = this.sql
      .exec<Row>(`SELECT ${COLUMNS} FROM counters WHERE counted > flushed AND (held_until IS NULL OR held_until <= ?) LIMIT ?`, heldBefore, VIEW_COUNTER.flushBatch)
      .toArray();
    if (rows.length === 0) return 0;

    await this.loadBases(rows.filter((r) => r.base === null));

    // Re-read: hits may have arrived while the bases loaded; the snapshot below is what this flush writes.
    const ready = rows
      .map((r) => this.sql.exec<Row>(`SELECT ${COLUMNS} FROM counters WHERE kind = ? AND id = ?`, r.kind, r.id).toArray()[0])
      .filter((r): r is Row => !!r && r.base !== null && r.counted > r.flushed);
    if (ready.length === 0) return 0;

    // One batch per database the counted rows live on (an id names its shard), concurrently.
    const byShard = groupBy(ready, (r) => this.shardOf(r));
    const written = await Promise.all(
      [...byShard].map(async ([n, group]) => {
        const db = shardDb(this.env, n);
        const days = dayStatements(this.sql, db, group.filter((r) => r.kind !== "album_view").map((r) => r.id));
        const raises = group.map((r) => TARGETS[r.kind].raise(db, r.id, (r.base ?? 0) + r.counted));
        const results = await runBatch(db, [...raises, ...days.statements]);
        const missed = group.filter((_, i) => results[i].meta.changes === 0);
        const followed = missed.length > 0 ? await this.notWritten(db, missed) : 0;
        const done = group.filter((_, i) => results[i].meta.changes > 0);
        markDaysWritten(this.sql, days.rows, new Set(done.map((r) => r.id)));
        return { done, followed };
      }),
    );

    const done = written.flatMap((w) => w.done);
    for (const r of done) {
      this.sql.exec("UPDATE counters SET flushed = MAX(flushed, ?), held_until = NULL WHERE kind = ? AND id = ?", r.counted, r.kind, r.id);
    }
    this.sql.exec("DELETE FROM counters WHERE counted = flushed");
    this.sql.exec("DELETE FROM moved WHERE id NOT IN (SELECT id FROM counters)");
    pruneDays(this.sql, Date.now());
    // Held keys are not counted (a drain stops at them); keys that learnt where they moved are (the next flush writes them).
    return done.length + written.reduce((n, w) => n + w.followed, 0);
  }

  /**
   * Keys a flush did not write on `db`: held while their owner is being moved (the row is here, fenced), followed
   * when the row moved on (moved_files), dropped when it is gone. Returns how many were followed.
   */
  private async notWritten(db: ShardDb, rows: Row[]): Promise<number> {
    let followed = 0;
    for (const kind of KINDS) {
      const ids = rows.filter((r) => r.kind === kind).map((r) => r.id);
      for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
        const chunk = ids.slice(i, i + IDS_PER_QUERY);
        const here = new Map((await TARGETS[kind].fences(db, chunk)).map((r) => [r.id, r.moving]));
        const moved = await movedShards(db, chunk.filter((id) => !here.has(id)));
        for (const id of chunk) {
          if (here.has(id)) this.sql.exec("UPDATE counters SET held_until = ? WHERE kind = ? AND id = ?", Date.now() + VIEW_COUNTER.flushDelayMs, kind, id);
          else if (moved.has(id)) {
            this.sql.exec("INSERT OR REPLACE INTO moved (id, shard) VALUES (?, ?)", id, moved.get(id)!);
            followed += 1;
          } else this.sql.exec("DELETE FROM counters WHERE kind = ? AND id = ?", kind, id);
        }
      }
    }
    return followed;
  }

  /** Reads D1's current value for keys this shard has not based yet; keys whose row is gone are dropped. */
  private async loadBases(rows: Row[]) {
    for (const kind of KINDS) {
      for (const [n, group] of groupBy(rows.filter((r) => r.kind === kind), (r) => this.shardOf(r))) {
        await this.loadBasesOn(kind, shardDb(this.env, n), group.map((r) => r.id));
      }
    }
  }

  /** D1's primary of the shard the row's id names: it writes, and reads back what it wrote. */
  private shardOf(row: Pick<Row, "kind" | "id">): number {
    const moved = this.sql.exec<{ shard: number }>("SELECT shard FROM moved WHERE id = ?", row.id).toArray()[0];
    return moved?.shard ?? shardOfIdIn(this.env, row.kind === "album_view" ? "alb" : "file", row.id);
  }

  private async loadBasesOn(kind: CounterKind, db: ShardDb, ids: string[], hops = 0) {
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const chunk = ids.slice(i, i + IDS_PER_QUERY);
      const found = await TARGETS[kind].read(db, chunk);
      const values = new Map(found.map((r) => [r.id, r.value]));
      // Missing here: moved with their owner (then counted where they are now), or gone (then dropped).
      const moved = hops < SHARD_MOVE.maxHops ? await movedShards(db, chunk.filter((id) => !values.has(id))) : new Map<string, number>();
      for (const id of chunk) {
        const value = values.get(id);
        if (moved.has(id)) this.sql.exec("INSERT OR REPLACE INTO moved (id, shard) VALUES (?, ?)", id, moved.get(id)!);
        else if (value === undefined) this.sql.exec("DELETE FROM counters WHERE kind = ? AND id = ?", kind, id);
        else this.sql.exec("UPDATE counters SET base = ? WHERE kind = ? AND id = ? AND base IS NULL", value, kind, id);
      }
      for (const [n, group] of groupBy([...moved], ([, shard]) => shard)) {
        await this.loadBasesOn(kind, shardDb(this.env, n), group.map(([id]) => id), hops + 1);
      }
    }
  }
}

/** FNV-1a: a stable, well-spread shard number for a key. */
function shardOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % VIEW_COUNTER.shards;
}

export function viewCounterFor(env: Env, id: string): DurableObjectStub<ViewCounter> {
  return env.VIEW_COUNTER.getByName(`views:${shardOf(id)}`);
}

type WaitUntil = { waitUntil(promise: Promise<unknown>): void };

/** One RPC for `n` hits; one retry covers a transient failure. A direct hit sends no host. */
function sendHits(env: Env, kind: CounterKind, id: string, n: number, host: string): Promise<void> {
  const stub = viewCounterFor(env, id);
  const send = () => (host === DIRECT ? stub.add(kind, id, n) : stub.add(kind, id, n, host));
  return send()
    .catch(() => send())
    .catch((err) => console.error(`view counter: lost ${n} ${kind} hit(s) for ${id}`, err));
}

/** VIEW_COALESCE_MS: how long an isolate gathers hits before sending them (0: one RPC per hit). */
const coalesceMs = (env: Env): number => config(env).viewCoalesceMs;

// Hits gathered in this isolate during the current window, by kind and id: one RPC per window, not per view.
// Only the request that opened the window waits for it (waitUntil): a request left waiting on another's timer is
// cancelled by workerd as hung (docs/files-and-serving.md § View counting). A window is open while hits are pending.
const pending = new Map<string, { env: Env; kind: CounterKind; id: string; n: number; host: string }>();

async function sendPending(): Promise<void> {
  const batch = [...pending.values()];
  pending.clear(); // hits from now on open the next window
  await Promise.all(batch.map((h) => sendHits(h.env, h.kind, h.id, h.n, h.host)));
}

/**
 * Counts a hit after the response is sent, gathered with the isolate's other hits for VIEW_COALESCE_MS.
 * `referer`: the request's Referer header; only its host is kept, for views (insights' referrers).
 */
export function countHit(env: Env, ctx: WaitUntil, kind: CounterKind, id: string, referer?: string): void {
  const host = kind === "file_view" ? referrerHost(referer) : DIRECT;
  const ms = coalesceMs(env);
  if (ms === 0) {
    ctx.waitUntil(sendHits(env, kind, id, 1, host));
    return;
  }
  const opens = pending.size === 0; // else the request that opened this window sends this hit with the rest
  const key = `${kind}:${id}:${host}`;
  const hit = pending.get(key);
  if (hit) hit.n++;
  else pending.set(key, { env, kind, id, n: 1, host });
  if (opens) ctx.waitUntil(new Promise<void>((resolve) => setTimeout(resolve, ms)).then(sendPending));
}
