// tus end to end (extensions.md § 1, issue 27 "Tests"): tus-js-client from npm, on the Node side, against
// `wrangler dev` with its local D1, R2 and Durable Objects. A 25 MiB PNG in 3 MiB chunks as a pro user's API key:
// interrupted twice mid-chunk and resumed; and sent while `wrangler dev` is killed (SIGKILL to its process group)
// between two chunks and started again on the same state directory, which is what "an offset answered to the
// client survives a dying worker" means. Each time the stored bytes must hash like the source.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appVars, startWorker, within } from "../../bench/lib/index.mjs";
import { pngOfSize } from "../../bench/lib/png.mjs";
import { benchUser } from "../../bench/lib/users.mjs";
import { MiB, getWithin, headOffset, runTus, sha256, urlStore } from "./tus-client.mjs";
import { scratchDir, suitePort } from "./support.mjs";

const PORT = suitePort(15);
const WEBHOOK_SECRET = randomBytes(32).toString("base64url");
const SIZE = 25 * MiB;
/** On `persistTo`, migrated on the first start only; the user is made pro (the free plan's limit is 20 MB). */
const workerOptions = (persistTo, migrate) => ({
  config: "wrangler.toml",
  port: PORT,
  persistTo,
  migrate,
  vars: { ...appVars(PORT), ENVIRONMENT: "development", BILLING_WEBHOOK_SECRET: WEBHOOK_SECRET },
});

let state;
let worker;
let user;
let endpoint;

beforeAll(async () => {
  state = mkdtempSync(path.join(tmpdir(), "tus-e2e-state-"));
  worker = await startWorker(workerOptions(state, true));
  endpoint = `${worker.url}/api/v1/upload/tus`;
  user = await within("signing up a pro user with an upload key", benchUser(worker, ["read", "upload"], { plan: "pro", webhookSecret: WEBHOOK_SECRET }), 60_000);
});

afterAll(async () => {
  await worker?.stop();
  if (state) rmSync(state, { recursive: true, force: true });
});

/** The finished upload as tus and the API show it: the last PATCH's headers, GET's JSON, the stored bytes. */
async function expectStored(result, source) {
  expect(result.outcome).toBe("success");
  const fileId = result.lastResponse.getHeader("Upload-File-Id");
  const fileUrl = result.lastResponse.getHeader("Upload-File-Url");
  expect(fileId).toMatch(/^file_/);
  expect(fileUrl).toContain(fileId);
  const status = await getWithin(result.url, user.key);
  expect(status.status).toBe(200);
  expect(status.json).toMatchObject({ offset: source.length, length: source.length, state: "complete", file: { fileId, url: fileUrl, bytes: source.length } });
  const stored = await getWithin(`${worker.url}/api/v1/files/${fileId}/download`, user.key);
  expect(stored.status).toBe(200);
  expect(stored.bytes.length).toBe(source.length);
  expect(sha256(stored.bytes)).toBe(sha256(source));
}

/**
 * After a chunk was cut off halfway: the server keeps what arrived of it ("store as much of the received data as
 * possible", tus 1.0), so HEAD comes to answer an offset past the chunk's start (once the server has seen the
 * body break: polled, bounded) and never past what was sent.
 */
async function expectKept(stopped, source) {
  let head;
  await expect
    .poll(async () => (head = await headOffset(stopped.url, user.key)).offset, { timeout: 20_000, interval: 200, message: "HEAD keeps part of the cut-off chunk" })
    .toBeGreaterThan(stopped.chunkStart);
  expect(head.length).toBe(source.length);
  expect(head.offset).toBeLessThanOrEqual(stopped.sent);
  return head.offset;
}

/**
 * `run` resumed the upload that `stopped` left (no creation; a HEAD first) and sent its first PATCH where that HEAD
 * said: past 0, and no earlier than the chunk that was cut off.
 */
function expectResumedFrom(stopped, run) {
  expect(run.resumedFrom).toBe(stopped.url);
  expect(run.requests.filter((r) => r.method === "POST"), "a resumed upload creates nothing").toHaveLength(0);
  expect(run.requests[0]).toMatchObject({ method: "HEAD", status: 200 });
  const resumedAt = Number(run.requests.find((r) => r.method === "PATCH").offset);
  expect(resumedAt).toBe(Number(run.requests[0].answeredOffset));
  expect(resumedAt).toBeGreaterThan(0);
  expect(resumedAt).toBeGreaterThanOrEqual(stopped.chunkStart);
  return resumedAt;
}

describe("tus-js-client against wrangler dev", () => {
  it("a 25 MiB PNG in 3 MiB chunks, interrupted twice mid-chunk and resumed, is stored byte for byte", async () => {
    const source = pngOfSize(SIZE, 3000, 11);
    const storage = urlStore(scratchDir("tus-e2e-urls-"));
    const options = { endpoint, token: user.key, file: source, storage };
    const first = await runTus("upload until halfway through the third chunk", { ...options, cutChunkFrom: 6 * MiB });
    expect(first.outcome).toBe("stopped");
    expect(first.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    expect(first.chunkStart).toBe(6 * MiB);
    const keptFirst = await expectKept(first, source);
    expect(keptFirst % (3 * MiB), "the next chunks start off the 3 MiB grid").not.toBe(0);

    const second = await runTus("resume until halfway through a chunk from 15 MiB on", { ...options, cutChunkFrom: 15 * MiB });
    expect(second.outcome).toBe("stopped");
    expect(expectResumedFrom(first, second)).toBe(keptFirst);
    const keptSecond = await expectKept(second, source);

    const last = await runTus("resume to the end", options);
    expect(expectResumedFrom(second, last)).toBe(keptSecond);
    await expectStored(last, source);
  });

  it("an offset answered before wrangler dev is killed is still there after it starts again, and the upload completes", async () => {
    const source = pngOfSize(SIZE, 3000, 12);
    const storage = urlStore(scratchDir("tus-e2e-urls-"));
    const options = { endpoint, token: user.key, file: source, storage };
    // 9 MiB accepted: one 5 MiB part in R2, 4 MiB held in the upload's Durable Object.
    const before = await runTus("upload three chunks", { ...options, stopAtAccepted: 9 * MiB });
    expect(before.outcome).toBe("stopped");
    expect(before.accepted).toBe(9 * MiB);

    await within("killing wrangler dev (SIGKILL to its process group)", worker.kill(), 20_000);
    worker = await startWorker(workerOptions(state, false));
    expect(worker.url).toBe(new URL(endpoint).origin);

    expect(await headOffset(before.url, user.key)).toEqual({ offset: 9 * MiB, length: source.length });
    const after = await runTus("resume after the restart", options);
    expect(expectResumedFrom(before, after)).toBe(9 * MiB);
    await expectStored(after, source);
  });
});
