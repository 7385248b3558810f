// The flows people expect from an image host, in chromium: upload with previews and share links, my files
// (details, copy-link, search, multi-select bulk actions, numbered pages), an album (thumbnail picker, cover by
// click, password state), the public album (description, count, keyboard lightbox, streamed zip) and the
// public file page (facts, download, report). Also writes the README's ten screenshots (desktop and 390 px) into
// docs/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DESKTOP, DOC_SHOTS, PHONE, SHOTS, accessToken, api, gradientBmp, openPage, root, scratchDir, signUp, startApp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(2);
const FIXTURES = path.join(root, "test/fixtures/images");
let app;
let ctx;
let page;
let token;
let problems;
const state = {};
const started = Date.now();

/** Most a README screenshot may weigh: they are committed, and rewritten by every run of this suite. */
const SHOT_MAX_BYTES = 300_000;

/** The README's desktop and 390 px screenshots of the page at `url` (the phone one in a context sharing the
 *  session), written into docs/screenshots/ as JPEG (photos in PNG are megabytes). */
async function shots(name, url, prepare) {
  const take = async (p, file) => {
    await p.goto(url, { waitUntil: "networkidle" });
    if (prepare) await prepare(p);
    // A full-page capture leaves a sticky thing (My files' bulk bar) where the viewport's bottom was, over the
    // cards: it is put back in the flow, where a person scrolling to it sees it (the CSSOM: the CSP allows it).
    await p.evaluate(() => document.querySelectorAll("body *").forEach((el) => getComputedStyle(el).position === "sticky" && (el.style.position = "static")));
    await p.screenshot({ path: path.join(DOC_SHOTS, file), fullPage: true, type: "jpeg", quality: 75 });
    expect(statSync(path.join(DOC_SHOTS, file)).size, file).toBeLessThan(SHOT_MAX_BYTES);
  };
  await take(page, `${name}-desktop.jpg`);
  const phone = await app.browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, storageState: await ctx.storageState() });
  await take(await phone.newPage(), `${name}-phone.jpg`);
  await phone.close();
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(DOC_SHOTS, { recursive: true });
  // Rate limits x10: this suite uploads a few dozen files within a minute from one account.
  app = await startApp(PORT, { RATE_LIMIT_MULTIPLIER: "10" });
  ({ context: ctx, page } = await openPage(app.browser, { viewport: DESKTOP }, { origin: app.origin, permissions: ["clipboard-read", "clipboard-write"] }));
  problems = watch(page);
  await signUp(page, app.origin, "flows");
  token = await accessToken(page, app.origin);
});

afterAll(async () => {
  await app?.stop();
});

describe("upload", () => {
  it("takes picked images, shows a preview grid with progress, then share links with Copy buttons", async () => {
    await page.goto(`${app.origin}/app/upload`);
    const files = ["wood.jpg", "wide.jpg", "truchet.png"].map((f) => path.join(FIXTURES, f));
    await page.setInputFiles("#files", files);
    expect(await page.locator("#queue img.preview").count()).toBe(3);
    expect(await page.locator("#queue progress").count()).toBe(3);
    await expect.poll(() => page.locator("#picked").textContent()).toBe("3 images ready");
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await expect.poll(() => page.locator("#queue .status", { hasText: /^done$/ }).count(), { timeout: 60_000 }).toBe(3);
    const first = page.locator("#queue .item").first();
    for (const label of ["Page", "Direct", "Markdown", "BBCode"]) expect(await first.getByLabel(label, { exact: true }).count()).toBe(1);
    const markdown = await first.getByLabel("Markdown", { exact: true }).inputValue();
    expect(markdown).toMatch(/^!\[wood\.jpg\]\(http:\/\/localhost:\d+\/i\/file_[\w-]+\)$/);
    await first.getByRole("button", { name: "Copy Markdown of wood.jpg" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(markdown);
    await shots("upload", `${app.origin}/app/upload`, async (p) => {
      // The screenshot shows a finished session: the same files again, uploaded.
      await p.setInputFiles("#files", files.slice(0, 2));
      await p.getByRole("button", { name: "Upload", exact: true }).click();
      await expect.poll(() => p.locator("#queue .status", { hasText: /^done$/ }).count(), { timeout: 60_000 }).toBe(2);
    });
  });

  it("takes an image pasted from the clipboard", async () => {
    await page.goto(`${app.origin}/app/upload`);
    const png = readFileSync(path.join(FIXTURES, "shapes.png")).toString("base64");
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "pasted.png", { type: "image/png" }));
      document.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true }));
    }, png);
    expect(await page.locator("#queue img.preview").count()).toBe(1);
    // A pasted image starts at once: no Upload press.
    await page.locator("#queue .status", { hasText: /^done$/ }).waitFor({ timeout: 60_000 });
  });
});

