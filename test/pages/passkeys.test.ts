// Passkeys in the web app (extensions.md §5): the account page lists them, adds one (a name, and the answer the
// browser's script puts into the form), and removes one after a confirmation page; the login page offers "Sign in
// with a passkey", and the second step offers the passkey when the account has one. The script's part (options
// from the API, navigator.credentials, the hidden field) is the browser test's; here the software authenticator
// of test/support/webauthn.ts stands in for it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, call, uniqueEmail, uniqueUsername } from "../support/api";
import { freshIp } from "../support/password";
import { SITE, csrfOf, page, sessionCookie, type PageOptions } from "../support/pages";
import { atNextStep, codeAt, enableTotp, factorStatus } from "../support/totp";
import { listPasskeys, signInOptions, withPasskey } from "../support/passkeys";
import { assertWith, attest, newAuthenticator, type SoftAuthenticator } from "../support/webauthn";

afterEach(() => vi.useRealTimers());

const from = (path: string, opts: PageOptions = {}) => page(path, { ...opts, origin: SITE, headers: { "cf-connecting-ip": freshIp(), ...opts.headers } });
const hidden = (html: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"/>`).exec(html)?.[1] ?? "";

async function signedUp() {
  const email = uniqueEmail("pk");
  const res = await page("/app/signup", { form: { email, username: uniqueUsername("p"), password: PASSWORD }, origin: SITE });
  expect(res.status).toBe(303);
  const cookie = sessionCookie(res);
  const access = decodeURIComponent(cookie.split("=")[1]).split("~")[0];
  return { id: "", email, cookie, access, password: PASSWORD, refresh: "" };
}

/** What the account page's script posts: the name, and the authenticator's answer to fresh options, as JSON. */
async function addThroughPage(user: { cookie: string; access: string }, name: string, authenticator?: SoftAuthenticator) {
  const csrf = csrfOf((await page("/app/account", { cookie: user.cookie })).text);
  const options = (await call("/auth/passkeys/options", { method: "POST", token: user.access })).body;
  const answer = await attest(authenticator ?? (await newAuthenticator()), options);
  return from("/app/account/passkeys", { cookie: user.cookie, form: { _csrf: csrf, name, response: JSON.stringify(answer) } });
}

describe("the account page's passkeys", () => {
  it("none at first; the add form (a name, the answer's hidden field) waits for the script, with a note for browsers without it", async () => {
    const user = await signedUp();
    const account = await page("/app/account", { cookie: user.cookie });
    expect(account.text).toContain('<h2 id="passkeys">Passkeys</h2>');
    expect(account.text).toContain("No passkeys yet.");
    const form = /<form method="post" action="\/app\/account\/passkeys"[^>]*>[\s\S]*?<\/form>/.exec(account.text)![0];
    expect(form).toContain('data-passkey="register"');
    expect(form).toMatch(/ hidden=""/);
    expect(form).toContain('<input type="hidden" name="response" value=""/>');
    expect(form).toMatch(/<input id="passkey-name" name="name" required="" maxlength="64"/);
    expect(form).toContain('name="_csrf"');
    expect(account.text).toContain("data-passkey-unsupported");
  });

  it("the first passkey shows the recovery codes once; a second goes back to the account page; both are listed", async () => {
    const user = await signedUp();
    const first = await addThroughPage(user, "Work laptop");
    expect(first.status).toBe(200);
    expect(first.text).toContain("<h1>Save your recovery codes</h1>");
    expect(first.text).toContain("Your passkey was added.");
    expect([...first.text.matchAll(/<li><code>([0-9a-z-]+)<\/code><\/li>/g)]).toHaveLength(10);
    const second = await addThroughPage(user, "Phone");
    expect([second.status, second.headers.get("location")]).toEqual([303, "/app/account?passkey=added"]);
    const account = await page("/app/account?passkey=added", { cookie: user.cookie });
    expect(account.text).toContain("Your passkey was added.");
    expect(account.text).toContain("Work laptop");
    expect(account.text).toContain("Phone");
    expect(account.text).toContain("never used");
    expect(account.text).toContain("Recovery codes left: 10.");
    const ids = (await listPasskeys(user.access)).body.passkeys.map((p: { id: string }) => p.id);
    for (const id of ids) expect(account.text).toContain(`href="/app/account/passkeys/${id}/remove"`);
  });

  it("a refused or missing answer, or no form token, says why and adds nothing", async () => {
    const user = await signedUp();
    const csrf = csrfOf((await page("/app/account", { cookie: user.cookie })).text);
    const options = (await call("/auth/passkeys/options", { method: "POST", token: user.access })).body;
    const bent = await attest(await newAuthenticator(), options, { origin: "https://evil.example" });
    const refused = await from("/app/account/passkeys", { cookie: user.cookie, form: { _csrf: csrf, name: "x", response: JSON.stringify(bent) } });
    expect(refused.status).toBe(303);
    // ?error= names a code (pages/app/error-param.tsx); the account page says its message.
    expect(refused.headers.get("location")).toBe("/app/account?error=invalid_passkey_registration");
    expect((await page(refused.headers.get("location")!, { cookie: user.cookie })).text).toContain("could not be verified");
    const missing = await from("/app/account/passkeys", { cookie: user.cookie, form: { _csrf: csrf, name: "x", response: "" } });
    expect(missing.headers.get("location")).toBe("/app/account?error=no_passkey_answer");
    const noToken = await from("/app/account/passkeys", { cookie: user.cookie, form: { _csrf: "", name: "x", response: JSON.stringify(bent) } });
    expect(noToken.status).toBe(403);
    expect((await listPasskeys(user.access)).body.passkeys).toEqual([]);
  });

  it("removing: a confirmation page names it and asks for the password (or a code with TOTP on); a wrong one says why", async () => {
    const now = atNextStep();
    const user = await signedUp();
    await addThroughPage(user, "Old phone");
    const [{ id }] = (await listPasskeys(user.access)).body.passkeys;
    const confirmPage = await page(`/app/account/passkeys/${id}/remove`, { cookie: user.cookie });
    expect(confirmPage.status).toBe(200);
    expect(confirmPage.text).toContain("Old phone");
    expect(confirmPage.text).toMatch(/<input id="remove-password" name="password" type="password" autocomplete="current-password"/);
    expect(confirmPage.text).not.toContain('name="code"');
    const csrf = csrfOf(confirmPage.text);
    const wrong = await from(`/app/account/passkeys/${id}/remove`, { cookie: user.cookie, form: { _csrf: csrf, password: "not my password" } });
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get("location")).toBe(`/app/account/passkeys/${id}/remove?error=invalid_password`);
    expect((await page(wrong.headers.get("location")!, { cookie: user.cookie })).text).toContain("The password is not correct.");
    expect((await listPasskeys(user.access)).body.passkeys).toHaveLength(1);

    const { secret } = await enableTotp({ ...user });
    expect((await page(`/app/account/passkeys/${id}/remove`, { cookie: user.cookie })).text).toContain('name="code"');
    const done = await from(`/app/account/passkeys/${id}/remove`, { cookie: user.cookie, form: { _csrf: csrf, code: codeAt(secret, now), password: "" } });
    expect([done.status, done.headers.get("location")]).toEqual([303, "/app/account?passkey=removed"]);
    expect((await page("/app/account?passkey=removed", { cookie: user.cookie })).text).toContain("The passkey was removed.");
    expect((await listPasskeys(user.access)).body.passkeys).toEqual([]);
  });

  it("another account's passkey has no removal page, and cannot be removed through the page", async () => {
    const owner = await signedUp();
    const stranger = await signedUp();
    await addThroughPage(owner, "Mine");
    const [{ id }] = (await listPasskeys(owner.access)).body.passkeys;
    const r = await page(`/app/account/passkeys/${id}/remove`, { cookie: stranger.cookie });
    expect(r.status).toBe(404);
    const csrf = csrfOf((await page("/app/account", { cookie: stranger.cookie })).text);
    const post = await from(`/app/account/passkeys/${id}/remove`, { cookie: stranger.cookie, form: { _csrf: csrf, password: PASSWORD } });
    expect(post.headers.get("location")).toBe("/app/account?error=passkey_not_found");
    expect((await page(post.headers.get("location")!, { cookie: stranger.cookie })).text).toContain("That passkey was not found.");
    expect((await listPasskeys(owner.access)).body.passkeys).toHaveLength(1);
  });
});

