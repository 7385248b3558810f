// Finding an image in chromium (issue 41): type three letters in the pages' search box and the file is listed
// under it with the match marked, and Enter opens it; pick a colour on My files and the nearest file comes first;
// open "More like this" from the image's page. The pages pass axe-core and fit 390 px.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESKTOP, PHONE, accessToken, api, axeViolations, gradientBmp, horizontalOverflow, openPage, signUp, startApp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(23);
let app;

async function checkPage(page, label) {
  expect(await axeViolations(page), `${label}: axe`).toEqual([]);
  const viewport = page.viewportSize();
  await page.setViewportSize(PHONE);
  const { over, culprits } = await horizontalOverflow(page);
  expect(over, `${label} at 390 px: ${culprits.join(", ")}`).toBe(0);
  await page.setViewportSize(viewport);
}

beforeAll(async () => {
  app = await startApp(PORT);
});

afterAll(async () => {
  await app?.stop();
});

describe("search in the web app", () => {
  it("type-ahead finds a file from three letters; a colour orders My files; More like this opens", async () => {
    const { context, page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    await signUp(page, app.origin, "finder");
    const token = await accessToken(page, app.origin);
    const lighthouse = await uploadForm(app.origin, token, gradientBmp(64, 48, 1), "coast.bmp", "image/bmp", { title: "Lighthouse at dusk" });
    const meadow = await uploadForm(app.origin, token, gradientBmp(64, 48, 2), "field.bmp", "image/bmp", { title: "Meadow" });
    // The dominant colours come with the analysis: wait for both.
    for (const f of [lighthouse, meadow]) {
      await expect.poll(async () => (await api(app.origin, token, "GET", `/files/${f.fileId}`)).body.dominantColor, { timeout: 30_000 }).not.toBeNull();
    }

    await page.goto(`${app.origin}/app/files`);
    const box = page.getByRole("searchbox", { name: "Search your images" });
    await box.pressSequentially("lig", { delay: 60 });
    const option = page.locator("#site-q-list").getByRole("link").filter({ hasText: "Lighthouse at dusk" });
    await option.waitFor({ timeout: 15_000 });
    expect(await option.locator("mark").textContent()).toBe("Lighthouse"); // the word the prefix matched
    await checkPage(page, "the type-ahead list");
    await box.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${app.origin}/f/${lighthouse.fileId}`);

    // Without the script's list: the search page.
    await page.goto(`${app.origin}/app/search?q=${encodeURIComponent("lighthouse du")}`);
    await page.locator("#search-count").waitFor();
    expect(await page.locator("ul.grid mark").allTextContents()).toEqual(["Lighthouse", "dusk"]);
    await checkPage(page, "/app/search");

    // A colour: the file whose dominant colour is nearest comes first.
    const colours = Object.fromEntries(
      await Promise.all([lighthouse, meadow].map(async (f) => [f.fileId, (await api(app.origin, token, "GET", `/files/${f.fileId}`)).body.dominantColor])),
    );
    await page.goto(`${app.origin}/app/files`);
    await page.getByLabel("Nearest colour").check();
    await page.getByLabel("Colour", { exact: true }).fill(colours[meadow.fileId] ?? "#000000");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.waitForURL(/bycolor=1/);
    const first = await page.locator("ul.grid li.card input[name=ids]").first().getAttribute("value");
    expect(first).toBe(meadow.fileId);
    await checkPage(page, "/app/files by colour");

    // More like this, from the image's edit page.
    await page.goto(`${app.origin}/app/files/${lighthouse.fileId}/edit`);
    await page.getByRole("link", { name: "More like this" }).click();
    await page.waitForURL(`${app.origin}/app/files/${lighthouse.fileId}/similar`);
    await page.getByRole("heading", { name: "More like “Lighthouse at dusk”" }).waitFor();
    await page.locator("#similar-count").waitFor();
    await checkPage(page, "/app/files/:id/similar");

    expect(problems).toEqual([]);
    await context.close();
  });
});
