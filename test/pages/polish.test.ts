// Issue 37, item 5, on the server's side: visibility badges, My files' grid/list switch (a link, remembered), the
// header's two ends on app and public pages, forms shown again as typed with the message beside the field, the
// album editor's note on what visitors see, the default cover, the edit page's preview, the file page's lightbox.
import { describe, expect, it } from "vitest";
import { PASSWORD, call, uniqueEmail, uniqueUsername } from "../support/api";
import { seedFile } from "../support/files";
import { SITE, csrfOf, page as sitePage, type PageOptions } from "../support/pages";

const page = (path: string, opts: PageOptions = {}) => sitePage(path, { origin: SITE, ...opts });

async function user() {
  const email = uniqueEmail("pol");
  const res = await page("/app/signup", { form: { email, username: uniqueUsername("p"), password: PASSWORD } });
  const cookies = res.headers.getSetCookie();
  const cookie = cookies.find((c) => c.startsWith("__Host-session="))!.split(";")[0];
  const token = JSON.parse((await page("/app/token", { cookie, headers: { "x-requested-with": "imghost" } })).text).access_token;
  const me = await call("/account", { token });
  const id = (me.body.user ?? me.body).id as string;
  const csrf = csrfOf((await page("/app/account", { cookie })).text);
  return { email, cookie, cookies, token, id, csrf };
}

describe("My files", () => {
  it("badges each card's visibility, and switches grid and list by a link that is remembered", async () => {
    const u = await user();
    await seedFile(u.id, { title: "hidden one", visibility: "private" });
    await seedFile(u.id, { title: "link only", visibility: "unlisted" });
    const grid = await page("/app/files", { cookie: u.cookie });
    expect(grid.text).toContain('<span class="badge vis-private">private</span>');
    expect(grid.text).toContain('<span class="badge vis-unlisted">unlisted</span>');
    expect(grid.text).toContain('<ul class="grid">');
    expect(grid.text).toContain('href="/app/files?view=list"');
    const list = await page("/app/files?view=list", { cookie: u.cookie });
    expect(list.text).toContain('<ul class="grid list">');
    const kept = list.headers.getSetCookie().find((c) => c.startsWith("files-view=list"))!;
    expect(kept).toMatch(/Path=\/app\/files/);
    const again = await page("/app/files", { cookie: `${u.cookie}; files-view=list` });
    expect(again.text).toContain('<ul class="grid list">');
    expect((await page("/app/files?view=grid", { cookie: `${u.cookie}; files-view=list` })).text).toContain('<ul class="grid">');
  });

  it("offers dropping and pasting anywhere, with the visibility to upload as", async () => {
    const u = await user();
    const text = (await page("/app/files", { cookie: u.cookie })).text;
    expect(text).toContain('id="files-drop"');
    expect(text).toContain('<select id="drop-visibility"');
    expect(text).toContain('class="drop-overlay"');
  });
});

describe("the header", () => {
  it("is the same on app and public pages: Account and Log out signed in, Log in and Sign up otherwise", async () => {
    const u = await user();
    // Signing in sets the scripts' hint beside the session cookie.
    expect(u.cookies.some((c) => c.startsWith("__Host-signed-in=1") && !/HttpOnly/i.test(c))).toBe(true);
    const app = (await page("/app/files", { cookie: u.cookie })).text;
    expect(app).toContain('href="/app/account"');
    expect(app).toMatch(/<button type="submit" class="small">Log out<\/button>/);
    expect(app).not.toContain('href="/app/login"');
    const out = (await page("/app/login")).text;
    expect(out).toContain('href="/app/signup"');
    expect(out).not.toContain('href="/app/account"');
    // A public page reads no session: both ends, the signed-in one hidden until the script sees the hint.
    const f = await seedFile(u.id, { title: "public one" });
    const pub = (await page(`/f/${f.id}`)).text;
    expect(pub).toContain('data-nav="public"');
    expect(pub).toMatch(/<span class="who" data-nav-when="in" hidden="">\s*<a href="\/app\/account">Account<\/a><a href="\/app\/logout">Log out<\/a>/);
    expect(pub).toMatch(/<span class="who" data-nav-when="out"><a href="\/app\/login">Log in<\/a><a href="\/app\/signup">Sign up<\/a>/);
    // That Log out is a page with the form, and logging out clears the hint.
    const confirm = await page("/app/logout", { cookie: u.cookie });
    expect(confirm.text).toContain('action="/app/logout"');
    const done = await page("/app/logout", { cookie: u.cookie, form: { _csrf: csrfOf(confirm.text) } });
    expect(done.headers.getSetCookie().some((c) => c.startsWith("__Host-signed-in=;"))).toBe(true);
  });
});

