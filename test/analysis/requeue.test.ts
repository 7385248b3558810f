import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { requeueStalledAnalysis } from "../../src/analysis/requeue";
import { fixture } from "./fixtures";
import { db, fileRow, seedFinalizedFile, seedUser, waitForAnalysis } from "./support";

describe("requeueStalledAnalysis (cron)", () => {
  it("re-sends the job of a file whose analysis never landed, once per grace period; the job then completes", async () => {
    const now = Date.now();
    const hourAgo = new Date(now - 3600_000);
    const user = await seedUser();
    const stalled = await seedFinalizedFile(user, "shapes.png", fixture("shapes.png"), { finalizedAt: hourAgo, updatedAt: hourAgo });
    const fresh = await seedFinalizedFile(user, "tiny.png", fixture("tiny.png"));

    expect(await requeueStalledAnalysis(env, db(), now)).toEqual({ requeued: 1 });
    // touched: the next run inside the grace period sends nothing
    expect(await requeueStalledAnalysis(env, db(), now + 60_000)).toEqual({ requeued: 0 });

    const done = await waitForAnalysis(stalled.id);
    expect(done.analysis).toBe("done");
    expect(done.phash).toMatch(/^[0-9a-f]{16}$/);
    expect((await fileRow(fresh.id)).analysis).toBe("pending");
    expect(await requeueStalledAnalysis(env, db(), now + 3 * 3600_000)).toEqual({ requeued: 1 }); // only `fresh` is left pending
  });
});
