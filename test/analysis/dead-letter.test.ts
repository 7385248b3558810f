import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { fixture } from "./fixtures";
import { fileRow, seedFinalizedFile, seedUser } from "./support";

// The whole path through the real queues: consumer throws -> retried (max_retries = 5) -> dead-letter queue ->
// its consumer records the failure. The retry delay is set to 0 for this file only, so it takes seconds.
const original = env.QUEUE_RETRY_BASE_SECONDS;
afterEach(() => {
  env.QUEUE_RETRY_BASE_SECONDS = original;
});

describe("poisoned analysis message through the real queue", () => {
  it("is retried until max_retries, lands in the dead-letter queue and the file ends failed", async () => {
    env.QUEUE_RETRY_BASE_SECONDS = "0";
    const file = await seedFinalizedFile(await seedUser(), "poison.jpg", fixture("cubes.jpg"));
    await env.BUCKET.delete(file.storeKey);
    await env.JOBS.send({ type: "analyze", fileId: file.id });

    const deadline = Date.now() + 25_000;
    let row = await fileRow(file.id);
    while (row.analysis !== "failed" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      row = await fileRow(file.id);
    }
    expect(row.analysis).toBe("failed");
    expect(row.analysisError).toBe(`gave up after retries: object ${file.storeKey} is missing from storage`);
    expect(row.analysisFailure).toBe("gave_up");
  });
});
