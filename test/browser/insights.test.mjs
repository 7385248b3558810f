// Insights in chromium (extensions.md § 10): the account page's and the owner's file page's charts show the API's
// numbers, their "Show data" table opens by keyboard, the pages fit 390 px with no serious axe-core violation;
// then, with 30 days of history written into the stopped worker's D1, the README's phone screenshot, and /app/admin.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../bench/lib/index.mjs";
import { localD1Files } from "../../bench/lib/dbstat.mjs";
import { DESKTOP, DOC_SHOTS, PASSWORD, PHONE, accessToken, api, axeViolations, boundedFetch, horizontalOverflow, launchChromium, openPage, root, signUp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(41);
const origin = `http://localhost:${PORT}`;
// Fixed secrets: the worker is started twice on the same state, and the session must survive it.
const VARS = {
  BASE_URL: `${origin}/api/v1`, IMAGE_URL: `${origin}/i`, CDN_URL: `${origin}/cdn`, SITE_URL: origin, ENVIRONMENT: "development",
  JWT_SECRET: "insights-browser-test-jwt-secret-0123456789", BILLING_WEBHOOK_SECRET: "insights-browser-test-billing-0123456789",
  TOTP_ENCRYPTION_SECRET: "insights-browser-test-totp-0123456789abcd", SIGNED_URL_SECRET: "insights-browser-test-signed-0123456789ab",
};
const PHOTOS = ["coffee.jpg", "greenmeadow.jpg", "moon.jpg"].map((f) => path.join(root, "test/fixtures/images/photos", f));
const DAY_MS = 86_400_000;

let state;
let worker;
let browser;
let account;
let files = [];

const start = (migrate) => startWorker({ config: "wrangler.toml", port: PORT, vars: VARS, persistTo: state, migrate });

beforeAll(async () => {
  state = mkdtempSync(path.join(tmpdir(), "insights-browser-"));
  worker = await start(true);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  if (state) rmSync(state, { recursive: true, force: true });
});

/** A chart's "Show data" rows as [date, value]. */
const tableOf = (page, id) => page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));

async function checkPage(page, label) {
  expect(await axeViolations(page), `${label}: axe`).toEqual([]);
  const viewport = page.viewportSize();
  await page.setViewportSize(PHONE);
  const { over, culprits } = await horizontalOverflow(page);
  expect(over, `${label} at 390 px: ${culprits.join(", ")}`).toBe(0);
  await page.setViewportSize(viewport);
}

