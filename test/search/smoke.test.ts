import { env } from "cloudflare:workers";
import { it, expect } from "vitest";
it("fts", async () => {
  const r = await env.SHARD_1.prepare("select name from sqlite_master where name like '%fts%'").all();
  console.log(r.results.map((x: any) => x.name).join(","));
  expect(1).toBe(1);
});
