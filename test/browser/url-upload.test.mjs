// Upload from a link (extensions.md § 2) in chromium against `wrangler dev`: the image is served by a small http
// server of the test on 127.0.0.1 (let through the address rules by OUTBOUND_ALLOW_HOSTS, as the webhooks suite's
// receiver is), the link is pasted on the upload page, and the row shows the share links of the stored file.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESKTOP, PHONE, accessToken, api, axeViolations, gradientBmp, horizontalOverflow, openPage, signUp, startApp, suitePort, watch } from "./support.mjs";

const PORT = suitePort(16);
const IMAGE_PORT = PORT + 2000;
const IMAGE = gradientBmp(48, 32, 3);
let app;
let images;
/** The paths the image server was asked for. */
const asked = [];

beforeAll(async () => {
  images = http.createServer((req, res) => {
    asked.push(req.url);
    if (req.url === "/photos/gradient.bmp") {
      // The remote's type says nothing useful: the bytes decide.
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": IMAGE.length }).end(IMAGE);
    } else if (req.url === "/moved") {
      res.writeHead(302, { location: "/photos/gradient.bmp" }).end();
    } else if (req.url === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>not an image</title>");
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve, reject) => images.once("error", reject).listen(IMAGE_PORT, "127.0.0.1", resolve));
  app = await startApp(PORT, { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${IMAGE_PORT}`, FINALIZE_WAIT_MS: "0" });
});

afterAll(async () => {
  await app?.stop();
  await new Promise((resolve) => (images ? images.close(resolve) : resolve()));
});

const link = (p) => `http://127.0.0.1:${IMAGE_PORT}${p}`;

describe("upload page: paste a link", () => {
  it("a link pasted on the page is fetched by the server and shows its share links; a page that is not an image is explained", async () => {
    const { page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    await signUp(page, app.origin, "linker");
    await page.goto(`${app.origin}/app/upload`);
    expect(await axeViolations(page)).toEqual([]);

    // Pasted outside any text field, the link lands in the link field.
    await page.evaluate((url) => {
      const dt = new DataTransfer();
      dt.setData("text/plain", url);
      document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true }));
    }, link("/moved"));
    expect(await page.getByLabel("Or paste a link to an image").inputValue()).toBe(link("/moved"));
    await page.locator("summary", { hasText: "Title, tags" }).click();
    await page.getByLabel("Tags (comma separated)").fill("linked, remote");
    await page.getByRole("button", { name: "Upload", exact: true }).click();

    const row = page.locator("#queue .item", { hasText: link("/moved") });
    await row.locator(".status", { hasText: /^done$/ }).waitFor({ timeout: 60_000 });
    expect(asked).toEqual(["/moved", "/photos/gradient.bmp"]); // the redirect was followed by the server
    const direct = await row.getByLabel("Direct", { exact: true }).inputValue();
    expect(direct).toMatch(new RegExp(`^${app.origin}/i/file_[\\w-]+$`));
    const fileId = direct.split("/i/")[1];
    // The preview shows the stored copy, not the remote.
    await expect.poll(() => row.locator("img.preview").evaluate((img) => img.complete && img.naturalWidth)).toBe(48);
    expect(await page.getByLabel("Or paste a link to an image").inputValue()).toBe("");

    const token = await accessToken(page, app.origin);
    const file = (await api(app.origin, token, "GET", `/files/${fileId}`)).body;
    expect(file).toMatchObject({ mime: "image/bmp", bytes: IMAGE.length, tags: ["linked", "remote"], title: "gradient" });
    const bytes = Buffer.from(await (await fetch(direct)).arrayBuffer());
    expect(bytes.equals(IMAGE)).toBe(true);

    // Typed into the field: an HTML page is refused with the reason and the plan's words.
    await page.getByLabel("Or paste a link to an image").fill(link("/page.html"));
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    const refused = page.locator("#queue .item", { hasText: link("/page.html") });
    await refused.locator(".status", { hasText: /^failed: / }).waitFor({ timeout: 60_000 });
    expect(await refused.locator(".status").innerText()).toMatch(/not an image of a supported type/);
    await expect.poll(() => page.locator("#limits-msg").innerText()).toMatch(/This file type is not accepted/);
    // Its bar no longer moves: determinate again (an indeterminate <progress> animates) and hidden.
    const bar = refused.locator("progress");
    expect(await bar.evaluate((b) => b.hasAttribute("value"))).toBe(true);
    expect(await bar.isVisible()).toBe(false);

    // On a phone the rows with their long links fit the width.
    await page.setViewportSize(PHONE);
    expect(await horizontalOverflow(page)).toEqual({ over: 0, culprits: [] });

    // The refused upload's 415 (as a response and as chromium's console line about it) is the one failed request.
    expect(problems.filter((p) => !/\b415\b.*\/api\/v1\/upload\/url\)?$/.test(p))).toEqual([]);
  });
});
