// Issue 37, item 5, in chromium: images dropped anywhere (synthesised DataTransfer drag events) or pasted
// (ClipboardEvent) on the upload page and on My files upload at once; the file page's lightbox; the header's
// swap on a public page; the grid/list switch; no Copy button wraps at 390 px; axe-core on the new parts. Writes
// the README's My files screenshots with real photos, a private and an 18+ one among them (cubes-resized.jpg,
// flagged by the model, as owner-images.test.mjs checks).
import { readFileSync, statSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESKTOP, DOC_SHOTS, PHONE, accessToken, api, axeViolations, horizontalOverflow, openPage, root, signUp, startApp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(19);
const IMAGES = path.join(root, "test/fixtures/images");
const PHOTOS = path.join(IMAGES, "photos");
/** The README's screenshots are committed: each stays under this. */
const SHOT_MAX_BYTES = 1_200_000;
let app;
let ctx;
let page;
let problems;
let token;

beforeAll(async () => {
  app = await startApp(PORT, { RATE_LIMIT_MULTIPLIER: "10" });
  ({ context: ctx, page } = await openPage(app.browser, { viewport: DESKTOP }));
  problems = watch(page);
  await signUp(page, app.origin, "polish");
  token = await accessToken(page, app.origin);
});

afterAll(async () => {
  await app?.stop();
});

/** Drags `file` (a fixture) over the page and drops it on `selector`, as a person dragging from their desktop. */
async function dropOn(p, selector, file, name) {
  const b64 = readFileSync(file).toString("base64");
  return p.evaluate(
    ({ b64, selector, name }) => {
      const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: "image/jpeg" }));
      const target = document.querySelector(selector);
      target.dispatchEvent(new DragEvent("dragenter", { dataTransfer: dt, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
      const overlay = document.body.classList.contains("dragging") && getComputedStyle(document.querySelector(".drop-overlay")).display !== "none";
      const dropped = target.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      return { overlay, defaultPrevented: !dropped, after: document.body.classList.contains("dragging") };
    },
    { b64, selector, name },
  );
}

/** Pastes `file` as the clipboard's image, with the focus on nothing in particular. */
async function paste(p, file, name) {
  const b64 = readFileSync(file).toString("base64");
  await p.evaluate(
    ({ b64, name }) => {
      const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: "image/jpeg" }));
      document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    { b64, name },
  );
}

const doneRows = (p, queue) => p.locator(`${queue} .status`, { hasText: /^done$/ }).count();

describe("drop and paste anywhere, started at once", () => {
  it("the upload page: a drop on the heading and a paste upload without pressing Upload", async () => {
    await page.goto(`${app.origin}/app/upload`);
    const drag = await dropOn(page, "h1", path.join(PHOTOS, "coffee.jpg"), "coffee.jpg");
    expect(drag).toEqual({ overlay: true, defaultPrevented: true, after: false });
    await expect.poll(() => doneRows(page, "#queue"), { timeout: 60_000 }).toBe(1);
    await paste(page, path.join(PHOTOS, "ladybird.jpg"), "ladybird.jpg");
    await expect.poll(() => doneRows(page, "#queue"), { timeout: 60_000 }).toBe(2);
    expect(await page.locator("#picked").textContent()).toBe("");
    const listed = (await api(app.origin, token, "GET", "/files?limit=100")).body.files.map((f) => f.title).sort();
    expect(listed).toEqual(["coffee", "ladybird"]);
  });

  it("My files: dropped and pasted images upload with the chosen visibility, then the list shows them", async () => {
    await page.goto(`${app.origin}/app/files`);
    await page.getByLabel("Drop or paste images anywhere on this page to upload them as").selectOption("private");
    const drag = await dropOn(page, ".grid", path.join(PHOTOS, "garden.jpg"), "garden.jpg");
    expect(drag.overlay).toBe(true);
    await expect.poll(() => doneRows(page, "#drop-queue"), { timeout: 60_000 }).toBe(1);
    await paste(page, path.join(PHOTOS, "moon.jpg"), "moon.jpg");
    await expect.poll(() => doneRows(page, "#drop-queue"), { timeout: 60_000 }).toBe(2);
    await page.getByRole("link", { name: "Show the list with them" }).click();
    await expect.poll(() => page.locator(".grid .card").count()).toBe(4);
    expect(await page.locator(".card", { hasText: "garden" }).locator(".badge.vis-private").count()).toBe(1);
    expect(await page.locator(".card", { hasText: "moon" }).locator(".badge.vis-private").count()).toBe(1);
    expect(problems).toEqual([]);
  });
});

