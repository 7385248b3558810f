// The web app in a real browser: sign up, verify, upload a small and a > 12 MB image with progress,
// see the thumbnail, create and revoke an API key, export data. Screenshots go to screenshots/.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gradientBmp, openPage, root, scratchDir, startApp, suitePort, verifyLink } from "./support.mjs";
import { BROWSER_UPLOADS, UPLOADS } from "../../src/config/uploads.ts";

const PORT = suitePort(0);
const ORIGIN = `http://localhost:${PORT}`;
const SHOTS = path.join(root, "screenshots");
const PASSWORD = "correct horse battery staple";

let app;
let browser;
let context;
let page;
const email = `browser-${Date.now()}@example.com`;
const username = `b${Date.now().toString(36)}`;

const shot = (name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  app = await startApp(PORT);
  browser = app.browser;
  ({ context, page } = await openPage(browser, { viewport: { width: 1100, height: 900 }, acceptDownloads: true }, { origin: ORIGIN, permissions: ["clipboard-read", "clipboard-write"] }));
  page.on("pageerror", (err) => console.error("page error:", err.message));
});

afterAll(async () => {
  await app?.stop();
});

describe("web app in chromium", () => {
  it("signs up and verifies the e-mail from the outbox link", async () => {
    await page.goto(`${ORIGIN}/app/signup`);
    await shot("signup");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Username").fill(username);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL(/\/app\/account/);
    expect(await page.locator("#unverified").count()).toBe(1);

    await page.goto(await verifyLink(ORIGIN, email));
    await shot("verify-email");
    await page.getByRole("button", { name: "Confirm my e-mail address" }).click();
    await page.getByText("Your e-mail address is verified.").waitFor();
    await page.goto(`${ORIGIN}/app/account`);
    expect(await page.locator("#verified").count()).toBe(1);
    await shot("account");
  });

  it("uploads a small image and a > 12 MB image with per-file progress", async () => {
    const dir = scratchDir("browser-upload-");
    const big = path.join(dir, "big-gradient.bmp");
    writeFileSync(big, gradientBmp(2100, 2100)); // 13.2 MB: over tus (3 chunks of 5 MiB)
    const small = path.join(root, "test/fixtures/images/cubes.jpg");

    await page.goto(`${ORIGIN}/app/upload`);
    await page.locator("details.options summary").click();
    await page.getByLabel("Title").fill("From the browser test");
    await page.getByLabel("Tags (comma separated)").fill("browser, test");
    await page.setInputFiles("#files", [small, big]);
    expect(await page.locator("#queue progress").count()).toBe(2);

    // Record every value the progress bars take (in the page: the upload is quick on loopback), and slow
    // the uploads down a little (CDP throttling) so a screenshot can catch them mid-way.
    await page.evaluate(() => {
      window.__progress = [];
      const bars = [...document.querySelectorAll("#queue progress")];
      new MutationObserver((records) => {
        for (const r of records) window.__progress.push(`${bars.indexOf(r.target)}:${r.target.value}`);
      }).observe(document.getElementById("queue"), { attributes: true, subtree: true, attributeFilter: ["value"] });
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 5, downloadThroughput: -1, uploadThroughput: 6 * 1024 * 1024 });
    await page.getByRole("button", { name: "Upload" }).click();
    await page.waitForFunction(() => window.__progress.some((v) => /^1:([1-9]\d?)$/.test(v)), null, { timeout: 60_000 });
    await shot("upload-progress");
    await page.locator("#queue .status", { hasText: /^done$/ }).nth(1).waitFor({ timeout: 120_000 });
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const seen = await page.evaluate(() => window.__progress);
    console.log("big-file progress values seen:", seen.filter((s) => s.startsWith("1:")).join(" "));
    const intermediate = seen.filter((s) => s.startsWith("1:") && !["1:0", "1:100"].includes(s));
    expect(intermediate.length).toBeGreaterThan(0);
    const failed = await page.locator("#queue .failed").allTextContents();
    expect(failed).toEqual([]);
    // Page, direct, Markdown and BBCode links for each of the two images, under its preview.
    expect(await page.locator("#queue .links input").count()).toBe(8);
    expect(await page.locator("#queue img.preview").count()).toBe(2);
    await shot("upload-done");
  });

  it("retries a failed tus chunk and still completes", async () => {
    const dir = scratchDir("browser-upload-");
    const file = path.join(dir, "retry.bmp");
    writeFileSync(file, gradientBmp(1900, 1900)); // 10.8 MB: 3 chunks
    let failed = 0;
    await page.route(/\/upload\/tus\/[^/]+$/, async (route) => {
      const req = route.request();
      if (failed === 0 && req.method() === "PATCH" && Number(req.headers()["upload-offset"]) > 0) {
        failed++;
        await route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: "Service Unavailable", message: "injected" }) });
      } else await route.continue();
    });
    await page.goto(`${ORIGIN}/app/upload`);
    await page.evaluate(() => {
      window.__statuses = [];
      new MutationObserver(() => document.querySelectorAll("#queue .status").forEach((s) => window.__statuses.push(s.textContent))).observe(document.getElementById("queue"), {
        childList: true,
        subtree: true,
        characterData: true,
      });
    });
    await page.setInputFiles("#files", [file]);
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator("#queue .status", { hasText: /^done$/ }).waitFor({ timeout: 120_000 });
    await page.unrouteAll();
    expect(failed).toBe(1);
    expect(await page.evaluate(() => window.__statuses)).toContain(`retrying (1 of ${BROWSER_UPLOADS.uploadRetry.attempts - 1})`);
  });

  it("explains a refused upload (413) with the plan's limit and what is left", async () => {
    const dir = scratchDir("browser-upload-");
    const huge = path.join(dir, "too-big.bmp");
    writeFileSync(huge, gradientBmp(2700, 2700)); // 21.9 MB > the free plan's 20 MB
    await page.goto(`${ORIGIN}/app/upload`);
    await page.setInputFiles("#files", [huge]);
    await page.getByRole("button", { name: "Upload" }).click();
    await page.locator("#queue .failed").waitFor();
    await page.locator("#limits-msg", { hasText: "larger than your plan allows" }).waitFor();
    const msg = await page.locator("#limits-msg").textContent();
    expect(msg).toMatch(/Plan free: files up to 20 MB; .* of 2\.0 GB storage left/);
    await shot("upload-refused");
  });

  it("shows the uploaded files with thumbnails in My files", async () => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      await page.goto(`${ORIGIN}/app/files?nsfw=show`);
      const thumbs = await page.locator(".grid img").count();
      if (thumbs >= 1 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect(await page.locator(".grid .card").count()).toBe(3);
    const img = page.locator(".grid img").first();
    await img.waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll(".grid img")].some((i) => i.complete && i.naturalWidth > 0));
    await shot("my-files");
  });

  it("creates an album with a password, adds the files and opens its page in a fresh context", async () => {
    await page.goto(`${ORIGIN}/app/albums`);
    await page.getByLabel("Title").fill("Browser album");
    await page.getByLabel("Password (optional)").fill("open sesame");
    await page.getByRole("button", { name: "Create album" }).click();
    await page.getByText("Album created.").waitFor();
    for (const box of await page.locator('input[name="fileIds"]').all()) await box.check();
    await page.getByRole("button", { name: "Add to album" }).click();
    await page.getByText("Saved.").waitFor();
    expect(await page.locator(".grid .card").count()).toBe(3);
    await shot("album-manage");
    const albumUrl = await page.locator("#album-link").getAttribute("href");

    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    await p.goto(`${ORIGIN}${albumUrl}`);
    await p.getByLabel("Album password").fill("open sesame");
    await Promise.all([p.waitForNavigation(), p.getByRole("button", { name: "Open" }).click()]);
    expect(await p.locator("h1", { hasText: "password-protected" }).count()).toBe(0);
    expect(await p.locator("h1").textContent()).toContain("Browser album");
    expect(await p.locator("img").count()).toBeGreaterThan(0);
    await p.screenshot({ path: path.join(SHOTS, "album-public.png"), fullPage: true });
    await fresh.close();
  });

  it("creates an API key shown once and revokes it", async () => {
    await page.goto(`${ORIGIN}/app/keys`);
    await page.getByLabel("Name").fill("browser key");
    await page.getByLabel("manage").check();
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key-value").textContent()).trim();
    expect(key).toMatch(/^pk_[1-9A-HJ-NP-Za-km-z]{32}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shot("api-key-created");
    const res = await fetch(`${ORIGIN}/api/v1/files`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);

    await page.goto(`${ORIGIN}/app/keys`);
    expect(await page.content()).not.toContain(key);
    // Revoking asks first: the link opens a confirmation page; the key works until it is confirmed.
    await page.getByRole("link", { name: "Revoke browser key" }).click();
    await page.getByRole("heading", { name: /Revoke the key “browser key”\?/ }).waitFor();
    expect((await fetch(`${ORIGIN}/api/v1/files`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await page.getByRole("button", { name: "Revoke browser key" }).click();
    await page.getByText("The key was revoked.").waitFor();
    await shot("api-keys");
    const after = await fetch(`${ORIGIN}/api/v1/files`, { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
  });

  it("downloads the data export", async () => {
    await page.goto(`${ORIGIN}/app/account`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: /Download all my data/ }).click()]);
    const file = await download.path();
    const { readFileSync } = await import("node:fs");
    const data = readFileSync(file, "utf8");
    expect(data).toContain(email);
    expect(data).toContain("From the browser test");
  });

  it("shows the layout on a phone viewport", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const p = await phone.newPage();
    await p.goto(`${ORIGIN}/app/login`);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    expect(overflow).toBe(false);
    await p.screenshot({ path: path.join(SHOTS, "login-phone.png"), fullPage: true });
    await phone.close();
  });

  it("sends files from config's tus cutoff (decimal MB) over tus, smaller ones in one direct PUT", async () => {
    const cutoff = BROWSER_UPLOADS.tusFromBytes;
    const dir = scratchDir("browser-upload-");
    // BMPs on each side of the cutoff, both below 5 MiB (the cutoff the script once had on its own).
    const below = path.join(dir, "below.bmp");
    const above = path.join(dir, "above.bmp");
    writeFileSync(below, gradientBmp(1276, 1276)); // 4,884,582 bytes
    writeFileSync(above, gradientBmp(1304, 1304)); // 5,101,302 bytes
    expect(4_884_582 < cutoff && cutoff <= 5_101_302 && 5_101_302 < 5 * 1024 * 1024).toBe(true);
    const calls = [];
    const record = (req) => {
      const p = new URL(req.url()).pathname;
      if (req.method() !== "POST") return;
      if (p.endsWith("/upload/presign")) calls.push({ flow: "presign", name: req.postDataJSON().filename, bytes: req.postDataJSON().bytes });
      if (p.endsWith("/upload/tus")) {
        const meta = Object.fromEntries(req.headers()["upload-metadata"].split(",").map((pair) => pair.split(" ")));
        calls.push({ flow: "tus", name: Buffer.from(meta.filename, "base64").toString(), bytes: Number(req.headers()["upload-length"]) });
      }
    };
    page.on("request", record);
    try {
      await page.goto(`${ORIGIN}/app/upload`);
      await page.setInputFiles("#files", [below, above]);
      await page.getByRole("button", { name: "Upload" }).click();
      await expect.poll(() => page.locator("#queue .status", { hasText: /^done$/ }).count(), { timeout: 120_000 }).toBe(2);
    } finally {
      page.off("request", record);
    }
    const byName = Object.fromEntries(calls.map((c) => [c.name, c]));
    expect(byName["below.bmp"]).toEqual({ flow: "presign", name: "below.bmp", bytes: 4_884_582 });
    expect(byName["above.bmp"]).toEqual({ flow: "tus", name: "above.bmp", bytes: 5_101_302 });
    expect(calls.some((c) => c.name === "above.bmp" && c.flow === "presign")).toBe(false);
    expect(BROWSER_UPLOADS.tusChunkBytes).toBeGreaterThanOrEqual(UPLOADS.multipartPartBytes.min);
  });
});
