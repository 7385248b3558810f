// Web-app pages through the real fetch handler: forms, the session cookie, CSRF refusal, CSP.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PASSWORD, latestToken, uniqueEmail, uniqueUsername, call } from "../support/api";
import { makePng } from "../uploads/helpers";
import { SITE, csrfOf, page, sessionCookie } from "../support/pages";


async function signedUp() {
  const email = uniqueEmail("web");
  const res = await page("/app/signup", { form: { email, username: uniqueUsername("w"), password: PASSWORD }, origin: SITE });
  expect(res.status).toBe(303);
  return { email, cookie: sessionCookie(res) };
}

describe("web app pages", () => {
  it("serves pages with the strict CSP and no inline script", async () => {
    for (const path of ["/app/login", "/app/signup", "/verify-email?token=x"]) {
      const res = await page(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    }
    // Script, stylesheet and icon are hashed Workers static assets (served before the worker; the browser
    // tests fetch them): the pages name them by their hashed addresses.
    const login = (await page("/app/login")).text;
    expect(login).toMatch(/<script src="\/assets\/app\.[0-9a-f]{12}\.js" data-thumbhash="\/assets\/thumbhash\.[0-9a-f]{12}\.js" data-webauthn="\/assets\/webauthn\.[0-9a-f]{12}\.js" data-api="\/assets\/api\.[0-9a-f]{12}\.js" defer/);
    expect(login).toMatch(/<link rel="stylesheet" href="\/assets\/site\.[0-9a-f]{12}\.css"/);
    expect(login).toMatch(/<link rel="icon" href="\/assets\/favicon\.[0-9a-f]{12}\.svg"/);
  });

  it("signs up with a form, sets a Secure HttpOnly SameSite=Strict __Host- cookie, and shows the account", async () => {
    const email = uniqueEmail("web");
    const res = await page("/app/signup", { form: { email, username: uniqueUsername("w"), password: PASSWORD }, origin: SITE });
    expect(res.status).toBe(303);
    const set = res.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!;
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/Secure/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).toMatch(/Path=\//);
    const acc = await page("/app/account", { cookie: set.split(";")[0] });
    expect(acc.status).toBe(200);
    expect(acc.text).toContain(email);
    expect(acc.text).toContain("not verified");
  });

  it("shows signup and login errors without a session", async () => {
    const bad = await page("/app/signup", { form: { email: "nope", username: "x", password: "short" }, origin: SITE });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
    const wrong = await page("/app/login", { form: { email: uniqueEmail("none"), password: "whatever-password" }, origin: SITE });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("Invalid e-mail or password");
  });

  it("logs in and redirects pages without a session to login", async () => {
    const { email } = await signedUp();
    const res = await page("/app/login", { form: { email, password: PASSWORD, next: "/app/keys" }, origin: SITE });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/keys");
    const anon = await page("/app/files");
    expect(anon.status).toBe(303);
    expect(anon.headers.get("location")).toContain("/app/login");
  });

  it("refuses state-changing posts without the CSRF token or from another origin", async () => {
    const { cookie } = await signedUp();
    const noToken = await page("/app/keys", { cookie, form: { name: "k", permissions: "read" } });
    expect(noToken.status).toBe(403);
    const wrongToken = await page("/app/keys", { cookie, form: { name: "k", permissions: "read", _csrf: "forged" } });
    expect(wrongToken.status).toBe(403);
    const keysPage = await page("/app/keys", { cookie });
    const csrf = csrfOf(keysPage.text);
    const foreign = await page("/app/keys", { cookie, form: { name: "k", permissions: "read", _csrf: csrf }, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const foreignLogin = await page("/app/login", { form: { email: "a@b.c", password: "x" }, origin: "https://evil.example" });
    expect(foreignLogin.status).toBe(403);
  });

  it("verifies the e-mail from the mail link with a button (GET does not use the token)", async () => {
    const { email, cookie } = await signedUp();
    const token = await latestToken(email);
    const get = await page(`/verify-email?token=${encodeURIComponent(token)}`);
    expect(get.text).toContain(token);
    const post = await page("/verify-email", { form: { token }, origin: SITE });
    expect(post.status).toBe(200);
    expect(post.text).toContain("verified");
    const acc = await page("/app/account", { cookie });
    expect(acc.text).toContain('id="verified"');
    const again = await page("/verify-email", { form: { token }, origin: SITE });
    expect(again.status).toBe(400);
  });

  it("creates an API key shown once, lists it and revokes it", async () => {
    const { email, cookie } = await signedUp();
    await page("/verify-email", { form: { token: await latestToken(email) }, origin: SITE });
    const csrf = csrfOf((await page("/app/keys", { cookie })).text);
    const created = await page("/app/keys", { cookie, form: { _csrf: csrf, name: "laptop", permissions: ["read", "upload"], expires: "30" }, origin: SITE });
    expect(created.status).toBe(200);
    const key = /<code id="new-key-value">(pk_[^<]+)<\/code>/.exec(created.text)?.[1];
    expect(key).toMatch(/^pk_/);
    expect((await call("/files", { token: key! })).status).toBe(200);
    const listed = await page("/app/keys", { cookie });
    expect(listed.text).not.toContain(key!);
    expect(listed.text).toContain(key!.slice(0, 7));
    const id = /href="\/app\/keys\/([^/]+)\/revoke"/.exec(listed.text)?.[1];
    // Revoking asks first: a confirmation page naming the key, whose form posts the revocation.
    const confirm = await page(`/app/keys/${id}/revoke`, { cookie });
    expect(confirm.text).toContain("Revoke the key “laptop”?");
    expect(confirm.text).toContain(`action="/app/keys/${id}/revoke"`);
    expect((await call("/files", { token: key! })).status).toBe(200);
    const revoked = await page(`/app/keys/${id}/revoke`, { cookie, form: { _csrf: csrf }, origin: SITE });
    expect(revoked.status).toBe(303);
    expect((await call("/files", { token: key! })).status).toBe(401);
  });

  it("downloads a ShareX uploader (.sxcu) for a new upload key, and only for the caller's own live upload keys", async () => {
    const { email, cookie } = await signedUp();
    await page("/verify-email", { form: { token: await latestToken(email) }, origin: SITE });
    const csrf = csrfOf((await page("/app/keys", { cookie })).text);
    const created = await page("/app/keys", { cookie, form: { _csrf: csrf, name: "sharex", permissions: ["upload"] }, origin: SITE });
    const key = /<code id="new-key-value">(pk_[^<]+)<\/code>/.exec(created.text)![1];
    expect(created.text).toContain('action="/app/sharex"');
    const file = await page("/app/sharex", { cookie, form: { _csrf: csrf, key }, origin: SITE });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="imghost.sxcu"');
    const sxcu = JSON.parse(file.text);
    expect(sxcu).toMatchObject({
      DestinationType: "ImageUploader",
      RequestMethod: "POST",
      RequestURL: "http://localhost:8787/api/v1/upload/form",
      Headers: { Authorization: `Bearer ${key}` },
      Body: "MultipartFormData",
      FileFormName: "file",
      URL: "{json:url}",
    });
    // someone else's key, a made-up key, a missing CSRF token: no file
    const other = await signedUp();
    const otherCsrf = csrfOf((await page("/app/keys", { cookie: other.cookie })).text);
    const stolen = await page("/app/sharex", { cookie: other.cookie, form: { _csrf: otherCsrf, key }, origin: SITE });
    expect(stolen.status).toBe(400);
    expect(stolen.text).not.toContain(key);
    expect((await page("/app/sharex", { cookie, form: { _csrf: csrf, key: "pk_" + "1".repeat(32) }, origin: SITE })).status).toBe(400);
    expect((await page("/app/sharex", { cookie, form: { key }, origin: SITE })).status).toBe(403);
    // signed out: to the login page, whatever the form carries
    const anonymous = await page("/app/sharex", { form: { _csrf: csrf, key }, origin: SITE });
    expect(anonymous.status).toBe(303);
    expect(anonymous.text).not.toContain(key);
  });

  it("uploads without JavaScript: the form posts multipart to /app/upload", async () => {
    const { cookie } = await signedUp();
    const csrf = csrfOf((await page("/app/upload", { cookie })).text);
    expect(csrf).not.toBe("");
    const post = async (fields: Record<string, string>, files: File[], withCsrf = true) => {
      const fd = new FormData();
      if (withCsrf) fd.set("_csrf", csrf);
      for (const [k, v] of Object.entries(fields)) fd.set(k, v);
      for (const f of files) fd.append("files", f);
      const framed = new Request(SITE, { method: "POST", body: fd });
      const body = await framed.arrayBuffer();
      const res = await exports.default.fetch(`${SITE}/app/upload`, {
        method: "POST",
        headers: { cookie, origin: SITE, "content-type": framed.headers.get("content-type")! },
        body,
        redirect: "manual",
      });
      return { status: res.status, text: await res.text() };
    };
    const png = new File([makePng(8, 8, 41)], "nojs.png", { type: "image/png" });
    const ok = await post({ title: "No JS", visibility: "unlisted" }, [png]);
    expect(ok.status).toBe(200);
    const pageLink = /href="(http:\/\/localhost:8787\/f\/file_[^"]+)"/.exec(ok.text)?.[1];
    expect(pageLink).toBeTruthy();
    const fileId = pageLink!.split("/f/")[1];
    expect(ok.text).toContain("Still being analysed"); // this suite's FINALIZE_WAIT_MS is 0
    const token = JSON.parse((await page("/app/token", { cookie, headers: { "x-requested-with": "imghost" } })).text).access_token;
    expect((await call(`/files/${fileId}`, { token })).body).toMatchObject({ title: "No JS", visibility: "unlisted" });
    const bad = await post({}, [new File([new TextEncoder().encode("not an image")], "x.png", { type: "image/png" })]);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
    expect((await post({}, [png], false)).status).toBe(403);
  });

  it("gives client scripts a token only with the custom header and a session", async () => {
    const { cookie } = await signedUp();
    expect((await page("/app/token", { cookie })).status).toBe(403);
    expect((await page("/app/token", { headers: { "x-requested-with": "imghost" } })).status).toBe(401);
    const ok = await page("/app/token", { cookie, headers: { "x-requested-with": "imghost" } });
    expect(ok.status).toBe(200);
    const token = JSON.parse(ok.text).access_token;
    expect((await call("/account", { token })).status).toBe(200);
  });

  it("saves the profile, downloads the export and logs out", async () => {
    const { email, cookie } = await signedUp();
    const csrf = csrfOf((await page("/app/account", { cookie })).text);
    const saved = await page("/app/account", { cookie, form: { _csrf: csrf, ageConfirmed: "1" }, origin: SITE });
    expect(saved.headers.get("location")).toContain("saved=1");
    const acc = await page("/app/account", { cookie });
    expect(acc.text).toMatch(/name="safeMode" value="1"\s*\/?>/);
    const exp = await page("/app/account/export", { cookie });
    expect(exp.status).toBe(200);
    expect(exp.headers.get("content-disposition")).toContain("attachment");
    expect(exp.text).toContain(email);
    const out = await page("/app/logout", { cookie, form: { _csrf: csrf }, origin: SITE });
    expect(out.status).toBe(303);
    expect((await page("/app/account", { cookie })).status).toBe(303);
  });

  it("deletes the account only with the right password", async () => {
    const { cookie } = await signedUp();
    const csrf = csrfOf((await page("/app/account", { cookie })).text);
    const wrong = await page("/app/account/delete", { cookie, form: { _csrf: csrf, password: "not the password", confirm: "1" }, origin: SITE });
    expect(wrong.headers.get("location")).toContain("error=");
    expect((await page("/app/account", { cookie })).status).toBe(200);
    const right = await page("/app/account/delete", { cookie, form: { _csrf: csrf, password: PASSWORD, confirm: "1" }, origin: SITE });
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toContain("/app/signup");
    expect((await page("/app/account", { cookie })).status).toBe(303);
  });

  it("renders an empty files grid and the upload page for a signed-in user", async () => {
    const { cookie } = await signedUp();
    const files = await page("/app/files?sort=size&order=asc", { cookie });
    expect(files.status).toBe(200);
    expect(files.text).toContain("No files yet");
    const up = await page("/app/upload", { cookie });
    expect(up.text).toMatch(/src="\/assets\/app\.[0-9a-f]{12}\.js"/);
    expect(up.text).toContain('for="files"');
  });
});