describe("the file page's lightbox", () => {
  it("opens the image over the page, closes with Escape and gives the focus back", async () => {
    const big = await uploadForm(app.origin, token, readFileSync(path.join(IMAGES, "large/wood-12mp.jpg")), "wood-12mp.jpg", "image/jpeg", { title: "wood, large" });
    await page.goto(`${app.origin}/f/${big.fileId}`);
    await page.locator(".media a[data-full]").click();
    const box = page.locator("dialog#lightbox");
    await expect.poll(() => box.evaluate((d) => d.open)).toBe(true);
    expect(page.url()).toBe(`${app.origin}/f/${big.fileId}`); // not the raw file
    const img = box.locator("img");
    await expect.poll(() => img.evaluate((i) => i.complete && i.naturalWidth), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await img.getAttribute("src")).toMatch(/\?w=1600$/);
    expect(await box.locator(".caption").textContent()).toBe("wood, large");
    expect(await box.locator(".next").isVisible()).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await expect.poll(() => box.evaluate((d) => d.open)).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.matches(".media a[data-full]"))).toBe(true);
  });
});

describe("the header", () => {
  it("a public page shows Account and Log out signed in, Log in and Sign up to a stranger", async () => {
    const files = (await api(app.origin, token, "GET", "/files?limit=1&visibility=public")).body.files;
    const url = `${app.origin}/f/${files[0].id}`;
    await page.goto(url);
    const nav = page.getByRole("navigation", { name: "Main" });
    expect(await nav.getByRole("link", { name: "Account" }).isVisible()).toBe(true);
    expect(await nav.locator('a[href="/app/login"]').isVisible()).toBe(false);
    const { context: stranger, page: s } = await openPage(app.browser, { viewport: DESKTOP });
    await s.goto(url);
    const theirs = s.getByRole("navigation", { name: "Main" });
    expect(await theirs.getByRole("link", { name: "Log in" }).isVisible()).toBe(true);
    expect(await theirs.locator('a[href="/app/account"]').isVisible()).toBe(false);
    await stranger.close();
  });
});

describe("My files at 390 px", () => {
  it("switches to the list and back by links, remembers it, and no Copy button wraps", async () => {
    const phone = await ctx.browser().newContext({ viewport: PHONE, isMobile: true, hasTouch: true, storageState: await ctx.storageState() });
    const p = await phone.newPage();
    await p.goto(`${app.origin}/app/files`);
    await p.getByRole("link", { name: "List" }).click();
    await p.waitForURL(/view=list/);
    await p.goto(`${app.origin}/app/files`);
    expect(await p.locator("ul.grid.list").count()).toBe(1);
    expect((await horizontalOverflow(p)).over).toBe(0);
    expect(await axeViolations(p)).toEqual([]);
    // One line of text per Copy button: a word broken inside ("Co/py") makes two.
    const lines = await p.evaluate(() =>
      [...document.querySelectorAll("[data-copy]")].map((b) => {
        const r = document.createRange();
        r.selectNodeContents(b);
        return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
      }),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((n) => n === 1), String(lines)).toBe(true);
    await p.getByRole("link", { name: "Grid" }).click();
    await p.waitForURL(/view=grid/);
    expect(await p.locator("ul.grid.list").count()).toBe(0);
    await phone.close();
  });
});

describe("the README's screenshots of My files", () => {
  it("show real photos, a private and an 18+ one among them, at 1280 and 390 px", async () => {
    // Newest first: the 18+ photo and the private one open the grid, on a phone too.
    for (const [file, visibility] of [["chelsea.jpg", "public"], ["astronaut.jpg", "public"], ["camera.jpg", "unlisted"], ["hubble.jpg", "private"]]) {
      await uploadForm(app.origin, token, readFileSync(path.join(PHOTOS, file)), file, "image/jpeg", { visibility });
    }
    const adult = await uploadForm(app.origin, token, readFileSync(path.join(IMAGES, "cubes-resized.jpg")), "cubes.jpg", "image/jpeg", { title: "cubes" });
    await expect.poll(async () => (await api(app.origin, token, "GET", `/files/${adult.fileId}`)).body.ageRestricted, { timeout: 60_000 }).toBe(true);
    mkdirSync(DOC_SHOTS, { recursive: true });
    const take = async (p, name) => {
      await p.goto(`${app.origin}/app/files?view=grid`, { waitUntil: "networkidle" });
      expect(await p.locator(".card", { hasText: "hubble" }).locator(".badge.vis-private").count()).toBe(1);
      expect(await p.locator(".card", { hasText: "cubes" }).getByText("flagged 18+").count()).toBe(1);
      // Every thumbnail loaded (owner links), so the picture shows photos, not placeholders.
      await expect.poll(() => p.evaluate(() => [...document.querySelectorAll(".grid img")].every((i) => i.complete && i.naturalWidth > 0)), { timeout: 30_000 }).toBe(true);
      const file = path.join(DOC_SHOTS, name);
      await p.screenshot({ path: file, type: "png" });
      expect(statSync(file).size, name).toBeLessThan(SHOT_MAX_BYTES);
    };
    await take(page, "my-files-owner-desktop.png");
    const phone = await ctx.browser().newContext({ viewport: PHONE, isMobile: true, hasTouch: true, storageState: await ctx.storageState() });
    await take(await phone.newPage(), "my-files-owner-phone.png");
    await phone.close();
  });
});
