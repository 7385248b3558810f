import { describe, expect, it } from "vitest";
import { isId, newId } from "../../src/platform/data/ids";
import { MAX_SHARDS, newShardedId, shardOfId, shardsToTry } from "../../src/platform/data/shard-ids";

describe("ids that name their shard", () => {
  it("keep decisions.md's format and name the shard they were made for", () => {
    for (const shard of [0, 1, 2, 17, MAX_SHARDS - 1]) {
      for (const prefix of ["file", "upl", "alb"] as const) {
        const id = newShardedId(prefix, shard);
        expect(isId(prefix, id)).toBe(true);
        expect(shardOfId(prefix, id)).toEqual({ shard, legacy: false });
      }
    }
  });

  it("refuse a shard the alphabet cannot name", () => {
    for (const shard of [-1, MAX_SHARDS, 1.5]) expect(() => newShardedId("file", shard)).toThrow(RangeError);
  });

  it("an id made before shards lives on shard 0; about 1 in 4,096 passes the check by chance", () => {
    let passed = 0;
    const n = 40_000;
    for (let i = 0; i < n; i++) {
      const found = shardOfId("file", newId("file"))!;
      if (found.legacy) expect(found.shard).toBe(0);
      else passed++;
    }
    expect(passed).toBeLessThan(40); // ~10 expected
  });

  it("one changed character makes a marked id a legacy one (the check covers the shard symbol)", () => {
    const id = newShardedId("file", 1);
    const body = id.slice(5);
    const swapped = `file_${body[0] === "A" ? "B" : "A"}${body.slice(1)}`;
    expect(shardOfId("file", swapped)?.legacy).toBe(true);
  });

  it("a string that is no id of the prefix names no shard", () => {
    expect(shardOfId("file", "file_short")).toBeUndefined();
    expect(shardOfId("file", newShardedId("alb", 1))).toBeUndefined();
    expect(shardsToTry("file", "nope", 2, true)).toEqual([]);
  });

  it("the shards to read: its own; then shard 0 for a possible old id while legacy ids exist", () => {
    const on1 = newShardedId("file", 1);
    expect(shardsToTry("file", on1, 2, false)).toEqual([1]);
    expect(shardsToTry("file", on1, 2, true)).toEqual([1, 0]);
    expect(shardsToTry("file", newShardedId("file", 0), 2, true)).toEqual([0]);
    // A shard past the configured count: not ours, unless it is an old id that passed the check by chance.
    const on9 = newShardedId("file", 9);
    expect(shardsToTry("file", on9, 2, false)).toEqual([]);
    expect(shardsToTry("file", on9, 2, true)).toEqual([0]);
  });
});
