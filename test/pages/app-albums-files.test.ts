// Web-app files and albums pages: edit/delete a file, create an album with a password, add/remove files, cover.
import { describe, expect, it } from "vitest";
import { PASSWORD, call, uniqueEmail, uniqueUsername } from "../support/api";
import { seedFile } from "../support/files";
import { SITE, csrfOf, page as sitePage, type PageOptions } from "../support/pages";

// Every request here comes from the site itself.
const page = (path: string, opts: PageOptions = {}) => sitePage(path, { origin: SITE, ...opts });


async function user() {
  const res = await page("/app/signup", { form: { email: uniqueEmail("alb"), username: uniqueUsername("a"), password: PASSWORD } });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!.split(";")[0];
  const token = JSON.parse((await page("/app/token", { cookie, headers: { "x-requested-with": "imghost" } })).text).access_token;
  const me = await call("/account", { token });
  const id = (me.body.user ?? me.body).id as string;
  const csrf = csrfOf((await page("/app/account", { cookie })).text);
  return { cookie, token, id, csrf };
}

describe("files pages", () => {
  it("lists, edits and deletes (after a confirmation page) a file", async () => {
    const u = await user();
    const f = await seedFile(u.id, { title: "first picture" });
    const grid = await page("/app/files", { cookie: u.cookie });
    expect(grid.text).toContain("first picture");
    expect(grid.text).toContain(`/f/${f.id}`);
    const edit = await page(`/app/files/${f.id}/edit`, { cookie: u.cookie });
    expect(edit.status).toBe(200);
    const saved = await page(`/app/files/${f.id}/edit`, { cookie: u.cookie, form: { _csrf: u.csrf, title: "renamed", description: "d", visibility: "unlisted", tags: "a, b" } });
    expect(saved.status).toBe(303);
    const got = await call(`/files/${f.id}`, { token: u.token });
    expect(got.body.title).toBe("renamed");
    expect(got.body.tags).toEqual(["a", "b"]);
    const confirm = await page(`/app/files/${f.id}/delete`, { cookie: u.cookie });
    expect(confirm.text).toContain("Delete permanently");
    const del = await page(`/app/files/${f.id}/delete`, { cookie: u.cookie, form: { _csrf: u.csrf } });
    expect(del.headers.get("location")).toContain("deleted=1");
    expect([404, 410]).toContain((await call(`/files/${f.id}`, { token: u.token })).status);
  });

  it("lists a file's duplicates on its edit page", async () => {
    const u = await user();
    const content = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4, 5]);
    const a = await seedFile(u.id, { title: "original", content });
    const b = await seedFile(u.id, { title: "copy", content });
    const api = await call(`/files/${b.id}`, { token: u.token });
    const edit = await page(`/app/files/${b.id}/edit`, { cookie: u.cookie });
    expect(api.body.duplicates).toHaveLength(1);
    expect(edit.text).toContain("Duplicates among your files");
    expect(edit.text).toContain(`/f/${a.id}`);
    expect(edit.text).toContain("identical");
  });

  it("lists the owner's own age-restricted files, with a badge and unblurred, whatever safe mode says", async () => {
    const u = await user();
    const f = await seedFile(u.id, { title: "adult one", ageRestricted: true });
    const plain = await seedFile(u.id, { title: "plain one" });
    const grid = await page("/app/files", { cookie: u.cookie }); // safe mode is on for a new account
    expect(grid.text).toContain("2 files");
    const cards = grid.text.split('<li class="').slice(1);
    const adult = cards.find((c) => c.includes(f.id))!;
    const other = cards.find((c) => c.includes(plain.id))!;
    expect(adult.startsWith('card"')).toBe(true);
    expect(adult).toContain("flagged 18+");
    expect(other).not.toContain("flagged 18+");
  });

  it("does not let another user edit or delete my file", async () => {
    const owner = await user();
    const other = await user();
    const f = await seedFile(owner.id, { title: "mine" });
    const edit = await page(`/app/files/${f.id}/edit`, { cookie: other.cookie, form: { _csrf: other.csrf, title: "hijacked", visibility: "public" } });
    expect(edit.status).toBe(400);
    expect(edit.text).toContain('role="alert"');
    const del = await page(`/app/files/${f.id}/delete`, { cookie: other.cookie, form: { _csrf: other.csrf } });
    expect([403, 404]).toContain(del.status);
    const still = await call(`/files/${f.id}`, { token: owner.token });
    expect(still.status).toBe(200);
    expect(still.body.title).toBe("mine");
  });
});

describe("album pages", () => {
  it("creates a password album, adds files, sets the cover, removes a file and deletes it", async () => {
    const u = await user();
    const a = await seedFile(u.id, { title: "alpha" });
    const b = await seedFile(u.id, { title: "beta" });
    const created = await page("/app/albums", { cookie: u.cookie, form: { _csrf: u.csrf, title: "Trip", visibility: "public", password: "open sesame" } });
    expect(created.status).toBe(303);
    const albumPath = created.headers.get("location")!.split("?")[0];
    const albumId = albumPath.split("/").pop()!;
    const added = await page(`${albumPath}/add`, { cookie: u.cookie, form: { _csrf: u.csrf, fileIds: [a.id, b.id] } });
    expect(added.headers.get("location")).toContain("saved=1");
    const cover = await page(`${albumPath}/cover`, { cookie: u.cookie, form: { _csrf: u.csrf, fileId: b.id } });
    expect(cover.headers.get("location")).toContain("saved=1");
    const removed = await page(`${albumPath}/files/${a.id}/remove`, { cookie: u.cookie, form: { _csrf: u.csrf } });
    expect(removed.headers.get("location")).toContain("saved=1");
    const detail = await call(`/albums/${albumId}`, { token: u.token });
    expect(detail.body.passwordProtected).toBe(true);
    expect(detail.body.coverImageId).toBe(b.id);
    expect(detail.body.files.map((f: { id: string }) => f.id)).toEqual([b.id]);
    // Strangers need the password on the public page.
    const pub = await page(`/a/${albumId}`);
    expect(pub.text).toContain("password-protected");
    const view = await page(`${albumPath}`, { cookie: u.cookie });
    expect(view.text).toContain("beta");
    const gone = await page(`${albumPath}/delete`, { cookie: u.cookie, form: { _csrf: u.csrf, confirm: "1" } });
    expect(gone.headers.get("location")).toContain("deleted=1");
  });

  it("refuses album changes without the CSRF token", async () => {
    const u = await user();
    const res = await page("/app/albums", { cookie: u.cookie, form: { title: "x" } });
    expect(res.status).toBe(403);
  });
});
