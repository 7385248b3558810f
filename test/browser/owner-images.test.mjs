// The owner sees their own files in chromium (issue 37), with {image_url} and {cdn_url} on another host than the
// site (127.0.0.1 against localhost, one wrangler dev): the session cookie never reaches the image host. A private,
// an unlisted and an 18+ file (cubes-resized.jpg, which the model scores 0.95) are uploaded on the upload page;
// each one's thumbnail loads (naturalWidth > 0, from the image host) in the upload result, in My files, on its file
// page and in the album editor. A fresh context without a session gets 404 for the private file's plain links and
// its page, and `?error=<any text>` shows none of the text.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESKTOP, PHONE, accessToken, api, axeViolations, horizontalOverflow, openPage, root, signUp, startApp, suitePort, watch } from "./support.mjs";

const PORT = suitePort(9);
const IMAGE_ORIGIN = `http://127.0.0.1:${PORT}`;
const FIXTURES = path.join(root, "test/fixtures/images");
const FILES = [
  { kind: "private", fixture: "cubes.jpg", visibility: "private" },
  { kind: "unlisted", fixture: "wood.jpg", visibility: "unlisted" },
  { kind: "18+", fixture: "cubes-resized.jpg", visibility: "public" },
];
let app;
let owner;
let page;
let problems;
const ids = {};

beforeAll(async () => {
  app = await startApp(PORT, { IMAGE_URL: `${IMAGE_ORIGIN}/i`, CDN_URL: `${IMAGE_ORIGIN}/cdn` });
  ({ context: owner, page } = await openPage(app.browser, { viewport: DESKTOP }));
  problems = watch(page);
  await signUp(page, app.origin, "owner");
});

afterAll(async () => {
  await app?.stop();
});

/** Every <img> matching `selector` has loaded from the image host, through an owner link. */
async function expectLoaded(selector, label) {
  const img = page.locator(selector).first();
  await img.waitFor();
  await expect.poll(() => img.evaluate((i) => i.complete && i.naturalWidth), { timeout: 30_000, message: `${label}: loaded` }).toBeGreaterThan(0);
  const src = await img.evaluate((i) => i.currentSrc);
  return src;
}

function expectOwnerLink(src, fileId, label) {
  const url = new URL(src);
  expect(url.origin, label).toBe(IMAGE_ORIGIN);
  expect(url.pathname.startsWith(`/i/${fileId}`), label).toBe(true);
  expect(url.searchParams.get("osig"), label).toMatch(/^[\w-]{43}$/);
}

