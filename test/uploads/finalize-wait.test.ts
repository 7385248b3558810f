// Finalize waits (within FINALIZE_WAIT_MS) for the analysis the real queue consumer runs, and answers with
// it (decisions.md § Uploads). The suite's default wait is 0; these tests call the worker with their own.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { jobHandlers } from "../../src/jobs/queue";
import type { AnalyzeMessage, JobHandler } from "../../src/platform/data/job-messages";
import { VAR_DEFAULTS } from "../../src/config/env-schema";
import { pauseSchedule, ANALYSIS_WAIT } from "../../src/uploads/analysis-wait";
import { BASE, verifiedUser, type TestUser } from "../support/api";
import { fixture, EXPECTED_PHASH } from "../analysis/fixtures";
import { pngHeader } from "../analysis/images";
import { presign, putDirect } from "./helpers";

/** The worker's fetch with this file's FINALIZE_WAIT_MS (real bindings otherwise). */
async function callWaiting(path: string, init: RequestInit & { token: string }, waitMs = 30_000) {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${init.token}`);
  const ctx = createExecutionContext();
  const started = Date.now();
  const request = new Request(BASE + path, { ...init, headers }) as Request<unknown, IncomingRequestCfProperties>;
  const res = await worker.fetch(request, { ...env, FINALIZE_WAIT_MS: String(waitMs) }, ctx);
  const body = await res.json<any>();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body, ms: Date.now() - started };
}

async function upload(user: TestUser, bytes: Uint8Array, mime: string, waitMs?: number) {
  const pre = await presign({ token: user.access, bytes, mime, filename: `photo.${mime.split("/")[1]}` });
  expect(pre.status, pre.text).toBe(201);
  const put = await putDirect(pre.body.fileId, bytes, user.access, { "content-type": mime });
  expect(put.status, put.text).toBe(200);
  const finalizeBody = JSON.stringify({ uploadId: pre.body.uploadId, fileId: pre.body.fileId, storeKey: pre.body.storeKey, storeEtag: put.headers.get("etag") });
  const fin = (ms = waitMs) => callWaiting("/upload/finalize", { method: "POST", token: user.access, headers: { "content-type": "application/json" }, body: finalizeBody }, ms);
  return { fileId: pre.body.fileId as string, first: await fin(), again: (ms?: number) => fin(ms) };
}

// The real analysis job, behind a gate a test can close (a consumer held back), counting what it receives.
const realAnalyze = jobHandlers.analyze;
let gate: Promise<void> | null = null;
const received: string[] = [];
beforeAll(() => {
  jobHandlers.analyze = {
    ...realAnalyze,
    run: async (e, body) => {
      received.push(body.fileId);
      if (gate) await gate;
      await realAnalyze.run(e, body);
    },
  } satisfies JobHandler<AnalyzeMessage>;
});
afterEach(() => {
  gate = null;
});

let user: TestUser;
beforeAll(async () => {
  user = await verifiedUser();
});

describe("finalize answers with the analysis", () => {
  it("a real photo: the server's phash, NSFW score, size and a similar duplicate of an earlier resized copy", async () => {
    const resized = await upload(user, fixture("cubes-resized.jpg"), "image/jpeg");
    expect(resized.first.status).toBe(200);
    expect(resized.first.body.analysis).toBe("done");

    const photo = await upload(user, fixture("cubes.jpg"), "image/jpeg");
    expect(photo.first.status).toBe(200);
    const answer = photo.first.body;
    expect(answer).toMatchObject({ analysis: "done", analysisError: null, phash: EXPECTED_PHASH["cubes.jpg"], ageRestricted: false });
    expect(answer.nsfwScore).toEqual(expect.any(Number));
    expect(answer.width).toBeGreaterThan(0);
    expect(answer.duplicates).toContainEqual({
      fileId: resized.fileId,
      url: `${env.IMAGE_URL}/${resized.fileId}`,
      distance: expect.any(Number),
      match: "similar",
      signal: "phash",
      distances: { phash: expect.any(Number), embedding: expect.any(Number) },
    });

    // GET /files/:id agrees; a repeated finalize returns the same complete answer and enqueues nothing new.
    const again = await photo.again();
    expect(again.body).toEqual(answer);
    expect(received.filter((id) => id === photo.fileId)).toHaveLength(1);
  }, 120_000); // the first analysis in this isolate loads the NSFW model

  it("a refused image answers failed with the reason, without waiting out the bound", async () => {
    const bomb = pngHeader(20_000, 20_000);
    const refused = await upload(user, bomb, "image/png");
    expect(refused.first.status).toBe(200);
    expect(refused.first.body).toMatchObject({ analysis: "failed", analysisError: expect.stringMatching(/^image too large:/) });
    expect(refused.first.ms).toBeLessThan(Number(VAR_DEFAULTS.FINALIZE_WAIT_MS));
  });

  it("a consumer held back: pending within the bound, then a repeat answers complete (not enqueued again)", async () => {
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    const held = await upload(user, fixture("wood.jpg"), "image/jpeg", 400);
    expect(held.first.status).toBe(200);
    expect(held.first.body).toMatchObject({ analysis: "pending", analysisError: null, nsfwScore: null, duplicates: [] });
    release();
    const later = await held.again(30_000); // the repeat waits as long as the analysis takes on a loaded machine
    expect(later.body).toMatchObject({ analysis: "done", phash: expect.stringMatching(/^[0-9a-f]{16}$/), nsfwScore: expect.any(Number) });
    expect(received.filter((id) => id === held.fileId)).toHaveLength(1);
  });

  it("POST /upload/form (ShareX) answers complete too", async () => {
    const form = new FormData();
    form.set("file", new File([fixture("cubes.webp")], "cubes.webp", { type: "image/webp" }));
    const encoded = new Response(form);
    const bytes = await encoded.arrayBuffer(); // sent with its length, as curl and ShareX send it
    const res = await callWaiting("/upload/form", {
      method: "POST",
      token: user.access,
      headers: { "content-type": encoded.headers.get("content-type")!, "content-length": String(bytes.byteLength) },
      body: bytes,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ analysis: "done", phash: expect.stringMatching(/^[0-9a-f]{16}$/), nsfwScore: expect.any(Number) });
    expect(res.body.duplicates.length).toBeGreaterThan(0); // cubes.jpg's similar copy from the first test
  });
});

describe("the wait's schedule", () => {
  it("never reads more than maxReads times nor pauses longer than the bound", () => {
    for (const budget of [0, 1, 50, 400, 10_000, 60_000]) {
      const pauses = pauseSchedule(budget);
      expect(pauses.length + 1).toBeLessThanOrEqual(ANALYSIS_WAIT.maxReads);
      expect(pauses.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(Math.max(budget, pauses.length));
      expect(pauses.every((p, i) => i === 0 || p >= pauses[i - 1] || i === pauses.length - 1)).toBe(true);
    }
    expect(pauseSchedule(0)).toEqual([]);
    expect(pauseSchedule(10_000)[0]).toBeLessThanOrEqual(ANALYSIS_WAIT.firstPauseMs);
  });
});
