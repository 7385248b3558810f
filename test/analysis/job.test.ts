import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseImageHeader } from "../../src/analysis/header";
import { hammingDistance } from "../../src/analysis/phash";
import { bandValues } from "../../src/analysis/bands";
import { analyzeFile } from "../../src/analysis/job";
import { loadPhoton } from "../../src/analysis/imaging";
import { loadNsfwModel } from "../../src/analysis/nsfw";
import { retryDelaySeconds } from "../../src/jobs/queue";
import { EXPECTED_PHASH, fixture, LARGE_EXPECTED_PHASH, largeFixture } from "./fixtures";
import { pngHeader } from "./images";
import { IMAGE, bandRowsOf, fetchRaw } from "../support/files";
import { deliver, privateLeftovers, deliverDeadLetter, fileRow, seedFinalizedFile, seedUser, waitForAnalysis } from "./support";

const bandRows = (fileId: string) => bandRowsOf("phash_bands", fileId);

// The first job in an isolate loads photon and the NSFW model (seconds, plus Vite transforming 3.5 MB of
// weights the first time in tests); do it once up front so the per-test waits measure the job itself.
beforeAll(async () => {
  const start = Date.now();
  await Promise.all([loadPhoton(), loadNsfwModel()]);
  console.log(`photon + NSFW model loaded in ${Date.now() - start} ms`);
}, 180_000);

