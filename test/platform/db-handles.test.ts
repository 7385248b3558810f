// The database handles' brands (platform/data/db.ts): the type checks are the point, and `npm run typecheck` runs
// them (each @ts-expect-error fails the check if the line it marks compiles); the runtime checks say that with
// database DB is the directory and shard 0, SHARD_1 shard 1, and a request's handles keep a session and a
// bookmark per database.
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER, dbHandle } from "../../src/middleware/db";
import { parseBookmarks } from "../../src/platform/data/bookmarks";
import { createDb, database0, directoryDb, shardDb, type DirectoryDb, type ShardDb } from "../../src/platform/data/db";
import type { AppEnv } from "../../src/platform/http/env";
import { allShards, shardCount } from "../../src/platform/data/shards";

const onDirectory = (db: DirectoryDb) => db.$client;
const onShard = (db: ShardDb) => db.$client;

describe("database handles", () => {
  it("a handle goes only where its database's queries do", () => {
    // @ts-expect-error a shard's handle is not the directory's
    onDirectory(shardDb(env, 0));
    // @ts-expect-error the directory's handle is not a shard's
    onShard(directoryDb(env));
    // @ts-expect-error a plain handle is neither
    onShard(createDb(env.DB));
  });

  it("database DB is the directory and shard 0: every handle reads it", () => {
    expect(directoryDb(env).$client).toBe(env.DB);
    expect([shardDb(env, 0).$client.d1, shardDb(env, 0).$client.shard]).toEqual([env.DB, 0]);
    const session = env.DB.withSession("first-primary");
    const db0 = database0(session);
    expect([db0.directory.$client, db0.shard.$client.d1]).toEqual([session, session]);
  });

  it("the shards are DB and each SHARD_n: two in tests and in npm run dev", () => {
    expect(shardCount(env)).toBe(2);
    expect(allShards(env)).toEqual([0, 1]);
    expect([shardDb(env, 1).$client.d1, shardDb(env, 1).$client.shard]).toEqual([env.SHARD_1, 1]);
  });

  it("names no shard this deployment does not have", () => {
    expect(() => shardDb(env, 2)).toThrow(RangeError);
    expect(() => shardDb(env, -1)).toThrow(RangeError);
    expect(() => shardDb(env, 1.5)).toThrow(RangeError);
  });

  it("SHARD_1 has the shard chain: the owner tables, no users, no foreign key to users", async () => {
    const tables = await env.SHARD_1.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name <> 'd1_migrations' ORDER BY name").all<{ name: string }>();
    // The search indexes' FTS5 shadow tables (<name>_fts_config, _data, _docsize, _idx) are SQLite's own.
    const owned = tables.results.map((t) => t.name).filter((n) => !/_fts_(config|data|docsize|idx)$/.test(n));
    expect(owned).toEqual(["album_files", "albums", "albums_fts", "embedding_bands", "file_days", "files", "files_fts", "moved_files", "owner_days", "owners", "phash_bands", "upload_parts", "uploads"]);
    for (const table of ["files", "uploads", "albums"]) {
      const keys = await env.SHARD_1.prepare(`SELECT "table" FROM pragma_foreign_key_list('${table}')`).all<{ table: string }>();
      expect(keys.results.map((k) => k.table)).not.toContain("users");
    }
  });
});

describe("a request's handles", () => {
  // A write on each database through c.get("dbs"), answered with x-d1-bookmark as the API answers it.
  const app = new Hono<AppEnv>()
    .use(dbHandle())
    .post("/api/write/:shard", async (c) => {
      const n = Number(c.req.param("shard"));
      await c.get("dbs").shard(n).$client.prepare("SELECT 1").run();
      return c.text("ok");
    })
    .post("/api/routed/:query", async (c) => {
      const db = c.get("dbs").shardOf("file", "f_not_a_real_id");
      if (c.req.param("query") === "yes") await db.$client.prepare("SELECT 1").run();
      return c.text(String(db.$client.shard));
    });
  const post = (path: string, bookmark?: string) =>
    app.request(path, { method: "POST", headers: bookmark ? { [BOOKMARK_HEADER]: bookmark } : {} }, env);

  it("database 0 alone answers a bare bookmark, as before shards", async () => {
    const res = await post("/api/write/0");
    const header = res.headers.get(BOOKMARK_HEADER)!;
    expect(header).toMatch(/^[0-9a-f-]+$/);
  });

  it("a shard's session answers with its own bookmark beside database 0's, and a client's are carried on", async () => {
    const first = (await post("/api/write/1")).headers.get(BOOKMARK_HEADER)!;
    expect(first).toMatch(/^1:[0-9a-f-]+$/); // database 0 was not read: it has nothing to say
    const marks = parseBookmarks(first, 2);
    // The next request writes database 0 only: the client's bookmark for shard 1 comes back beside 0's.
    const second = parseBookmarks((await post("/api/write/0", first)).headers.get(BOOKMARK_HEADER), 2);
    expect([...second.keys()]).toEqual([0, 1]);
    expect(second.get(1)).toBe(marks.get(1));
    // Sent back, each database's session starts at least at the client's bookmark.
    const third = parseBookmarks((await post("/api/write/1", first)).headers.get(BOOKMARK_HEADER), 2);
    expect(third.get(1)!.localeCompare(marks.get(1)!)).toBeGreaterThan(0);
  });

  it("a routed handle opens its session at its first query: a read answered from an edge record opens none", async () => {
    // The real binding, with its sessions counted.
    let sessions = 0;
    const DB = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "withSession") return (...args: Parameters<D1Database["withSession"]>) => (sessions++, target.withSession(...args));
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const unused = await app.request("/api/routed/no", { method: "POST" }, { ...env, DB });
    expect([await unused.text(), sessions]).toEqual(["0", 0]);
    const queried = await app.request("/api/routed/yes", { method: "POST" }, { ...env, DB });
    expect([await queried.text(), sessions]).toEqual(["0", 1]);
    expect(queried.headers.get(BOOKMARK_HEADER)).toMatch(/^[0-9a-f-]+$/);
  });
});