describe("the login page", () => {
  it("offers 'Sign in with a passkey' for the script; the answer signs in and goes on to `next`", async () => {
    const user = await signedUp();
    const authenticator = await newAuthenticator();
    await addThroughPage(user, "Laptop", authenticator);
    const login = await page("/app/login?next=/app/files");
    const form = /<form method="post" action="\/app\/login\/passkey"[^>]*>[\s\S]*?<\/form>/.exec(login.text)![0];
    expect(form).toContain('data-passkey="sign-in"');
    expect(form).toContain("Sign in with a passkey");
    expect(hidden(form, "next")).toBe("/app/files");

    const answer = await assertWith(authenticator, (await signInOptions()).body);
    const done = await from("/app/login/passkey", { form: { response: JSON.stringify(answer), next: "/app/files" } });
    expect([done.status, done.headers.get("location")]).toEqual([303, "/app/files"]);
    expect((await page("/app/account", { cookie: sessionCookie(done) })).status).toBe(200);
  });

  it("a refused answer shows the login page with the reason; foreign posts are refused", async () => {
    const user = await signedUp();
    const authenticator = await newAuthenticator();
    await addThroughPage(user, "Laptop", authenticator);
    const answer = await assertWith(authenticator, (await signInOptions()).body, { userVerified: false });
    const foreign = await page("/app/login/passkey", { form: { response: JSON.stringify(answer) }, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const refused = await from("/app/login/passkey", { form: { response: JSON.stringify(answer), next: "" } });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain("<h1>Log in</h1>");
    expect(refused.text).toContain("The passkey was not accepted");
    expect(refused.headers.getSetCookie().some((c) => c.startsWith("__Host-session="))).toBe(false);
    const garbled = await from("/app/login/passkey", { form: { response: "{not json", next: "" } });
    expect(garbled.status).toBe(400);
  });

  it("the second step offers the passkey beside the code; its answer, with the token, signs in", async () => {
    const user = await signedUp();
    const authenticator = await newAuthenticator();
    await addThroughPage(user, "Laptop", authenticator);
    expect((await factorStatus(user.access)).body.methods).toEqual(["passkey", "recovery"]);
    const step = await from("/app/login", { form: { email: user.email, password: PASSWORD, next: "/app/albums" } });
    expect(step.status).toBe(200);
    expect(step.text).toContain("<h1>Two-step sign-in</h1>");
    const form = /<form method="post" action="\/app\/login\/passkey"[^>]*>[\s\S]*?<\/form>/.exec(step.text)![0];
    expect(form).toContain("Use a passkey");
    const mfaToken = hidden(form, "mfaToken");
    expect(mfaToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(step.text).toContain("one of your recovery codes");
    expect(step.text).toContain('<label for="code">Recovery code</label>');

    const bent = await assertWith(authenticator, (await signInOptions(mfaToken)).body, { origin: "https://evil.example" });
    const wrong = await from("/app/login/passkey", { form: { mfaToken, methods: "passkey,recovery", next: "/app/albums", response: JSON.stringify(bent) } });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("<h1>Two-step sign-in</h1>");
    expect(wrong.text).toContain("The passkey was not accepted");
    expect(hidden(wrong.text, "mfaToken")).toBe(mfaToken);

    const answer = await assertWith(authenticator, (await signInOptions(mfaToken)).body);
    const done = await from("/app/login/passkey", { form: { mfaToken, methods: "passkey,recovery", next: "/app/albums", response: JSON.stringify(answer) } });
    expect([done.status, done.headers.get("location")]).toEqual([303, "/app/albums"]);
  });

  it("an account with TOTP only: the second step has no passkey form", async () => {
    atNextStep();
    const user = await signedUp();
    await enableTotp(user);
    const step = await from("/app/login", { form: { email: user.email, password: PASSWORD } });
    expect(step.text).toContain("<h1>Two-step sign-in</h1>");
    expect(step.text).not.toContain('action="/app/login/passkey"');
  });
});

// The helper users of test/support/passkeys.ts work with the page's session too (same API, same account).
describe("one account, the API and the pages", () => {
  it("a passkey added through the API is listed on the page", async () => {
    const user = await signedUp();
    await withPasskey(user, "From the API");
    expect((await page("/app/account", { cookie: user.cookie })).text).toContain("From the API");
  });
});
