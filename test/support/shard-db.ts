// Raw reads and writes of owner tables in tests, on the right shard (docs/sharding.md): owners are placed on
// both shards, so a test that looks at files, uploads, albums, owners or band rows directly must ask the database
// that holds them. `ownerDb.prepare(sql).bind(...)` picks it from the first bound id: a file, upload or album id
// names its shard, a user id is looked up (users.shard). A statement that binds no id runs on every shard:
// `first()` answers the first row found, `all()` every shard's rows, `run()` the sum of the changes.
import { env } from "cloudflare:workers";
import { shardOfIdIn } from "../../src/platform/data/shards";

const SHARDED = /^(file|upl|alb)_[A-Za-z0-9_-]{21}$/;
const USER = /^usr_/;

export const shardBindings = (): D1Database[] => [env.DB, env.SHARD_1];

export async function shardOfUser(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT shard FROM users WHERE id = ?").bind(userId).first<{ shard: number }>();
  return row?.shard ?? 0;
}

/** The shard database of an id (file, upload, album or user), or undefined for anything else. */
export async function databaseOf(id: unknown): Promise<D1Database | undefined> {
  if (typeof id !== "string") return undefined;
  if (SHARDED.test(id)) return shardBindings()[shardOfIdIn(env, id.slice(0, id.indexOf("_")) as "file", id)];
  if (USER.test(id)) return shardBindings()[await shardOfUser(id)];
  return undefined;
}

class OwnerStatement {
  constructor(
    private readonly sql: string,
    private readonly args: unknown[] = [],
  ) {}

  bind(...args: unknown[]) {
    return new OwnerStatement(this.sql, args);
  }

  private async targets(): Promise<D1Database[]> {
    for (const a of this.args) {
      const db = await databaseOf(a);
      if (db) return [db];
    }
    return shardBindings();
  }

  async first<T = Record<string, unknown>>(column?: string): Promise<T | null> {
    for (const db of await this.targets()) {
      const s = db.prepare(this.sql).bind(...this.args);
      const row = column === undefined ? await s.first<T>() : await s.first<T>(column);
      if (row !== null) return row;
    }
    return null;
  }

  async all<T = Record<string, unknown>>(): Promise<{ results: T[] }> {
    const results: T[] = [];
    for (const db of await this.targets()) results.push(...(await db.prepare(this.sql).bind(...this.args).all<T>()).results);
    return { results };
  }

  async run(): Promise<{ meta: { changes: number } }> {
    let changes = 0;
    for (const db of await this.targets()) changes += (await db.prepare(this.sql).bind(...this.args).run()).meta.changes;
    return { meta: { changes } };
  }
}

/** Owner tables, wherever their rows live (see the top of this file). */
export const ownerDb = { prepare: (sql: string) => new OwnerStatement(sql) };
