// Where new owners and anonymous uploads go (platform/data/placement.ts), and the cron's measure of each shard
// (platform/data/shard-fill.ts). docs/sharding.md § Placement.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { candidateShards, openShards, placeAnonymous, placeOwner } from "../../src/platform/data/placement";
import { measureShards, readShardFill } from "../../src/platform/data/shard-fill";
import { directoryDb } from "../../src/platform/data/db";
import { runScheduled } from "../../src/jobs/scheduled";
import { signup } from "../support/api";

const withVars = (vars: { SHARDS_OPEN?: string; SHARD_REGIONS?: string }) => ({ ...env, SHARDS_OPEN: "", SHARD_REGIONS: "", ...vars });

describe("placement", () => {
  it("open shards: SHARDS_OPEN's numbers that exist, or every shard", () => {
    expect(openShards(withVars({}))).toEqual([0, 1]);
    expect(openShards(withVars({ SHARDS_OPEN: "1" }))).toEqual([1]);
    expect(openShards(withVars({ SHARDS_OPEN: " 0 , 1, 7, 1" }))).toEqual([0, 1]);
    expect(() => openShards(withVars({ SHARDS_OPEN: "0,x" }))).toThrow(/SHARDS_OPEN: "x" is not a shard number/);
    expect(openShards(withVars({ SHARDS_OPEN: "9" }))).toEqual([0, 1]); // names no shard that exists: all
  });

  it("a shard in the signer's region first, the nearest hint first; else every open shard", () => {
    const regional = withVars({ SHARD_REGIONS: "0:weur,1:enam" });
    expect(candidateShards(regional, "EU")).toEqual([0]);
    expect(candidateShards(regional, "NA")).toEqual([1]); // wnam first, no such shard, then enam
    expect(candidateShards(regional, "AS")).toEqual([0, 1]); // no shard near: any
    expect(candidateShards(regional, undefined)).toEqual([0, 1]);
    expect(candidateShards(withVars({ SHARD_REGIONS: "0:weur,1:enam", SHARDS_OPEN: "1" }), "EU")).toEqual([1]); // closed shards are no candidates
  });

  it("the least full candidate; unmeasured counts as empty; among equals the user id's hash, spread evenly", () => {
    const vars = withVars({});
    expect(placeOwner(vars, undefined, new Map([[0, 500], [1, 100]]), "usr_a")).toBe(1);
    expect(placeOwner(vars, undefined, new Map([[0, 100]]), "usr_a")).toBe(1); // shard 1 unmeasured: empty
    const counts = [0, 0];
    for (let i = 0; i < 400; i++) counts[placeOwner(vars, undefined, new Map(), `usr_${i}_${crypto.randomUUID()}`)] += 1;
    expect(Math.min(...counts)).toBeGreaterThan(140);
    expect(placeOwner(withVars({ SHARDS_OPEN: "0" }), undefined, new Map([[0, 900], [1, 0]]), "usr_b")).toBe(0);
  });

  it("anonymous uploads spread over the open shards", () => {
    const counts = [0, 0];
    for (let i = 0; i < 400; i++) counts[placeAnonymous(withVars({}), crypto.randomUUID())] += 1;
    expect(Math.min(...counts)).toBeGreaterThan(140);
    expect(placeAnonymous(withVars({ SHARDS_OPEN: "1" }), "x")).toBe(1);
  });
});

describe("signup with this configuration (both shards open, as in npm run dev)", () => {
  it("puts owners on both shards", async () => {
    const shards = new Set<number>();
    for (let i = 0; i < 16; i++) {
      const user = await signup();
      shards.add((await env.DB.prepare("SELECT shard FROM users WHERE id = ?").bind(user.id).first<{ shard: number }>())!.shard);
    }
    expect([...shards].sort()).toEqual([0, 1]); // 1 in 2^15 to fail by chance
  });
});

describe("the cron's measure of each shard", () => {
  it("records every shard's size in shard_fill (absolute: a re-run writes the same rows)", async () => {
    const measured = await measureShards(env, Date.now());
    expect([...measured.keys()]).toEqual([0, 1]);
    for (const bytes of measured.values()) expect(bytes).toBeGreaterThan(0);
    const fill = await readShardFill(directoryDb(env));
    expect([...fill.keys()].sort()).toEqual([0, 1]);
    const results = await runScheduled(env, Date.now());
    expect(Object.keys(results.measureShards as object)).toEqual(["0", "1"]);
    expect((await readShardFill(directoryDb(env))).size).toBe(2);
  });
});
