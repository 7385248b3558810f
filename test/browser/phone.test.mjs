// The app on a 390 px phone (issue 25 section 7): the header is one row whose links sit behind a Menu disclosure
// (opened and closed by keyboard, every link reachable, nothing moving while the page loads), and My files' bulk
// bar never covers a card, wherever the page is scrolled. Screenshots of both go to screenshots/.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DESKTOP, PHONE, SHOTS, accessToken, axeViolations, gradientBmp, openPage, signUp, startApp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(4);
const HEADER_MAX = 64; // one row: the brand (28 px icon) or the Menu button (40 px) plus the bar's padding
let app;
let desktop;
let signedIn;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  app = await startApp(PORT, { RATE_LIMIT_MULTIPLIER: "10" });
  let page;
  ({ context: desktop, page } = await openPage(app.browser, { viewport: DESKTOP }));
  await signUp(page, app.origin, "phone");
  const token = await accessToken(page, app.origin);
  for (let i = 0; i < 10; i++) await uploadForm(app.origin, token, gradientBmp(60, 45, i), `card ${i}.bmp`, "image/bmp");
  signedIn = await desktop.storageState();
});

afterAll(async () => {
  await app?.stop();
});

/** A 390 px phone page (or one of `viewport`); `session` signs it in. Layout shifts and the header's box at DOMContentLoaded are
 *  recorded from the document's start (an init script runs through the devtools protocol, outside the CSP). */
async function phonePage(session, viewport = PHONE) {
  const device = viewport === PHONE ? { isMobile: true, hasTouch: true } : {};
  const context = await app.browser.newContext({ viewport, ...device, ...(session ? { storageState: session } : {}) });
  await context.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const nodes = (e.sources ?? []).map((s) => (s.node?.nodeType === 1 ? s.node : s.node?.parentElement));
        window.__shifts.push({ value: e.value, sources: nodes.map((n) => n?.nodeName ?? "?"), header: nodes.some((n) => n?.closest("header.top")) });
      }
    }).observe({ type: "layout-shift", buffered: true });
    document.addEventListener("DOMContentLoaded", () => {
      const r = document.querySelector("header.top")?.getBoundingClientRect();
      window.__headerAtReady = r ? [r.x, r.y, r.width, r.height] : null;
    });
  });
  const page = await context.newPage();
  return { context, page, problems: watch(page) };
}

const headerBox = (page) => page.evaluate(() => {
  const r = document.querySelector("header.top").getBoundingClientRect();
  return [r.x, r.y, r.width, r.height];
});
const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  return el.tagName === "SUMMARY" ? "SUMMARY" : (el.textContent ?? "").trim();
});
const menuOpen = (page) => page.evaluate(() => document.querySelector("nav.main details").open);

const HEADER_SHIFT_NOISE = 0.01;

describe("the header at 390 px", () => {
  it("is one row on every kind of page, and does not move while the page loads", async () => {
    const pages = [[signedIn, "/app/files"], [signedIn, "/"], [null, "/app/login"], [null, "/docs"]];
    const found = [];
    for (const [session, url] of pages) {
      const { context, page, problems } = await phonePage(session);
      await page.goto(`${app.origin}${url}`, { waitUntil: "networkidle" });
      const box = await headerBox(page);
      if (box[3] > HEADER_MAX) found.push(`${url}: header ${box[3]} px tall`);
      const { shifts, atReady } = await page.evaluate(() => ({ shifts: window.__shifts, atReady: window.__headerAtReady }));
      const shifted = shifts.filter((s) => s.header).reduce((sum, s) => sum + s.value, 0);
      // Any real movement of the header (a wrapped row, a menu the script builds) scores far above 0.01, a tenth
      // of the "good" CLS bound. Below it: /docs, a long page, was once painted while still parsing on a busy CI
      // machine and its header scored 0.0013; the box check below still holds it to the pixel at load.
      if (shifted > HEADER_SHIFT_NOISE) found.push(`${url}: the header shifted ${shifted.toFixed(4)} (${JSON.stringify(shifts)})`);
      if (JSON.stringify(atReady) !== JSON.stringify(box)) found.push(`${url}: header ${JSON.stringify(atReady)} at DOMContentLoaded, ${JSON.stringify(box)} after load`);
      found.push(...problems.map((pr) => `${url}: ${pr}`));
      await context.close();
    }
    expect(found).toEqual([]);
  });

  it("opens its menu with Enter or Space, closes it with Escape, and every link in it is reachable in order", async () => {
    const { context, page, problems } = await phonePage(signedIn);
    await page.goto(`${app.origin}/app/files`, { waitUntil: "networkidle" });
    const summary = page.locator("nav.main summary");
    expect(await summary.isVisible()).toBe(true);
    expect(await page.locator("nav.main a").first().isVisible()).toBe(false);
    // Focus order: the skip link, the brand, the Menu button.
    const order = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("Tab");
      order.push(await focused(page));
    }
    expect(order).toEqual(["Skip to content", "imghost", "SUMMARY"]);

    await page.keyboard.press("Enter");
    expect(await menuOpen(page)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, "nav-menu-phone.png") });
    // Tab walks the menu's links in order, each inside the screen and not covered by anything.
    const walked = [];
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Tab");
      walked.push(await focused(page));
      const visible = await page.evaluate(() => {
        const el = document.activeElement;
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight && (hit === el || el.contains(hit));
      });
      expect(visible, walked.at(-1)).toBe(true);
    }
    expect(walked).toEqual(["Upload", "My files", "Albums", "API keys", "API", "Account", "Log out"]);
    expect(await page.locator('nav.main a[aria-current="page"]').textContent()).toBe("My files");

    // Escape from inside the menu closes it and gives the focus back to its button.
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Escape");
    expect(await menuOpen(page)).toBe(false);
    expect(await focused(page)).toBe("SUMMARY");
    expect(await page.locator("nav.main a").first().isVisible()).toBe(false);
    await page.keyboard.press(" ");
    expect(await menuOpen(page)).toBe(true);
    await page.keyboard.press("Escape");
    expect(await menuOpen(page)).toBe(false);
    expect(await focused(page)).toBe("SUMMARY");
    // A tap outside the open menu (main's margin, below the panel) closes it too.
    await summary.click();
    expect(await menuOpen(page)).toBe(true);
    await page.mouse.click(4, PHONE.height - 4);
    expect(await menuOpen(page)).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("signed out, the menu holds Log in and Sign up; on a desktop the links show without a menu", async () => {
    const { context, page } = await phonePage(null);
    await page.goto(`${app.origin}/app/login`);
    await page.locator("nav.main summary").click();
    const texts = await page.locator("nav.main a").evaluateAll((as) => as.filter((a) => a.checkVisibility()).map((a) => a.textContent));
    expect(texts).toEqual(["Upload", "API", "Log in", "Sign up"]);
    await context.close();
    const wide = await desktop.newPage();
    await wide.goto(`${app.origin}/app/files`);
    expect(await wide.locator("nav.main summary").isVisible()).toBe(false);
    const shown = await wide.locator("nav.main a, nav.main button").evaluateAll((els) => els.filter((e) => e.checkVisibility()).map((e) => e.textContent));
    expect(shown).toEqual(["Upload", "My files", "Albums", "API keys", "API", "Account", "Log out"]);
    expect((await headerBox(wide))[3]).toBeLessThanOrEqual(HEADER_MAX);
    await wide.close();
  });
});

