// The database handles' brands (platform/db.ts): the type checks are the point, and `npm run typecheck` runs
// them (each @ts-expect-error fails the check if the line it marks compiles); the runtime checks say that with
// one database every handle reads database DB.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb, crossDb, database0, directoryDb, shardDb, type DirectoryDb, type ShardDb } from "../../src/platform/db";

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
    // the cross-database handle is both, for the queries that still span them
    expect(onDirectory(crossDb(env))).toBe(env.DB);
    expect(onShard(crossDb(env))).toBe(env.DB);
  });

  it("database DB is the directory and shard 0: every handle reads it", () => {
    expect(directoryDb(env).$client).toBe(env.DB);
    expect(shardDb(env, 0).$client).toBe(env.DB);
    const session = env.DB.withSession("first-primary");
    const db0 = database0(session);
    expect([db0.directory.$client, db0.shard.$client, db0.cross.$client]).toEqual([session, session, session]);
  });

  it("names no shard this deployment does not have", () => {
    expect(() => shardDb(env, 1)).toThrow(RangeError);
    expect(() => shardDb(env, -1)).toThrow(RangeError);
  });
});
