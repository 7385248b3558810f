// The upload page's "paste a link" without JavaScript: the form's `link` posts to /app/upload, which runs
// POST /upload/url in-process with the form's title, tags and visibility. The remote is the spied global fetch.
import { afterEach, describe, expect, it } from "vitest";
import { PASSWORD, call, uniqueEmail, uniqueUsername } from "../support/api";
import { SITE, csrfOf, page, sessionCookie } from "../support/pages";
import { makePng } from "../uploads/helpers";
import { fakeRemote, image, type Remote } from "../uploads/remote";

let remote: Remote | null = null;
afterEach(() => {
  remote?.restore();
  remote = null;
});

async function signedUp() {
  const res = await page("/app/signup", { form: { email: uniqueEmail("link"), username: uniqueUsername("l"), password: PASSWORD }, origin: SITE });
  expect(res.status).toBe(303);
  return sessionCookie(res);
}

describe("upload page: a link", () => {
  it("the page offers a link field inside the upload form", async () => {
    const cookie = await signedUp();
    const up = await page("/app/upload", { cookie });
    expect(up.text).toMatch(/<form id="upload-form"[^>]*action="\/app\/upload"[\s\S]*<input id="link" name="link" type="url"[\s\S]*<\/form>/);
    expect(up.text).toContain('for="link"');
  });

  it("without JavaScript the form's link is fetched, uploaded with the form's fields, and its links shown", async () => {
    const cookie = await signedUp();
    const csrf = csrfOf((await page("/app/upload", { cookie })).text);
    remote = fakeRemote(() => image(makePng(8, 8, 77), "image/png"));
    const form = { _csrf: csrf, link: "https://img.example.com/holiday.png", title: "From a link", tags: "beach, sun", visibility: "unlisted" };
    const ok = await page("/app/upload", { cookie, form, origin: SITE });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toContain("https://img.example.com/holiday.png");
    const fileId = /href="http:\/\/localhost:8787\/f\/(file_[^"]+)"/.exec(ok.text)?.[1];
    expect(fileId).toBeTruthy();
    const token = JSON.parse((await page("/app/token", { cookie, headers: { "x-requested-with": "imghost" } })).text).access_token;
    expect((await call(`/files/${fileId}`, { token })).body).toMatchObject({ title: "From a link", visibility: "unlisted", tags: ["beach", "sun"] });

    // A refused link is explained on the same page, with a 400.
    const bad = await page("/app/upload", { cookie, form: { _csrf: csrf, link: "http://127.0.0.1/x.png" }, origin: SITE });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
    expect(bad.text).toMatch(/internal/);
    expect(remote.fetched).toEqual(["https://img.example.com/holiday.png"]);
  });
});