describe("My files at 390 px", () => {
  it("with files selected, the bulk bar covers no card at any scroll position", async () => {
    const { context, page, problems } = await phonePage(signedIn);
    await page.goto(`${app.origin}/app/files`, { waitUntil: "networkidle" });
    const boxes = page.getByRole("checkbox", { name: /^Select card/ });
    await boxes.nth(0).check();
    await boxes.nth(3).check();
    expect(await page.locator("#bulk-count").textContent()).toBe("2 files selected");
    const { covered, positions } = await page.evaluate(() => {
      const bar = document.getElementById("bulk");
      const cards = [...document.querySelectorAll(".grid .card")];
      const end = document.documentElement.scrollHeight - innerHeight;
      const ys = [];
      for (let y = 0; y < end; y += Math.round(innerHeight / 3)) ys.push(y);
      ys.push(end);
      const covered = [];
      for (const y of ys) {
        window.scrollTo(0, y);
        const b = bar.getBoundingClientRect();
        cards.forEach((card, i) => {
          const r = card.getBoundingClientRect();
          // The card's visible box: its part inside the viewport.
          const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight), left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
          // A sliver at the viewport's edge (2 px of a card) has no corner past its rounded border to test.
          if (bottom - top < 24 || right - left < 24) return;
          const overlap = Math.max(0, Math.min(bottom, b.bottom) - Math.max(top, b.top)) * Math.max(0, Math.min(right, b.right) - Math.max(left, b.left));
          // Its corners, inset past the rounded border, must be the card's own.
          const inset = Math.min(12, (bottom - top) / 2, (right - left) / 2);
          const corners = [[left + inset, top + inset], [right - inset, top + inset], [left + inset, bottom - inset], [right - inset, bottom - inset]];
          const foreign = corners.filter(([x, cy]) => !card.contains(document.elementFromPoint(x, cy)));
          if (overlap > 0 || foreign.length) covered.push(`scroll ${y}: card ${i} (${Math.round(overlap)} px² under the bar, ${foreign.length} corners covered)`);
        });
      }
      return { covered, positions: ys.length };
    });
    expect(positions).toBeGreaterThan(3);
    expect(covered).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, document.querySelector(".grid .card:nth-child(3)").offsetTop));
    await page.screenshot({ path: path.join(SHOTS, "my-files-selected-phone.png") });
    await page.evaluate(() => document.getElementById("bulk").scrollIntoView({ block: "end" }));
    await page.screenshot({ path: path.join(SHOTS, "my-files-bulk-bar-phone.png") });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("the bulk bar does not change its layout once the script runs (on a desktop it is in view as the page loads)", async () => {
    const { context, page } = await phonePage(signedIn, DESKTOP);
    await page.goto(`${app.origin}/app/files`, { waitUntil: "networkidle" });
    const shifts = await page.evaluate(() => window.__shifts);
    expect(shifts).toEqual([]);
    // The album picker shows only for "Add to album…" (the stylesheet decides, so the page never jumps).
    const albumPick = page.getByLabel("Album", { exact: true });
    expect(await albumPick.isVisible()).toBe(false);
    await page.getByLabel("Action").selectOption("album");
    expect(await albumPick.isVisible()).toBe(true);
    await page.getByLabel("Action").selectOption("delete");
    expect(await albumPick.isVisible()).toBe(false);
    await context.close();
  });
});
