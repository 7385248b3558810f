// The upload page sends large files over tus (extensions.md § 1, @imghost/client's tus with its resume store: client/upload-flows.ts) and resumes them: a page
// reloaded mid-upload continues from the server's offset once the same file is picked again, not from byte 0;
// the row then shows the finalize answer's links. A refused completion shows the API's own message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { within } from "../../bench/lib/index.mjs";
import { boundedFetch, openPage, scratchDir, signUp, startApp, suitePort } from "./support.mjs";
import { BROWSER_UPLOADS } from "../../src/config/uploads.ts";

const PORT = suitePort(18);
const TUS_PATH = /^\/api\/v1\/upload\/tus(\/[^/]+)?$/;
const MiB = 1024 * 1024;

let app;
let context;
let page;

/** Fails with the step's name: when `promise` takes longer than `ms`, or fails (a playwright timeout inside). */
async function step(name, promise, ms = 60_000) {
  try {
    return await within("it", promise, ms);
  } catch (err) {
    throw new Error(`step "${name}": ${err.message}`);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
function pngChunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A real RGB PNG of seeded noise (as test/uploads/helpers.ts makePng): it does not compress, so its size is about
 * width x height x 3 bytes, and the analysis decodes it. Level 0: zlib's stored blocks.
 */
function noisePng(width, height, seed = 1) {
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  let x = seed >>> 0 || 1;
  for (let row = 0; row < height; row++) {
    for (let i = 1; i < stride; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      raw[row * stride + i] = x & 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk("IHDR", ihdr), pngChunk("IDAT", deflateSync(raw, { level: 0 })), pngChunk("IEND", Buffer.alloc(0))]);
}

/** Every tus request the page makes, with its Upload-Offset, and every tus answer's Upload-Offset. */
function recordTus(p) {
  const log = [];
  p.on("request", (r) => {
    const url = new URL(r.url());
    if (TUS_PATH.test(url.pathname)) log.push({ kind: "request", method: r.method(), path: url.pathname, offset: r.headers()["upload-offset"] ?? null });
  });
  p.on("response", (r) => {
    const url = new URL(r.url());
    if (TUS_PATH.test(url.pathname)) log.push({ kind: "response", method: r.request().method(), status: r.status(), offset: r.headers()["upload-offset"] ?? null });
  });
  return log;
}

/** The upload speed chromium allows (bytes a second; -1: no limit), so a reload lands mid-upload. */
async function throttleUploads(cdp, bytesPerSecond) {
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
}

beforeAll(async () => {
  app = await startApp(PORT);
  ({ context, page } = await openPage(app.browser, { viewport: { width: 1100, height: 900 } }));
  page.on("pageerror", (err) => console.error("page error:", err.message));
  await signUp(page, app.origin, "tus");
});

afterAll(async () => {
  await app?.stop();
});

describe("large uploads over tus in the web app", () => {
  it("resumes from the server's offset after a reload when the same file is picked again", async () => {
    const dir = scratchDir("browser-tus-");
    const file = path.join(dir, "noise.png");
    const bytes = noisePng(2048, 2048, 7); // 12.6 MB: several chunks
    writeFileSync(file, bytes);
    expect(bytes.length).toBeGreaterThan(12 * MiB);
    const log = recordTus(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");

    await step("open the upload page", page.goto(`${app.origin}/app/upload`));
    await page.setInputFiles("#files", [file]);
    await throttleUploads(cdp, 2 * MiB); // each chunk takes seconds: the reload below lands inside one
    const firstChunk = page.waitForResponse((r) => r.request().method() === "PATCH" && TUS_PATH.test(new URL(r.url()).pathname) && r.status() === 204, { timeout: 90_000 });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    const answered = await step("the first chunk answered 204", firstChunk, 95_000);
    const confirmed = Number(answered.headers()["upload-offset"]);
    expect(confirmed).toBe(BROWSER_UPLOADS.tusChunkBytes); // one chunk in, the rest to come
    const before = log.filter((e) => e.kind === "request");
    expect(before.filter((e) => e.method === "POST")).toHaveLength(1);
    expect(Number(before.find((e) => e.method === "PATCH").offset)).toBe(0);

    await step("reload the page mid-upload", page.reload());
    await throttleUploads(cdp, -1);
    log.length = 0;
    await page.setInputFiles("#files", [file]);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await step("the resumed upload is done", page.locator("#queue .status", { hasText: /^done$/ }).waitFor({ timeout: 120_000 }), 125_000);

    console.log(`confirmed before the reload: ${confirmed}; after: ${log.map((e) => `${e.kind === "request" ? "->" : "<-"} ${e.method} ${e.status ?? ""} ${e.offset ?? ""}`).join(", ")}`);
    const after = log.filter((e) => e.kind === "request");
    // Resumed, not created again: a HEAD for the offset, then PATCHes from it.
    expect(after.filter((e) => e.method === "POST")).toEqual([]);
    expect(after[0].method).toBe("HEAD");
    const patches = after.filter((e) => e.method === "PATCH");
    expect(patches.length).toBeGreaterThan(0);
    expect(Number(patches[0].offset)).toBeGreaterThanOrEqual(confirmed);

    // The result is the finalize answer: share links, and the direct link serves the very bytes picked.
    expect(await page.locator("#queue .failed").count()).toBe(0);
    expect(await page.locator("#queue progress").evaluate((bar) => bar.value)).toBe(100);
    const pageLink = await page.getByLabel("Page", { exact: true }).inputValue();
    expect(pageLink).toMatch(new RegExp(`^${app.origin}/f/file_[\\w-]+$`));
    const direct = await page.getByLabel("Direct", { exact: true }).inputValue();
    const served = await step("fetch the direct link", boundedFetch(direct));
    expect(served.status).toBe(200);
    const sha = (b) => createHash("sha256").update(b).digest("hex");
    expect(sha(Buffer.from(await served.arrayBuffer()))).toBe(sha(bytes));
    // A finished upload leaves nothing to resume: the same file picked again is a new upload.
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("tus::")))).toEqual([]);
  });

  it("shows the API's message when the completion is refused", async () => {
    const dir = scratchDir("browser-tus-");
    const file = path.join(dir, "not-really.png");
    writeFileSync(file, Buffer.alloc(6 * 1000 * 1000, 0x41)); // above the cutoff, not a PNG
    const log = recordTus(page);
    await step("open the upload page", page.goto(`${app.origin}/app/upload`));
    await page.setInputFiles("#files", [file]);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await step("the row fails", page.locator("#queue .failed").waitFor({ timeout: 60_000 }), 65_000);
    expect(await page.locator("#queue .status").textContent()).toBe("failed: The file's first bytes are not those of image/png");
    expect(log.some((e) => e.kind === "response" && e.method === "PATCH" && e.status === 415)).toBe(true);
  });
});