describe("the analysis job through the real queue", () => {
  it.each([
    ["cubes.jpg", 480, 320],
    ["truchet.png", 360, 360],
    ["pixels.webp", 420, 420],
    ["licorice.gif", 300, 300],
    ["anim.gif", 120, 90],
  ])("%s: true size, phash, thumbnail, NSFW score, band index", async (name, width, height) => {
    const owner = await seedUser();
    const file = await seedFinalizedFile(owner, name, fixture(name));
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const row = await waitForAnalysis(file.id);

    expect(row.analysis, row.analysisError ?? "").toBe("done");
    expect(row.analysisError).toBeNull();
    expect(row.analyzedAt).toBeInstanceOf(Date);
    expect([row.width, row.height]).toEqual([width, height]); // the client's 1x1 hints are replaced
    expect(hammingDistance(row.phash!, EXPECTED_PHASH[name])).toBeLessThanOrEqual(2);
    expect(row.nsfwScore).toBeGreaterThanOrEqual(0);
    expect(row.nsfwScore).toBeLessThanOrEqual(1);
    expect(row.ageRestricted).toBe(row.nsfwScore! >= 0.8);
    expect(row.quarantinedAt).toBeNull();

    expect(row.thumbKey).toMatch(new RegExp(`^thumbs/${file.id}\\.(jpg|png)$`));
    const thumb = await env.BUCKET.get(row.thumbKey!);
    expect(thumb?.httpMetadata?.contentType).toMatch(/^image\/(jpeg|png)$/);
    const header = parseImageHeader(new Uint8Array(await thumb!.arrayBuffer()));
    expect(header.ok && Math.max(header.width, header.height)).toBe(Math.min(320, Math.max(width, height)));

    const bands = await bandRows(file.id);
    expect(bands).toEqual(bandValues(row.phash!).map((value, band) => ({ owner, band, value })));
  });

  it("keeps transparency in a PNG thumbnail", async () => {
    const file = await seedFinalizedFile(await seedUser(), "shapes.png", fixture("shapes.png"));
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const row = await waitForAnalysis(file.id);
    expect(row.thumbKey).toBe(`thumbs/${file.id}.png`);
  });

  it("a second delivery changes nothing (idempotent), also when two deliveries race", async () => {
    const owner = await seedUser();
    const file = await seedFinalizedFile(owner, "wood.jpg", fixture("wood.jpg"));
    // Two copies of the message at once: at-least-once delivery may do exactly this.
    await env.JOBS.sendBatch([{ body: { type: "analyze", fileId: file.id } }, { body: { type: "analyze", fileId: file.id } }]);
    const first = await waitForAnalysis(file.id);
    expect(first.analysis).toBe("done");
    await new Promise((r) => setTimeout(r, 1500)); // let the racing copy finish too
    const settled = await fileRow(file.id);
    const objectBefore = await env.BUCKET.head(file.storeKey);

    const result = await deliver({ type: "analyze", fileId: file.id });
    expect(result.explicitAcks.length + (result.ackAll ? 1 : 0)).toBeGreaterThan(0);
    expect(result.retryMessages).toEqual([]);
    const after = await fileRow(file.id);
    expect(after).toEqual(settled);
    expect((await env.BUCKET.head(file.storeKey))!.etag).toBe(objectBefore!.etag);
    expect(await bandRows(file.id)).toHaveLength(3);
    expect(await analyzeFile(env, file.id)).toEqual({ status: "skipped", reason: "analysis already done" });
  });

  it("refuses a pixel bomb before decoding it: analysis failed with the reason, message acked", async () => {
    const bomb = pngHeader(100_000, 100_000); // 10 gigapixels (40 GB decoded) in 57 bytes
    const file = await seedFinalizedFile(await seedUser(), "bomb.png", bomb);
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const row = await waitForAnalysis(file.id);
    expect(row.analysis).toBe("failed");
    expect(row.analysisError).toBe("image too large: 100000x100000 is over 40 megapixels");
    expect(row.analysisFailure).toBe("pixel_limit");
    expect(row.phash).toBeNull();
    expect(row.thumbKey).toBeNull();
    // Failing on the image is final: a redelivery is acked without retry and changes nothing.
    const again = await deliver({ type: "analyze", fileId: file.id });
    expect(again.retryMessages).toEqual([]);
    expect(await fileRow(file.id)).toEqual(row);
  });

  it.each([
    ["wood-12mp.jpg", 4096, 3072],
    ["wood-16mp.webp", 4096, 4096],
  ])("%s: over the full-decode budget, analysed through the reduced path", async (name, width, height) => {
    const file = await seedFinalizedFile(await seedUser(), name, await largeFixture(name));
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const row = await waitForAnalysis(file.id, 60_000);
    expect(row.analysis, row.analysisError ?? "").toBe("done");
    expect(row.analysisError).toBeNull();
    expect([row.width, row.height]).toEqual([width, height]);
    expect(hammingDistance(row.phash!, LARGE_EXPECTED_PHASH[name])).toBeLessThanOrEqual(2);
    expect(row.nsfwScore).toBeGreaterThanOrEqual(0);
    const thumb = parseImageHeader(new Uint8Array(await (await env.BUCKET.get(row.thumbKey!))!.arrayBuffer()));
    expect(thumb.ok && [thumb.width, thumb.height]).toEqual([320, Math.round((320 * height) / width)]);
  }, 90_000);

  it("records a large image whose pixel data is broken as failed, with the decoder's reason", async () => {
    const big = pngHeader(5_000, 4_000); // a valid 20 MP header, no pixel data
    const file = await seedFinalizedFile(await seedUser(), "big.png", big);
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const row = await waitForAnalysis(file.id);
    expect(row.analysis).toBe("failed");
    expect(row.analysisError).toMatch(/^undecodable image: /);
    expect(row.analysisFailure).toBe("unreadable");
  });

  it("records an undecodable image (valid header, broken data) as failed without crashing the consumer", async () => {
    const broken = fixture("cubes.jpg").slice(0, 700); // SOF is there, the scan data is cut
    const file = await seedFinalizedFile(await seedUser(), "broken.jpg", broken);
    const other = await seedFinalizedFile(await seedUser(), "gray.png", fixture("gray.png"));
    await env.JOBS.sendBatch([{ body: { type: "analyze", fileId: file.id } }, { body: { type: "analyze", fileId: other.id } }]);
    const row = await waitForAnalysis(file.id);
    expect(row.analysis).toBe("failed");
    // Photon fails first (a wasm trap); our decoder, tried next, gives the reason that is recorded.
    expect(row.analysisError).toBe("undecodable image: corrupt JPEG: image data cut short");
    // The same consumer (and photon instance) goes on with the next message.
    expect((await waitForAnalysis(other.id)).analysis).toBe("done");
  });

  it("refuses things that are not images", async () => {
    const file = await seedFinalizedFile(await seedUser(), "page.png", new TextEncoder().encode("<html><script>alert(1)</script></html>"));
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const row = await waitForAnalysis(file.id);
    expect(row).toMatchObject({ analysis: "failed", analysisError: "unrecognised image format" });
  });

  it("a poisoned message (object missing) is retried with backoff, then the dead-letter handler marks it failed", async () => {
    const file = await seedFinalizedFile(await seedUser(), "gone.jpg", fixture("cubes.jpg"));
    await env.BUCKET.delete(file.storeKey);

    // Through the real queue: the consumer throws, the message goes back for a retry, the file stays pending.
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const deadline = Date.now() + 10_000;
    while (!(await fileRow(file.id)).analysisError && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const pending = await fileRow(file.id);
    expect(pending.analysis).toBe("pending");
    expect(pending.analysisError).toBe(`object ${file.storeKey} is missing from storage`);

    // Every attempt asks for a retry (getQueueResult does not report the delay, so the backoff schedule the
    // queue module passes to message.retry is checked on its own: 5 s, 10 s, 20 s, ... capped at 600 s).
    for (const attempts of [1, 2, 3, 6]) {
      const result = await deliver({ type: "analyze", fileId: file.id }, { attempts });
      expect(result.retryMessages).toEqual([expect.objectContaining({ msgId: expect.any(String) })]);
      expect(result.explicitAcks).toEqual([]);
    }
    expect([1, 2, 3, 4, 5, 6, 9].map((n) => retryDelaySeconds(n))).toEqual([5, 10, 20, 40, 80, 160, 600]);

    // After max_retries the platform hands the message to the dead-letter queue's consumer.
    const dlq = await deliverDeadLetter({ type: "analyze", fileId: file.id });
    expect(dlq.retryMessages).toEqual([]);
    const failed = await fileRow(file.id);
    expect(failed.analysis).toBe("failed");
    expect(failed.analysisError).toBe(`gave up after retries: object ${file.storeKey} is missing from storage`);
    // A late dead letter for a file that did finish changes nothing.
    const done = await seedFinalizedFile(await seedUser(), "gray.png", fixture("gray.png"));
    await deliver({ type: "analyze", fileId: done.id });
    const doneRow = await fileRow(done.id);
    await deliverDeadLetter({ type: "analyze", fileId: done.id });
    expect(await fileRow(done.id)).toEqual(doneRow);
  });

  it("drops malformed messages and files that are gone without retrying", async () => {
    for (const body of [{ type: "analyze" }, { type: "analyze", fileId: 42 }, { type: "analyze", fileId: "file_nope" }, { type: "analyze", fileId: "file_AAAAAAAAAAAAAAAAAAAAA" }]) {
      expect((await deliver(body)).retryMessages).toEqual([]);
    }
    const deleted = await seedFinalizedFile(await seedUser(), "gray.png", fixture("gray.png"), { deletedAt: new Date() });
    expect(await analyzeFile(env, deleted.id)).toEqual({ status: "skipped", reason: "file deleted" });
  });
});

describe("privacy: served bytes lose GPS and serial numbers, keep orientation", () => {
  it.each(["gps.jpg", "gps.png", "gps.webp"])("%s", async (name) => {
    const original = fixture(name);
    const file = await seedFinalizedFile(await seedUser(), name, original);
    expect(privateLeftovers(original).gps.length).toBeGreaterThan(0);
    await env.JOBS.send({ type: "analyze", fileId: file.id });
    const row = await waitForAnalysis(file.id);
    expect(row.analysis, row.analysisError ?? "").toBe("done");

    const object = (await env.BUCKET.get(file.storeKey))!;
    const served = new Uint8Array(await object.arrayBuffer());
    expect(served.length).toBe(original.length); // rewritten in place, same size
    const left = privateLeftovers(served);
    expect(left.gps).toEqual([]);
    expect(left.serials).toEqual([]);
    expect(left.xmp).toEqual([]);
    expect(left.orientation).toBeDefined();
    expect(object.customMetadata?.privacyScrubbed).toContain("exif:gps");
    expect(object.httpMetadata?.contentType).toBe(file.mime);
    // sha256 stays the ORIGINAL digest: it is the exact-duplicate key of what the user uploaded.
    expect(row.sha256).toBe(file.sha256);
    // The ETag byte links answer names the scrubbed bytes: a copy taken before the scrub is not confirmed (304).
    expect(row.storeEtag).toBe(object.etag);
    expect(row.storeEtag).not.toBe(file.storeEtag);
    const ask = (etag: string | null) => fetchRaw(`${IMAGE}/${file.id}`, { headers: { "if-none-match": `"${etag}"` } });
    expect((await ask(file.storeEtag)).status).toBe(200);
    expect((await ask(row.storeEtag)).status).toBe(304);
    // Stored 160x120 with orientation 6 (rotate 90): displayed, and thumbnailed, 120 wide and 160 tall.
    expect([row.width, row.height]).toEqual([120, 160]);
    const thumb = parseImageHeader(new Uint8Array(await (await env.BUCKET.get(row.thumbKey!))!.arrayBuffer()));
    expect(thumb).toMatchObject({ width: 120, height: 160 });
  });
});

describe("NSFW score and age restriction", () => {
  it("a client's score never lowers the server's, and raises it past the threshold", async () => {
    const file = await seedFinalizedFile(await seedUser(), "gradient.bmp", fixture("gradient.bmp"), { clientNsfwScore: 0.93, nsfwScore: 0.93 });
    const outcome = await analyzeFile(env, file.id);
    expect(outcome.status).toBe("done");
    const row = await fileRow(file.id);
    expect(row.nsfwScore).toBeGreaterThanOrEqual(0.93);
    expect(row.ageRestricted).toBe(true);
  });

  it("a moderator's override wins over the score", async () => {
    const file = await seedFinalizedFile(await seedUser(), "gradient.bmp", fixture("gradient.bmp"), { clientNsfwScore: 0.99, ageRestrictedOverride: false });
    await analyzeFile(env, file.id);
    expect((await fileRow(file.id)).ageRestricted).toBe(false);
  });

  it("scores a harmless image low", async () => {
    const file = await seedFinalizedFile(await seedUser(), "wood.jpg", fixture("wood.jpg"));
    await analyzeFile(env, file.id);
    const row = await fileRow(file.id);
    expect(row.nsfwScore).toBeLessThan(0.5);
    expect(row.ageRestricted).toBe(false);
  });
});