describe("the owner's private, unlisted and 18+ files, with {image_url} on another host", () => {
  it("the upload result shows each new file's stored thumbnail", async () => {
    for (const f of FILES) {
      await page.goto(`${app.origin}/app/upload`);
      await page.setInputFiles("#files", path.join(FIXTURES, f.fixture));
      await page.getByText("Title, tags, visibility and expiry").click();
      await page.getByLabel("Visibility").selectOption(f.visibility);
      // Where the row's preview is sent: /app/files/<id>/preview, then the owner link on the image host.
      const thumb = page.waitForResponse((r) => r.url().startsWith(`${IMAGE_ORIGIN}/i/`) && r.url().includes("/thumb?"), { timeout: 60_000 });
      await page.getByRole("button", { name: "Upload", exact: true }).click();
      await page.locator("#queue .status", { hasText: /^done$/ }).waitFor({ timeout: 60_000 });
      const pageLink = await page.locator("#queue .item").first().getByLabel("Page", { exact: true }).inputValue();
      ids[f.kind] = pageLink.split("/f/")[1];
      const answer = await thumb;
      expect(answer.status(), f.kind).toBe(200);
      expectOwnerLink(answer.url(), ids[f.kind], `${f.kind}: the result's thumbnail`);
      const src = await expectLoaded("#queue img.preview", `${f.kind}: upload result`);
      expect(src, f.kind).toBe(`${app.origin}/app/files/${ids[f.kind]}/preview`);
    }
    const token = await accessToken(page, app.origin);
    const adult = await api(app.origin, token, "GET", `/files/${ids["18+"]}`);
    expect(adult.body.ageRestricted, "cubes-resized.jpg is flagged 18+").toBe(true);
    expect(await page.locator("#queue .analysis").first().textContent()).toContain("NSFW: flagged 18+");
  });

  it("My files shows every one's thumbnail, the 18+ one with a badge", async () => {
    await page.goto(`${app.origin}/app/files`);
    expect(await page.locator(".grid .card").count()).toBe(3);
    for (const f of FILES) {
      const card = `.grid .card:has(a[href="/f/${ids[f.kind]}"])`;
      expectOwnerLink(await expectLoaded(`${card} img`, `${f.kind}: My files`), ids[f.kind], f.kind);
      const text = await page.locator(card).textContent();
      if (f.kind === "18+") expect(text).toContain("flagged 18+");
      else expect(text).not.toContain("flagged 18+");
    }
    expect(await page.locator(".grid .badge", { hasText: "flagged 18+" }).count()).toBe(1);
  });

  it("each file's page shows its image", async () => {
    for (const f of FILES) {
      await page.goto(`${app.origin}/f/${ids[f.kind]}`);
      const src = await expectLoaded(".media img", `${f.kind}: file page`);
      // The private and the 18+ page are the owner's own (owner links); the unlisted one is everybody's.
      if (f.kind !== "unlisted") expectOwnerLink(src, ids[f.kind], `${f.kind}: file page`);
      if (f.kind === "unlisted") continue;
      // The owner's notice (private, flagged 18+) passes the checks every page passes (pages.test.mjs).
      expect(await axeViolations(page), `${f.kind}: axe`).toEqual([]);
      await page.setViewportSize(PHONE);
      expect((await horizontalOverflow(page)).over, `${f.kind}: 390 px`).toBe(0);
      await page.setViewportSize(DESKTOP);
    }
  });

  it("the album editor shows them all", async () => {
    const token = await accessToken(page, app.origin);
    const album = await api(app.origin, token, "POST", "/albums", { title: "Mine", visibility: "private" });
    expect((await api(app.origin, token, "POST", `/albums/${album.body.id}/files`, { fileIds: Object.values(ids) })).status).toBe(200);
    await page.goto(`${app.origin}/app/albums/${album.body.id}`);
    for (const f of FILES) {
      const card = `.grid .card:has(input[name="fileId"][value="${ids[f.kind]}"])`;
      expectOwnerLink(await expectLoaded(`${card} img`, `${f.kind}: album editor`), ids[f.kind], f.kind);
    }
    expect(problems).toEqual([]);
  });

  it("a fresh context without a session gets 404 for the private file's plain links and page", async () => {
    const { context: anon, page: view } = await openPage(app.browser, { viewport: DESKTOP });
    const id = ids.private;
    for (const url of [`${IMAGE_ORIGIN}/i/${id}`, `${IMAGE_ORIGIN}/i/${id}/thumb`, `${IMAGE_ORIGIN}/i/${id}/thumb?w=160`, `${app.origin}/i/${id}`, `${app.origin}/f/${id}`]) {
      expect((await view.goto(url)).status(), url).toBe(404);
    }
    // The 18+ file's page: a notice, no image.
    await view.goto(`${app.origin}/f/${ids["18+"]}`);
    expect(await view.locator(".media img").count()).toBe(0);
    await view.getByText("so it is not shown here").waitFor();
    await anon.close();
  });

  it("?error=<any text> shows none of it; a known code shows its message", async () => {
    const text = "Your account is locked. Call +1 555 0100 now";
    for (const p of ["/app/files", "/app/albums", "/app/account"]) {
      await page.goto(`${app.origin}${p}?error=${encodeURIComponent(text)}`);
      expect(await page.locator("body").textContent(), p).not.toContain("Your account is locked");
      expect(await page.locator(".notice.error").count(), p).toBe(0);
    }
    await page.goto(`${app.origin}/app/files?error=no_selection`);
    await page.locator(".notice.error", { hasText: "Select at least one file first." }).waitFor();
    await owner.close();
  });
});

// (Read once so a missing fixture fails here, not in chromium's file picker.)
for (const f of FILES) readFileSync(path.join(FIXTURES, f.fixture));
