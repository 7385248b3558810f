// A signed private link in chromium (extensions.md § 3): the owner makes one on the file's page ("Share a private
// link", 7 days), a fresh browser context with no session opens it and the image loads, while the plain link stays
// 404; after "Revoke all private links" the same link is refused. The pages pass axe-core and fit 390 px.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESKTOP, PHONE, accessToken, axeViolations, horizontalOverflow, openPage, root, signUp, startApp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(11);
let app;

/** The checks every page passes (pages.test.mjs), for the pages of this feature. */
async function checkPage(page, label) {
  expect(await axeViolations(page), `${label}: axe`).toEqual([]);
  const viewport = page.viewportSize();
  await page.setViewportSize(PHONE);
  const { over, culprits } = await horizontalOverflow(page);
  expect(over, `${label} at 390 px: ${culprits.join(", ")}`).toBe(0);
  await page.setViewportSize(viewport);
}

/** Whether the page's image (chromium shows an image address as a document with one <img>) has decoded. */
const imageLoaded = (page) => page.evaluate(() => Boolean(document.images[0]?.complete && document.images[0].naturalWidth > 0));

beforeAll(async () => {
  app = await startApp(PORT);
});

afterAll(async () => {
  await app?.stop();
});

describe("a signed private link", () => {
  it("opens the private image in a fresh context until the owner revokes it", async () => {
    const { context: owner, page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    await signUp(page, app.origin, "signed");
    const token = await accessToken(page, app.origin);
    const bytes = readFileSync(path.join(root, "test/fixtures/images/cubes.jpg"));
    const { fileId } = await uploadForm(app.origin, token, bytes, "cubes.jpg", "image/jpeg", { visibility: "private" });

    await page.goto(`${app.origin}/app/files/${fileId}/edit`);
    await page.getByRole("heading", { name: "Share a private link" }).waitFor();
    await checkPage(page, "/app/files/:id/edit");
    await page.getByLabel("Works for").selectOption({ label: "7 days" });
    await page.getByRole("button", { name: "Create link" }).click();
    await page.getByRole("heading", { name: "Private link" }).waitFor();
    await checkPage(page, "the private link page");
    const link = await page.getByRole("textbox", { name: "Private link" }).inputValue();
    const exp = Number(new URL(link).searchParams.get("exp"));
    expect(exp - Date.now() / 1000).toBeGreaterThan(7 * 86_400 - 120);
    expect(new URL(link).pathname).toBe(`/i/${fileId}`);

    const { context: stranger, page: view } = await openPage(app.browser, { viewport: DESKTOP });
    const opened = await view.goto(link);
    expect(opened.status()).toBe(200);
    expect(opened.headers()["cache-control"]).toBe("private, no-cache");
    await expect.poll(() => imageLoaded(view), { timeout: 15_000 }).toBe(true);
    expect((await view.goto(`${app.origin}/i/${fileId}`)).status()).toBe(404); // the plain link: still private

    await page.goto(`${app.origin}/app/files/${fileId}/edit`);
    await page.getByRole("button", { name: "Revoke all private links" }).click();
    await page.getByText("Private links revoked").waitFor();
    await checkPage(page, "/app/files/:id/edit after a revoke");
    const refused = await view.goto(link);
    expect(refused.status()).toBe(403);
    expect(await imageLoaded(view)).toBe(false);

    expect(problems).toEqual([]);
    await stranger.close();
    await owner.close();
  });
});
