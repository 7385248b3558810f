// D1 read replication through the Sessions API: every API response carries the session's bookmark, a client
// that sends it back reads its own writes, and a bookmark that is not one never breaks a request.
import { beforeAll, describe, expect, it } from "vitest";
import { call, signup, type TestUser } from "../support/api";
import { SITE, fetchRaw, seedFile } from "../support/files";
import { env } from "cloudflare:workers";
import { parseBookmarks } from "../../src/platform/data/bookmarks";

let owner: TestUser;
beforeAll(async () => {
  owner = await signup();
});

/** x-d1-bookmark's value: one bare bookmark, or `n:<bookmark>` per database (docs/api-conventions.md). */
const HEADER = /^([0-9a-f][0-9a-f-]*|\d+:[0-9a-f][0-9a-f-]*(,\d+:[0-9a-f][0-9a-f-]*)*)$/i;

describe.each([0, 1])("x-d1-bookmark, the owner on shard %i", (shard) => {
  it("comes back on API reads and writes, and sent back it reads the write", async () => {
    const mineOwner = await signup();
    await env.DB.prepare("UPDATE users SET shard = ? WHERE id = ?").bind(shard, mineOwner.id).run();
    const f = await seedFile(mineOwner.id, { title: "before" });
    const read = await call(`/files/${f.id}`);
    expect(read.headers.get("x-d1-bookmark")).toMatch(HEADER);
    const write = await call(`/files/${f.id}`, { method: "PATCH", token: mineOwner.access, body: { title: "after" } });
    expect(write.status).toBe(200);
    const bookmark = write.headers.get("x-d1-bookmark")!;
    expect(bookmark).toMatch(HEADER);
    expect(parseBookmarks(bookmark, 2).has(shard)).toBe(true); // the write's database is named
    const mine = await call(`/files/${f.id}`, { headers: { "x-d1-bookmark": bookmark } });
    expect(mine.status).toBe(200);
    expect(mine.body.title).toBe("after");
    const back = parseBookmarks(mine.headers.get("x-d1-bookmark"), 2).get(shard)!;
    expect(back >= parseBookmarks(bookmark, 2).get(shard)!).toBe(true);
  });
});

describe("x-d1-bookmark", () => {
  it("is also on errors, and only on the API", async () => {
    expect((await call("/files/file_AAAAAAAAAAAAAAAAAAAAA")).headers.get("x-d1-bookmark")).toBeTruthy();
    const f = await seedFile(owner.id);
    expect((await fetchRaw(`${SITE}/f/${f.id}`)).headers.get("x-d1-bookmark")).toBeNull();
  });

  it("a malformed or unknown bookmark is ignored, never a 5xx", async () => {
    const f = await seedFile(owner.id);
    for (const bookmark of ["not a bookmark!", "", "x".repeat(500), "00000000-00000000-00000000-00000000000000000000000000000000", "ffffffff-ffffffff-ffffffff-ffffffffffffffffffffffffffffffff"]) {
      const res = await call(`/files/${f.id}`, { headers: { "x-d1-bookmark": bookmark } });
      expect(res.status, bookmark).toBe(200);
    }
  });
});
