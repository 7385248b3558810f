// Where a second factor is turned on, the pages offer "Sign out everywhere else" (one click: one form post with the
// form token): the recovery codes page of TOTP and of the first passkey, and the account page after either.
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, call, uniqueEmail, uniqueUsername } from "../support/api";
import { freshIp } from "../support/password";
import { SITE, csrfOf, page, sessionCookie, type PageOptions } from "../support/pages";
import { atNextStep, codeAt } from "../support/totp";
import { attest, newAuthenticator } from "../support/webauthn";

afterEach(() => vi.useRealTimers());

const from = (path: string, opts: PageOptions = {}) => page(path, { ...opts, origin: SITE, headers: { "cf-connecting-ip": freshIp(), ...opts.headers } });
const hidden = (html: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"/>`).exec(html)?.[1] ?? "";
const unescape = (s: string) => s.replace(/&amp;/g, "&").replace(/&#39;/g, "'").replace(/&quot;/g, '"');
const OFFER = /<form method="post" action="\/app\/account\/sign-out-others" class="stack panel" id="sign-out-others"><input type="hidden" name="_csrf" value="[^"]+"\/>[\s\S]*?<button type="submit">Sign out everywhere else<\/button><\/form>/;

/** A person signed up through the pages, and another session of theirs opened before any factor. */
async function withOtherSession() {
  const email = uniqueEmail("so");
  const res = await page("/app/signup", { form: { email, username: uniqueUsername("s"), password: PASSWORD }, origin: SITE });
  const cookie = sessionCookie(res);
  const access = decodeURIComponent(cookie.split("=")[1]).split("~")[0];
  const other = (await call("/auth/login", { body: { email, password: PASSWORD }, ip: freshIp() })).body.session.access_token as string;
  return { cookie, access, other, csrf: csrfOf((await page("/app/account", { cookie })).text) };
}

describe("the offer to sign out everywhere else", () => {
  it("TOTP turned on: on the recovery codes page and the account page; one click ends the other session, not this one", async () => {
    const now = atNextStep();
    const { cookie, other, csrf } = await withOtherSession();
    const enrol = await from("/app/account/totp", { cookie, form: { _csrf: csrf } });
    const secret = hidden(enrol.text, "secret");
    const codes = await from("/app/account/totp/confirm", { cookie, form: { _csrf: csrf, secret, otpauthUrl: unescape(hidden(enrol.text, "otpauthUrl")), code: codeAt(secret, now) } });
    expect(codes.text).toContain("<h1>Save your recovery codes</h1>");
    expect(codes.text).toMatch(OFFER);
    expect(codes.text).toContain("Save your recovery codes first");
    expect((await page("/app/account?totp=on", { cookie })).text).toMatch(OFFER);
    expect((await page("/app/account", { cookie })).text).not.toMatch(OFFER); // only where a factor was just turned on
    expect((await call("/account", { token: other })).status).toBe(200);

    expect((await from("/app/account/sign-out-others", { cookie, form: { _csrf: "" } })).status).toBe(403); // the form token
    const done = await from("/app/account/sign-out-others", { cookie, form: { _csrf: csrf } });
    expect([done.status, done.headers.get("location")]).toEqual([303, "/app/account?signedOut=1"]);
    expect((await call("/account", { token: other })).status).toBe(401);
    const after = await page("/app/account?signedOut=1", { cookie });
    expect(after.status).toBe(200);
    expect(after.text).toContain("1 other session was signed out. This one stays.");
  });

  it("a passkey added: on the first one's recovery codes page and on the account page", async () => {
    const { cookie, access, other, csrf } = await withOtherSession();
    const add = async () => {
      const options = (await call("/auth/passkeys/options", { method: "POST", token: access })).body;
      const response = JSON.stringify(await attest(await newAuthenticator(), options));
      return from("/app/account/passkeys", { cookie, form: { _csrf: csrf, name: "Laptop", response } });
    };
    const first = await add();
    expect(first.text).toContain("Your passkey was added.");
    expect(first.text).toMatch(OFFER);
    const second = await add();
    expect(second.headers.get("location")).toBe("/app/account?passkey=added");
    expect((await page("/app/account?passkey=added", { cookie })).text).toMatch(OFFER);
    expect((await from("/app/account/sign-out-others", { cookie, form: { _csrf: csrf } })).headers.get("location")).toBe("/app/account?signedOut=1");
    expect((await call("/account", { token: other })).status).toBe(401);
    expect((await page("/app/account", { cookie })).status).toBe(200);
  });
});
