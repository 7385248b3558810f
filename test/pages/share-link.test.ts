// The web app's "Share a private link" (extensions.md § 3) on the owner's file page (/app/files/:id/edit): a
// signed link with a chosen lifetime, shown to copy; and revoking every link made so far.
import { describe, expect, it } from "vitest";
import { PASSWORD, call, uniqueEmail, uniqueUsername } from "../support/api";
import { fetchRaw, IMAGE, seedFile } from "../support/files";
import { SITE, csrfOf, page as sitePage, type PageOptions } from "../support/pages";

const page = (path: string, opts: PageOptions = {}) => sitePage(path, { origin: SITE, ...opts });

async function user() {
  const res = await page("/app/signup", { form: { email: uniqueEmail("share"), username: uniqueUsername("s"), password: PASSWORD } });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!.split(";")[0];
  const token = JSON.parse((await page("/app/token", { cookie, headers: { "x-requested-with": "imghost" } })).text).access_token;
  const me = await call("/account", { token });
  const id = (me.body.user ?? me.body).id as string;
  const csrf = csrfOf((await page("/app/account", { cookie })).text);
  return { cookie, token, id, csrf };
}

/** The signed link the page shows in its copy field. */
const shownLink = (html: string) => /<input[^>]*id="signed-link"[^>]*value="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");

describe("Share a private link", () => {
  it("the owner's file page offers it with a choice of lifetimes", async () => {
    const u = await user();
    const f = await seedFile(u.id, { visibility: "private" });
    const edit = await page(`/app/files/${f.id}/edit`, { cookie: u.cookie });
    expect(edit.status).toBe(200);
    expect(edit.text).toContain("Share a private link");
    expect(edit.text).toContain(`action="/app/files/${f.id}/share"`);
    for (const seconds of [3600, 86400, 604800]) expect(edit.text).toContain(`value="${seconds}"`);
  });

  it("makes a link with the chosen lifetime and shows it to copy; anyone can open it", async () => {
    const u = await user();
    const f = await seedFile(u.id, { visibility: "private" });
    const before = Math.floor(Date.now() / 1000);
    const res = await page(`/app/files/${f.id}/share`, { cookie: u.cookie, form: { _csrf: u.csrf, expiresIn: "86400" } });
    expect(res.status).toBe(200);
    const link = shownLink(res.text);
    expect(link).toMatch(new RegExp(`^${IMAGE}/${f.id}\\?exp=\\d+&sig=[A-Za-z0-9_-]{43}$`));
    expect(Number(new URL(link!).searchParams.get("exp"))).toBeGreaterThanOrEqual(before + 86400 - 1);
    expect(res.text).toContain('data-copy="signed-link"');
    expect(res.text).toMatch(/<time datetime="[^"]+"/); // when it stops working
    expect((await fetchRaw(link!)).status).toBe(200);
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(404);
  });

  it("revoking voids the links made so far", async () => {
    const u = await user();
    const f = await seedFile(u.id, { visibility: "private" });
    const link = shownLink((await page(`/app/files/${f.id}/share`, { cookie: u.cookie, form: { _csrf: u.csrf, expiresIn: "3600" } })).text)!;
    const revoked = await page(`/app/files/${f.id}/share/revoke`, { cookie: u.cookie, form: { _csrf: u.csrf } });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe(`/app/files/${f.id}/edit?revoked=1`);
    expect((await fetchRaw(link)).status).toBe(403);
    expect((await page(`/app/files/${f.id}/edit?revoked=1`, { cookie: u.cookie })).text).toContain("Private links revoked");
  });

  it("refuses a lifetime outside 60 s to 7 days, a post without the form token, and another's file", async () => {
    const u = await user();
    const f = await seedFile(u.id, { visibility: "private" });
    const bad = await page(`/app/files/${f.id}/share`, { cookie: u.cookie, form: { _csrf: u.csrf, expiresIn: "10" } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
    expect(shownLink(bad.text)).toBeUndefined();
    expect((await page(`/app/files/${f.id}/share`, { cookie: u.cookie, form: { expiresIn: "3600" } })).status).toBe(403);
    const other = await user();
    const theirs = await page(`/app/files/${f.id}/share`, { cookie: other.cookie, form: { _csrf: other.csrf, expiresIn: "3600" } });
    expect(theirs.status).toBe(404);
    expect(shownLink(theirs.text)).toBeUndefined();
  });
});
