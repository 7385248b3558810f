// The web app's password pages (extensions.md §7): the account page's change form, the login page's "Forgot your
// password?" link, the forgot page and the reset page the mail links to.
import { describe, expect, it } from "vitest";
import { PASSWORD, uniqueEmail, uniqueUsername } from "../support/api";
import { freshIp, loginWith, mailsTo, requestReset, resetMails } from "../support/password";
import { SITE, csrfOf, page, sessionCookie, type PageOptions } from "../support/pages";

const NEW_PASSWORD = "a brand new passphrase";
/** A page request from its own client address (the recovery routes count per IP). */
const from = (path: string, opts: PageOptions = {}) => page(path, { ...opts, headers: { "cf-connecting-ip": freshIp(), ...opts.headers } });

async function signedUp() {
  const email = uniqueEmail("pw");
  const res = await page("/app/signup", { form: { email, username: uniqueUsername("p"), password: PASSWORD }, origin: SITE });
  expect(res.status).toBe(303);
  return { email, cookie: sessionCookie(res) };
}

describe("password pages", () => {
  it("the login page links to the forgot page, which posts the address and answers the same for any address", async () => {
    const login = await page("/app/login");
    expect(login.text).toContain('<a href="/app/forgot-password">Forgot your password?</a>');
    const form = await page("/app/forgot-password");
    expect(form.status).toBe(200);
    expect(form.text).toMatch(/<form method="post" action="\/app\/forgot-password"/);
    expect(form.text).toMatch(/<input id="email" name="email" type="email" autocomplete="email" required/);

    const { email } = await signedUp();
    const known = await from("/app/forgot-password", { form: { email }, origin: SITE });
    const unknown = await from("/app/forgot-password", { form: { email: uniqueEmail("ghost") }, origin: SITE });
    expect([known.status, unknown.status]).toEqual([200, 200]);
    const notice = (html: string) => /<p class="notice ok" role="status">([^<]*)<\/p>/.exec(html)?.[1];
    expect(notice(known.text)).toBe("If an account uses this address, a link to reset its password is on its way. It works for 1 hour.");
    expect(notice(unknown.text)).toBe(notice(known.text));
    expect(await resetMails(email)).toHaveLength(1);
  });

  it("the forgot page shows a refused address and refuses foreign form posts", async () => {
    const bad = await from("/app/forgot-password", { form: { email: "not an address" }, origin: SITE });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
    expect((await from("/app/forgot-password", { form: { email: uniqueEmail() }, origin: "https://evil.example" })).status).toBe(403);
  });

  it("the mail's link opens the reset page: a GET only shows the form (the token is not used up)", async () => {
    const { email } = await signedUp();
    const token = await requestReset(email);
    const [mail] = await resetMails(email);
    const link = /(http\S+\/reset-password\?token=\S+)/.exec(mail.text)![1];
    expect(link.startsWith(`${SITE}/reset-password?token=`)).toBe(true);
    const get = await page(link.slice(SITE.length));
    expect(get.status).toBe(200);
    expect(get.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(get.text).toContain(`<input type="hidden" name="token" value="${token}"/>`);
    expect(get.text).toMatch(/<input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required="" minlength="8"/);
    // Without a token in the address, a box for the code from the mail.
    expect((await page("/reset-password")).text).toMatch(/<input id="token" name="token" required="" autocomplete="one-time-code"/);

    const mismatch = await from("/reset-password", { form: { token, newPassword: NEW_PASSWORD, repeatPassword: "something else" }, origin: SITE });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain("The two new passwords are not the same.");
    const done = await from("/reset-password", { form: { token, newPassword: NEW_PASSWORD, repeatPassword: NEW_PASSWORD }, origin: SITE });
    expect(done.status).toBe(200);
    expect(done.text).toContain("Your password was changed.");
    expect(done.text).toContain('href="/app/login"');
    expect((await loginWith(email, NEW_PASSWORD)).status).toBe(200);

    const again = await from("/reset-password", { form: { token, newPassword: "another new password", repeatPassword: "another new password" }, origin: SITE });
    expect(again.status).toBe(400);
    expect(again.text).toContain("The reset link is invalid, used or expired");
    expect(again.text).toContain('href="/app/forgot-password"');
  });

  it("a reset ends the browser's session too", async () => {
    const { email, cookie } = await signedUp();
    const token = await requestReset(email);
    const done = await from("/reset-password", { cookie, form: { token, newPassword: NEW_PASSWORD, repeatPassword: NEW_PASSWORD }, origin: SITE });
    expect(done.status).toBe(200);
    expect(done.headers.getSetCookie().some((c) => c.startsWith("__Host-session=;"))).toBe(true);
    expect((await page("/app/account", { cookie })).status).toBe(303);
  });

  it("the account page changes the password: a new session cookie, the old one ends, a mail", async () => {
    const { email, cookie } = await signedUp();
    const account = await page("/app/account", { cookie });
    expect(account.text).toContain("<h2>Change password</h2>");
    expect(account.text).toMatch(/<form method="post" action="\/app\/account\/password"/);
    expect(account.text).toMatch(/<input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required=""/);
    const csrf = csrfOf(account.text);

    const noToken = await page("/app/account/password", { cookie, form: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, repeatPassword: NEW_PASSWORD }, origin: SITE });
    expect(noToken.status).toBe(403);
    const wrong = await page("/app/account/password", { cookie, form: { _csrf: csrf, currentPassword: "not my password", newPassword: NEW_PASSWORD, repeatPassword: NEW_PASSWORD }, origin: SITE });
    expect(wrong.status).toBe(303);
    // ?error= names a code (pages/app/error-param.tsx); the account page says its message.
    expect(wrong.headers.get("location")).toBe("/app/account?error=invalid_password");
    expect((await page(wrong.headers.get("location")!, { cookie })).text).toContain("The password is not correct.");
    const mismatch = await page("/app/account/password", { cookie, form: { _csrf: csrf, currentPassword: PASSWORD, newPassword: NEW_PASSWORD, repeatPassword: "typo" }, origin: SITE });
    expect(mismatch.headers.get("location")).toBe("/app/account?error=passwords_differ");
    expect((await page(mismatch.headers.get("location")!, { cookie })).text).toContain("The two new passwords are not the same.");

    const changed = await page("/app/account/password", { cookie, form: { _csrf: csrf, currentPassword: PASSWORD, newPassword: NEW_PASSWORD, repeatPassword: NEW_PASSWORD }, origin: SITE });
    expect(changed.status).toBe(303);
    expect(changed.headers.get("location")).toBe("/app/account?password=1");
    const fresh = sessionCookie(changed);
    expect(fresh).not.toBe(cookie);
    const after = await page("/app/account?password=1", { cookie: fresh });
    expect(after.status).toBe(200);
    expect(after.text).toContain("Your password was changed. Every other device was signed out.");
    expect((await page("/app/account", { cookie })).status).toBe(303); // the old cookie's session ended
    expect((await mailsTo(email))[0].subject).toBe("Your password was changed");
    expect((await loginWith(email, NEW_PASSWORD)).status).toBe(200);
  });
});