describe("my files", () => {
  it("shows title, size, views and date on each card, with a copy-link button", async () => {
    await page.goto(`${app.origin}/app/files`);
    const card = page.locator(".grid .card", { hasText: "wood" }).first();
    const text = await card.textContent();
    expect(text).toMatch(/\d+(\.\d)? KB · \d+ views? · \d{1,2} \w{3} \d{4}/);
    expect(text).not.toMatch(/file_/);
    await card.getByRole("button", { name: /Copy link to wood/ }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/\/f\/file_[\w-]+$/);
  });

  it("searches (the search index, the last word a prefix) and filters by tag", async () => {
    const ids = (await api(app.origin, token, "GET", "/files?limit=100")).body.files;
    state.wood = ids.find((f) => f.title === "wood").id;
    await api(app.origin, token, "PATCH", `/files/${state.wood}`, { tags: ["texture"] });
    await page.goto(`${app.origin}/app/files`);
    await page.getByLabel("Search", { exact: true }).fill("WOO"); // a prefix of the title: the search index's type-ahead matching
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.waitForURL(/q=WOO/);
    const titles = await page.locator(".grid .card .title").allTextContents();
    expect(titles.length).toBeGreaterThan(0);
    expect(titles.every((t) => t === "wood")).toBe(true);
    await page.goto(`${app.origin}/app/files?tag=texture`);
    expect(await page.locator(".grid .card .title").allTextContents()).toEqual(["wood"]);
  });

  it("selects several files for bulk visibility, add to album and delete (after a confirmation)", async () => {
    const album = await api(app.origin, token, "POST", "/albums", { title: "Bulk target" });
    await page.goto(`${app.origin}/app/files?q=wide`);
    const boxes = page.getByRole("checkbox", { name: /^Select wide/ });
    const n = await boxes.count();
    expect(n).toBeGreaterThanOrEqual(2);
    for (let i = 0; i < n; i++) await boxes.nth(i).check();
    expect(await page.locator("#bulk-count").textContent()).toBe(`${n} files selected`);
    await page.getByLabel("Action").selectOption("private");
    await page.getByRole("button", { name: "Apply to selected" }).click();
    await page.getByText("Saved.").waitFor();
    const wides = (await api(app.origin, token, "GET", "/files?q=wide")).body.files;
    for (const f of wides) expect((await api(app.origin, token, "GET", `/files/${f.id}`)).body.visibility).toBe("private");

    for (let i = 0; i < n; i++) await page.getByRole("checkbox", { name: /^Select wide/ }).nth(i).check();
    await page.getByLabel("Action").selectOption("album");
    await page.getByLabel("Album", { exact: true }).selectOption(album.body.id);
    await page.getByRole("button", { name: "Apply to selected" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await api(app.origin, token, "GET", `/albums/${album.body.id}`)).body.fileCount).toBe(n);

    await page.getByRole("checkbox", { name: /^Select wide/ }).first().check();
    await page.getByLabel("Action").selectOption("delete");
    await page.getByRole("button", { name: "Apply to selected" }).click();
    await page.getByRole("heading", { name: "Delete this file?" }).waitFor();
    await page.getByRole("button", { name: /Delete it permanently/ }).click();
    await page.getByText("1 files were deleted.").or(page.getByText("The file was deleted.")).waitFor();
    expect((await api(app.origin, token, "GET", "/files?q=wide")).body.files.length).toBe(n - 1);
  });

  it("numbers its pages", async () => {
    for (let i = 0; i < 24; i++) await uploadForm(app.origin, token, gradientBmp(40, 30, i), `filler ${i}.bmp`, "image/bmp");
    await page.goto(`${app.origin}/app/files`);
    const pager = page.getByRole("navigation", { name: "Pages" });
    expect(await pager.getByRole("link", { name: "Page 1" }).getAttribute("aria-current")).toBe("page");
    await pager.getByRole("link", { name: "Page 2" }).click();
    await page.waitForURL(/page=2/);
    expect(await page.locator(".grid .card").count()).toBeGreaterThan(0);
    await shots("my-files", `${app.origin}/app/files`);
  });
});

