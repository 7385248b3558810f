// Image delivery in chromium (issue 16): a public album of large photos on a phone downloads a small fraction of
// the originals' bytes (measured with the page's own resource timing), and the placeholders are painted while
// the images have not arrived.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { PHONE, accessToken, api, openPage, root, signUp, startApp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(3);
const LARGE = path.join(root, "test/fixtures/images/large");
const PHOTOS = [
  ["wood-12mp.jpg", "image/jpeg"],
  ["symbolic-15mp.png", "image/png"],
  ["wood-16mp.webp", "image/webp"],
  ["adwaita-7mp-progressive.jpg", "image/jpeg"],
];
let app;
let album;
let originalBytes = 0;

/** Waits until the analysis of every file ended (the thumbnail and placeholder exist), polling the API. */
async function analysed(token, ids) {
  for (let i = 0; i < 600; i++) {
    const states = await Promise.all(ids.map((id) => api(app.origin, token, "GET", `/files/${id}`).then((r) => r.body?.analysis)));
    if (states.every((s) => s === "done" || s === "failed")) return states;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error("analysis did not finish");
}

beforeAll(async () => {
  app = await startApp(PORT);
  const { context: ctx, page } = await openPage(app.browser);
  await signUp(page, app.origin, "delivery");
  const token = await accessToken(page, app.origin);
  const ids = [];
  for (const [name, mime] of PHOTOS) {
    const bytes = readFileSync(path.join(LARGE, name));
    originalBytes += bytes.byteLength;
    ids.push((await uploadForm(app.origin, token, bytes, name, mime, { visibility: "public" })).fileId);
  }
  expect(await analysed(token, ids)).toEqual(ids.map(() => "done"));
  album = (await api(app.origin, token, "POST", "/albums", { title: "Large photos", visibility: "public" })).body;
  await api(app.origin, token, "POST", `/albums/${album.id}/files`, { fileIds: ids });
  await ctx.close();
});

afterAll(async () => {
  await app?.stop();
});

describe("the public album on a phone", () => {
  it("downloads less than a fifth of the originals' bytes", async () => {
    const phone = await app.browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });
    const p = await phone.newPage();
    const problems = watch(p);
    await p.goto(`${app.origin}/a/${album.id}`, { waitUntil: "networkidle" });
    const images = await p.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .filter((e) => e.initiatorType === "img" && e.name.includes("/i/"))
        .map((e) => ({ url: e.name, bytes: e.encodedBodySize })),
    );
    await phone.close();
    expect(images.length).toBe(PHOTOS.length);
    const served = images.reduce((n, e) => n + e.bytes, 0);
    console.log(`album on a phone: ${served} bytes of images for ${originalBytes} bytes of originals (${(served / originalBytes).toFixed(3)})`);
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(originalBytes / 5);
    expect(problems).toEqual([]);
  });

  it("paints each image's placeholder (colour and ThumbHash) while the image has not arrived", async () => {
    const phone = await app.browser.newContext({ viewport: PHONE, isMobile: true });
    const p = await phone.newPage();
    // Image bytes never arrive: what the visitor sees is the placeholder.
    await p.route(/\/i\//, (route) => route.abort());
    await p.goto(`${app.origin}/a/${album.id}`);
    await p.waitForFunction((n) => document.querySelectorAll(".gallery img.painted").length === n, PHOTOS.length);
    const painted = await p.$$eval(".gallery img", (imgs) =>
      imgs.map((im) => ({ color: getComputedStyle(im).backgroundColor, image: getComputedStyle(im).backgroundImage.slice(0, 40) })),
    );
    await phone.close();
    for (const one of painted) {
      expect(one.color).toMatch(/^rgb\(/);
      expect(one.image).toMatch(/^url\("data:image\/png;base64,/);
    }
  });
});