describe("insights in the browser", () => {
  it("the account page and the file's page chart the API's numbers; Show data opens by keyboard", async () => {
    const { context, page } = await openPage(browser, { viewport: DESKTOP });
    const problems = watch(page);
    account = await signUp(page, origin, "insights");
    const token = await accessToken(page, origin);
    for (const [i, file] of PHOTOS.entries()) {
      const title = ["Morning coffee", "Green meadow", "The moon"][i];
      files.push({ ...(await uploadForm(origin, token, readFileSync(file), path.basename(file), "image/jpeg", { title })), title });
    }
    // Views from two sites and direct, counted after each response and written by the counter's alarm.
    const views = [[5, 3, 2], [2, 1, 1], [1, 0, 1]];
    for (const [i, [blog, forum, direct]] of views.entries()) {
      for (const [n, referer] of [[blog, "https://blog.example.com/2026/harbour?utm=1"], [forum, "https://forum.example.org/t/42"], [direct, undefined]]) {
        for (let k = 0; k < n; k++) await (await boundedFetch(files[i].url, { headers: referer ? { referer } : {} })).arrayBuffer();
      }
    }
    let stats;
    await expect.poll(async () => (stats = (await api(origin, token, "GET", "/account/stats")).body).days.at(-1).views, { timeout: 30_000 }).toBe(16);

    await page.goto(`${origin}/app/account`);
    expect(await tableOf(page, "account-views")).toEqual(stats.days.map((d) => [d.date, String(d.views)]));
    expect(await tableOf(page, "account-uploads")).toEqual(stats.days.map((d) => [d.date, String(d.uploads)]));
    expect(await page.locator("#top-files li").first().textContent()).toContain("Morning coffee");
    // Keyboard only: Tab to the views chart's "Show data", Enter opens its table.
    const summary = page.locator("#account-views summary");
    for (let i = 0; i < 200 && !(await summary.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    expect(await summary.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#account-views table").isVisible()).toBe(true);
    await checkPage(page, "/app/account");

    const fileStats = (await api(origin, token, "GET", `/files/${files[0].fileId}/stats`)).body;
    expect(fileStats.referrers).toEqual([{ host: "blog.example.com", views: 5 }, { host: "forum.example.org", views: 3 }, { host: "(direct)", views: 2 }]);
    await page.goto(`${origin}/app/files/${files[0].fileId}/edit`);
    // The edit page's own read (GET /files/:id) counts a view too: compare with the API after it.
    const after = (await api(origin, token, "GET", `/files/${files[0].fileId}/stats`)).body;
    const shown = await tableOf(page, "file-views");
    expect(shown.slice(0, -1)).toEqual(after.days.slice(0, -1).map((d) => [d.date, String(d.views)]));
    expect(Number(shown.at(-1)[1])).toBeGreaterThanOrEqual(10);
    expect(await page.locator("#file-referrers").textContent()).toContain("blog.example.com");
    await checkPage(page, "/app/files/:id/edit");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("with 30 days of history: the account page on a phone (the README's screenshot), and /app/admin", async () => {
    expect(account, "the first test signed up").toBeTruthy();
    await worker.stop();
    worker = undefined;
    await seedHistory(files.map((f) => f.fileId), account.email);
    // The role was set behind the app's back: the edge-cached principal records (kept on disk by wrangler dev) are
    // dropped, as the admin route's own role change forgets them.
    rmSync(path.join(state, "v3", "cache"), { recursive: true, force: true });
    worker = await start(false);

    const { context, page } = await openPage(browser, { viewport: PHONE, deviceScaleFactor: 2 });
    const problems = watch(page);
    await page.goto(`${origin}/app/login`);
    await page.getByLabel("E-mail").fill(account.email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL((u) => !u.pathname.endsWith("/login"));
    await page.goto(`${origin}/app/account`);
    const token = await accessToken(page, origin);
    const stats = (await api(origin, token, "GET", "/account/stats")).body;
    expect(stats.days.filter((d) => d.views > 0).length).toBeGreaterThan(20);
    expect(await tableOf(page, "account-views")).toEqual(stats.days.map((d) => [d.date, String(d.views)]));
    expect((await horizontalOverflow(page)).over).toBe(0);
    await page.locator("#insights").evaluate((el) => el.scrollIntoView({ block: "start" }));
    mkdirSync(DOC_SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(DOC_SHOTS, "insights-phone.png"), type: "png" });

    // The service's page, for this account now an admin: four charts of 30 days, readable at 390 px.
    await page.goto(`${origin}/app/admin`);
    for (const id of ["admin-signups", "admin-uploads", "admin-reports", "admin-storage"]) expect(await tableOf(page, id)).toHaveLength(30);
    await checkPage(page, "/app/admin");
    expect(problems).toEqual([]);
    await context.close();
  });
});

/** Writes 29 past days of views and downloads for `fileIds`, and the owner's days, into the stopped worker's D1. */
async function seedHistory(fileIds, email) {
  const { DatabaseSync } = await import("node:sqlite");
  const today = Math.floor(Date.now() / DAY_MS);
  let seeded = 0;
  let admins = 0;
  for (const file of localD1Files(state)) {
    const db = new DatabaseSync(file);
    try {
      // The directory: this account becomes an admin, for /app/admin.
      if (db.prepare("SELECT 1 AS n FROM sqlite_schema WHERE name = 'users'").get()) admins += Number(db.prepare("UPDATE users SET role = 'admin' WHERE email = ?").run(email).changes);
      const owner = db.prepare(`SELECT user_id FROM files WHERE id = ?`).get(fileIds[0]);
      if (!owner) continue;
      const put = db.prepare("INSERT OR REPLACE INTO file_days (file_id, day, user_id, views, downloads, referrers) VALUES (?, ?, ?, ?, ?, ?)");
      const used = db.prepare("SELECT storage_used AS n FROM owners WHERE user_id = ?").get(owner.user_id)?.n ?? 0;
      const ownerDay = db.prepare("INSERT OR REPLACE INTO owner_days (user_id, day, uploads, storage_bytes) VALUES (?, ?, ?, ?)");
      for (let back = 29; back >= 1; back--) {
        const day = today - back;
        const wave = Math.round(12 + 9 * Math.sin(back / 3) + (29 - back) * 0.8);
        for (const [i, id] of fileIds.entries()) {
          const views = Math.max(0, Math.round(wave / (i + 1)) - (back % 5 === 0 ? 3 : 0));
          const blog = Math.round(views * 0.6);
          put.run(id, day, owner.user_id, views, Math.round(views / 6), JSON.stringify({ "blog.example.com": blog, "forum.example.org": views - blog }));
        }
        ownerDay.run(owner.user_id, day, back % 4 === 0 ? 2 : back % 7 === 0 ? 1 : 0, Math.round(used * (0.3 + (0.65 * (29 - back)) / 29)));
      }
      seeded++;
    } finally {
      db.close();
    }
  }
  expect(seeded, "the owner's shard found").toBe(1);
  expect(admins, "the account made an admin").toBe(1);
}