describe("albums", () => {
  it("adds images from a thumbnail picker, sets the cover by clicking an image, shows the password state", async () => {
    await page.goto(`${app.origin}/app/albums`);
    await page.getByLabel("Title").fill("Textures and shapes");
    await page.getByLabel("Description").fill("Wood grain, truchet tiles and a wide view.");
    await page.getByLabel("Password (optional)").fill("open sesame");
    await page.getByRole("button", { name: "Create album" }).click();
    await page.getByText("Album created.").waitFor();
    expect(await page.locator("#password-state").textContent()).toBe("Password set");
    const picker = page.locator(".picker");
    expect(await picker.locator("img").count()).toBeGreaterThan(3);
    for (const title of ["wood", "truchet", "pasted"]) await picker.getByRole("checkbox", { name: title, exact: true }).first().check();
    await page.getByRole("button", { name: "Add to album" }).click();
    await page.getByText("Saved.").waitFor();
    await page.getByRole("button", { name: "Make truchet the cover" }).click();
    await page.getByText("Saved.").waitFor();
    expect(await page.locator(".card.cover .title").textContent()).toBe("truchet");
    state.albumUrl = await page.locator("#album-link").getAttribute("href");
    state.albumManage = page.url().split("?")[0];
    // Without the password, for the public album screenshots and the zip.
    await page.getByLabel("Remove the password").check();
    await page.getByRole("button", { name: "Save album" }).click();
    await page.getByText("Saved.").waitFor();
    expect(await page.locator("#password-state").textContent()).toBe("No password");
    await shots("album", state.albumManage);
  });

  it("public album: description, count, a keyboard lightbox and a streamed zip download", async () => {
    const anon = await app.browser.newContext({ viewport: DESKTOP });
    const p = await anon.newPage();
    const seen = watch(p);
    await p.goto(`${app.origin}${state.albumUrl}`);
    expect(await p.locator("h1").textContent()).toBe("Textures and shapes");
    expect(await p.getByText("Wood grain, truchet tiles and a wide view.").count()).toBe(1);
    expect(await p.locator("#album-count").textContent()).toBe("3 images");
    await p.locator(".gallery a").first().focus();
    await p.keyboard.press("Enter");
    const dialog = p.getByRole("dialog", { name: "Image viewer" });
    await dialog.waitFor();
    expect(await dialog.locator(".caption").textContent()).toContain("(1 of 3)");
    await p.keyboard.press("ArrowRight");
    expect(await dialog.locator(".caption").textContent()).toContain("(2 of 3)");
    await p.keyboard.press("ArrowLeft");
    await p.keyboard.press("ArrowLeft");
    expect(await dialog.locator(".caption").textContent()).toContain("(3 of 3)");
    await p.waitForFunction(() => document.querySelector("#lightbox img").complete);
    await p.screenshot({ path: path.join(SHOTS, "album-lightbox-desktop.png") });
    await p.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await p.evaluate(() => document.activeElement?.closest(".gallery") !== null)).toBe(true);

    const res = await fetch(`${app.origin}${state.albumUrl}/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-length")).toBeNull(); // streamed, not built in memory
    const dir = scratchDir("album-zip-");
    const zip = path.join(dir, "album.zip");
    writeFileSync(zip, Buffer.from(await res.arrayBuffer()));
    execFileSync("unzip", ["-tq", zip]); // CRCs and structure check out
    const listing = execFileSync("zipinfo", ["-1", zip], { encoding: "utf8" }).trim().split("\n").sort();
    expect(listing).toEqual(["pasted.png", "truchet.png", "wood.jpg"]);
    execFileSync("unzip", ["-q", zip, "-d", dir]);
    expect(readFileSync(path.join(dir, "wood.jpg")).equals(readFileSync(path.join(FIXTURES, "wood.jpg")))).toBe(true);
    await anon.close();
    expect(seen).toEqual([]);
    await shots("public-album", `${app.origin}${state.albumUrl}`);
  });
});

describe("public file page", () => {
  it("shows date, views, size and dimensions, a download and a report form", async () => {
    const anon = await app.browser.newContext({ viewport: DESKTOP });
    const p = await anon.newPage();
    await p.goto(`${app.origin}/f/${state.wood}`);
    const facts = p.getByRole("complementary", { name: "About this image" });
    const text = await facts.textContent();
    expect(text).toMatch(/Uploaded\d{1,2} \w{3} \d{4}/);
    expect(text).toMatch(/Views\d+/);
    expect(text).toMatch(/Size\d+(\.\d)? KB/);
    expect(text).toMatch(/Dimensions\d+ × \d+ px/);
    const [download] = await Promise.all([p.waitForEvent("download"), facts.getByRole("link", { name: "Download" }).click()]);
    expect(readFileSync(await download.path()).equals(readFileSync(path.join(FIXTURES, "wood.jpg")))).toBe(true);
    await facts.getByRole("link", { name: "Report" }).click();
    await p.getByLabel("Reason").selectOption("spam");
    await p.getByLabel("Details (optional)").fill("Posted all over a forum.");
    await p.getByRole("button", { name: "Send report" }).click();
    await p.getByText("Thank you: the report reached our moderators.").waitFor();
    await anon.close();
    await shots("public-file", `${app.origin}/f/${state.wood}`);
    expect(problems).toEqual([]);
  });
});

describe("the README's screenshots", () => {
  it("are the ten images the README shows, written by this run, and git does not ignore them", () => {
    const named = [...readFileSync(path.join(root, "README.md"), "utf8").matchAll(/\]\((docs\/screenshots\/[\w-]+\.jpg)\)/g)].map((m) => m[1]);
    expect(named).toHaveLength(10);
    for (const file of named) {
      expect(statSync(path.join(root, file), { throwIfNoEntry: false })?.mtimeMs ?? 0, `${file} written by this run`).toBeGreaterThanOrEqual(started);
      // 1: not ignored (the old `screenshots/` rule matched docs/screenshots/ too, and none was ever committed).
      expect(spawnSync("git", ["check-ignore", "-q", file], { cwd: root }).status, `${file} ignored by git`).toBe(1);
    }
  });
});
