// `imghost stats [id]` against `wrangler dev` (extensions.md § 10): a file's views, sent with a Referer, show in
// the sparkline line with their total and the referring host; --json prints the API's body; without an id, the account's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appVars, startWorker, within } from "../../../bench/lib/index.mjs";
import { benchUser } from "../../../bench/lib/users.mjs";
import { scratchDir, suitePort } from "../../../test/browser/support.mjs";
import { sparkline } from "../src/commands/stats.js";
import { imghost, jsonLines, writePngs } from "./support.mjs";

const PORT = suitePort(40);
let worker;
let base;
let user;

beforeAll(async () => {
  worker = await startWorker({ config: "wrangler.toml", port: PORT, vars: { ...appVars(PORT), ENVIRONMENT: "development", FINALIZE_WAIT_MS: "0" } });
  base = `${worker.url}/api/v1`;
  user = await within("signing up a user with a read/upload key", benchUser(worker, ["read", "upload"]), 60_000);
});

afterAll(async () => {
  await worker?.stop();
});

const run = (args) => imghost([...args, "--base", base, "--key", user.key], { home: scratchDir("imghost-stats-home-") });

describe("imghost stats", () => {
  it("draws one bar a day, scaled to the largest", () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe("▁▁▂▄█");
    expect(sparkline([0, 0])).toBe("▁▁");
  });

  it("prints a file's 30 days as a sparkline with the totals, and the API body with --json", async () => {
    const [up] = jsonLines((await run(["upload", ...writePngs(scratchDir("imghost-stats-"), ["seen.png"], 41), "--json"])).stdout);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(up.url, { headers: { referer: "https://blog.example.com/post?x=1" } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    // Counted after the response and written by the counter's alarm (seconds): asked again until they show.
    let body;
    const deadline = Date.now() + 30_000;
    do {
      const json = await run(["stats", up.fileId, "--json"]);
      expect(json.code, json.stderr).toBe(0);
      body = JSON.parse(json.stdout);
      if (body.totals.views >= 3) break;
      await new Promise((r) => setTimeout(r, 500));
    } while (Date.now() < deadline);
    expect(body.totals.views).toBe(3);
    expect(body.days).toHaveLength(30);
    expect(body.referrers).toEqual([{ host: "blog.example.com", views: 3 }]);

    const text = await run(["stats", up.fileId]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/views\s+▁{29}█\s+3/);
    expect(text.stdout).toContain("from blog.example.com  3");

    const account = await run(["stats"]);
    expect(account.code, account.stderr).toBe(0);
    expect(account.stdout).toMatch(/uploads\s+▁{29}█\s+1/);
    expect(account.stdout).toContain(up.fileId);
  }, 120_000);

  it("an unknown file exits 1 and says why", async () => {
    const res = await run(["stats", "file_doesnotexist000000000"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/not found/i);
  });
});