describe("forms keep what was typed", () => {
  it("sign-up: the e-mail taken is said beside the e-mail, the username and the age box kept", async () => {
    const u = await user();
    const res = await page("/app/signup", { form: { email: u.email, username: "keptname", password: PASSWORD, ageConfirmed: "1" } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/<input id="email"[^>]*aria-invalid="true" aria-describedby="email-error"/);
    expect(res.text).toMatch(/<p class="field-error" id="email-error">An account with this e-mail already exists<\/p>/);
    expect(res.text).toMatch(/<input id="username"[^>]*value="keptname"/);
    expect(res.text).toMatch(/name="ageConfirmed" value="1" checked/);
  });

  it("log-in: the wrong password is said beside the password, the e-mail kept", async () => {
    const res = await page("/app/login", { form: { email: "nobody@example.com", password: "wrong-password" } });
    expect(res.status).toBe(401);
    expect(res.text).toMatch(/<input id="email"[^>]*value="nobody@example.com"/);
    expect(res.text).toMatch(/<p class="field-error" id="password-error">Invalid e-mail or password<\/p>/);
  });

  it("album create and key create", async () => {
    const u = await user();
    const album = await page("/app/albums", { cookie: u.cookie, form: { _csrf: u.csrf, title: "   ", description: "kept words", visibility: "unlisted" } });
    expect(album.status).toBe(400);
    expect(album.text).toMatch(/<p class="field-error" id="atitle-error">[^<]+<\/p>/);
    expect(album.text).toContain(">kept words</textarea>");
    expect(album.text).toMatch(/<option value="unlisted" selected="">Unlisted<\/option>/);
    const key = await page("/app/keys", { cookie: u.cookie, form: { _csrf: u.csrf, name: "my laptop", expires: "30" } });
    expect(key.status).toBe(400);
    expect(key.text).toMatch(/<input id="kname"[^>]*value="my laptop"/);
    expect(key.text).toMatch(/<p class="field-error" id="kperm-error">[^<]+<\/p>/);
    expect(key.text).toMatch(/<option value="30" selected="">/);
  });
});

describe("albums", () => {
  it("the list draws the first file as the cover while none is chosen; the editor marks it and says what visitors miss", async () => {
    const u = await user();
    const first = await seedFile(u.id, { title: "first" });
    const priv = await seedFile(u.id, { title: "mine only", visibility: "private" });
    const created = await call("/albums", { token: u.token, body: { title: "Trip", fileIds: [first.id, priv.id] } });
    expect(created.body.coverImageId).toBeNull();
    // Both were added in one request: the album's order (added_at, then file id) decides which is first.
    const cover = [first.id, priv.id].sort()[0];
    const list = (await page("/app/albums", { cookie: u.cookie })).text;
    expect(list).toMatch(new RegExp(`<img src="[^"]*/i/${cover}/thumb\\?`));
    const editor = (await page(`/app/albums/${created.body.id}`, { cookie: u.cookie })).text;
    expect(editor).toContain("the first image, until you click one");
    expect(editor).toMatch(/id="visitors-see">Visitors see 1 of these 2 images on the public page: it leaves out 1 private image/);
  });
});

describe("file pages", () => {
  it("the edit page previews the owner's private file; the file page opens its image in a lightbox", async () => {
    const u = await user();
    const priv = await seedFile(u.id, { title: "secret", visibility: "private" });
    const edit = (await page(`/app/files/${priv.id}/edit`, { cookie: u.cookie })).text;
    expect(edit).toMatch(new RegExp(`<a class="edit-preview" href="/f/${priv.id}"[^>]*><img src="[^"]*/i/${priv.id}/thumb\\?[^"]*osig=`));
    const pub = await seedFile(u.id, { title: "open", width: 3000, height: 2000 });
    const shown = (await page(`/f/${pub.id}`)).text;
    expect(shown).toContain('<div class="media" data-lightbox="">');
    expect(shown).toMatch(new RegExp(`data-full="[^"]*/i/${pub.id}\\?w=1600"`));
    expect(shown).toContain('<dialog id="lightbox" class="lightbox single"');
  });
});
