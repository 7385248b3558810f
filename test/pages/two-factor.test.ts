// Two-factor sign-in in the web app (extensions.md §5): the account page sets TOTP up (the otpauth URL as a QR code
// and as text), confirms it with a code and shows the recovery codes once, and turns it off; the login page asks
// for the second step when the login answers mfaRequired.
import { afterEach, describe, expect, it, vi } from "vitest";
import { encode } from "uqr";
import { PASSWORD, uniqueEmail, uniqueUsername } from "../support/api";
import { freshIp } from "../support/password";
import { SITE, csrfOf, page, sessionCookie, type PageOptions } from "../support/pages";
import { atNextStep, codeAt, factorStatus } from "../support/totp";

afterEach(() => vi.useRealTimers());

/** A page request from its own client address (the login guard counts per IP). */
const from = (path: string, opts: PageOptions = {}) => page(path, { ...opts, origin: SITE, headers: { "cf-connecting-ip": freshIp(), ...opts.headers } });
const hidden = (html: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"/>`).exec(html)?.[1] ?? "";
const unescape = (s: string) => s.replace(/&amp;/g, "&").replace(/&#39;/g, "'").replace(/&quot;/g, '"');

async function signedUp() {
  const email = uniqueEmail("tf");
  const res = await page("/app/signup", { form: { email, username: uniqueUsername("t"), password: PASSWORD }, origin: SITE });
  expect(res.status).toBe(303);
  const cookie = sessionCookie(res);
  const access = decodeURIComponent(cookie.split("=")[1]).split("~")[0];
  return { email, cookie, access };
}

/** Sets TOTP up through the pages; returns the secret and the recovery codes the page showed. */
async function setUp(cookie: string, now: number) {
  const csrf = csrfOf((await page("/app/account", { cookie })).text);
  const enrolPage = await from("/app/account/totp", { cookie, form: { _csrf: csrf } });
  const secret = hidden(enrolPage.text, "secret");
  const done = await from("/app/account/totp/confirm", { cookie, form: { _csrf: csrf, secret, otpauthUrl: unescape(hidden(enrolPage.text, "otpauthUrl")), code: codeAt(secret, now) } });
  expect(done.status).toBe(200);
  const codes = [...done.text.matchAll(/<li><code>([0-9a-z-]+)<\/code><\/li>/g)].map((m) => m[1]);
  return { secret, codes, csrf };
}

describe("the account page", () => {
  it("offers the setup; the setup page shows the QR code of the otpauth URL, the key as text, and asks for a code", async () => {
    const { cookie, access } = await signedUp();
    const account = await page("/app/account", { cookie });
    expect(account.text).toContain('<h2 id="two-factor">Two-factor sign-in</h2>');
    expect(account.text).toMatch(/<form method="post" action="\/app\/account\/totp"><input type="hidden" name="_csrf" value="[^"]+"\/><button type="submit">Set up an authenticator app<\/button>/);
    const csrf = csrfOf(account.text);
    expect((await from("/app/account/totp", { cookie, form: { _csrf: "" } })).status).toBe(403); // no form token
    expect((await factorStatus(access)).body.totp.state).toBe("off");

    const r = await from("/app/account/totp", { cookie, form: { _csrf: csrf } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(r.headers.get("cache-control")).toBe("no-store");
    const secret = hidden(r.text, "secret");
    const otpauthUrl = unescape(hidden(r.text, "otpauthUrl"));
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl.startsWith("otpauth://totp/imghost:")).toBe(true);
    expect(new URL(otpauthUrl).searchParams.get("secret")).toBe(secret);
    expect(r.text).toContain(`<code id="totp-secret">${secret.replace(/(.{4})(?=.)/g, "$1 ")}</code>`);
    expect(unescape(/<code id="otpauth-url">([^<]+)<\/code>/.exec(r.text)![1])).toBe(otpauthUrl);
    // The QR code is the otpauth URL's, drawn as inline SVG (no script, no style attribute).
    const svg = /<svg class="qr"[^>]*>[\s\S]*?<\/svg>/.exec(r.text)![0];
    const qr = encode(otpauthUrl, { ecc: "M", border: 4 });
    expect(svg).toContain(`viewBox="0 0 ${qr.size} ${qr.size}"`);
    expect(svg).toContain('role="img"');
    expect(svg).not.toMatch(/style=|<script/);
    const dark = qr.data.flatMap((row, y) => row.map((on, x) => (on ? `M${x} ${y}h1v1h-1z` : ""))).join("");
    expect(svg).toContain(`d="${dark}"`);
    expect(r.text).toMatch(/<input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required="" maxlength="7"/);
    expect((await factorStatus(access)).body.totp.state).toBe("pending");
    expect((await page("/app/account", { cookie })).text).toContain("Setup was started but not finished.");
  });

  it("a wrong code shows the same QR code again with the error; the right one shows 10 recovery codes once, and it is on", async () => {
    const now = atNextStep();
    const { cookie, access } = await signedUp();
    const csrf = csrfOf((await page("/app/account", { cookie })).text);
    const enrolPage = await from("/app/account/totp", { cookie, form: { _csrf: csrf } });
    const secret = hidden(enrolPage.text, "secret");
    const otpauthUrl = unescape(hidden(enrolPage.text, "otpauthUrl"));
    const good = codeAt(secret, now);
    const wrong = await from("/app/account/totp/confirm", { cookie, form: { _csrf: csrf, secret, otpauthUrl, code: good === "000000" ? "000001" : "000000" } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("The authenticator code is wrong, already used or outside its time window");
    expect(hidden(wrong.text, "secret")).toBe(secret);
    expect(/<svg class="qr"[^>]*>[\s\S]*?<\/svg>/.exec(wrong.text)![0]).toBe(/<svg class="qr"[^>]*>[\s\S]*?<\/svg>/.exec(enrolPage.text)![0]);

    const done = await from("/app/account/totp/confirm", { cookie, form: { _csrf: csrf, secret, otpauthUrl, code: good } });
    expect(done.status).toBe(200);
    expect(done.text).toContain("<h1>Save your recovery codes</h1>");
    const codes = [...done.text.matchAll(/<li><code>([0-9a-z-]+)<\/code><\/li>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(10);
    expect((await factorStatus(access)).body).toMatchObject({ totp: { state: "on" }, recoveryCodesRemaining: 10 });
    const account = await page("/app/account?totp=on", { cookie });
    expect(account.text).toContain("Two-factor sign-in is on.");
    expect(account.text).toContain("Recovery codes left: 10.");
    for (const code of codes) expect(account.text).not.toContain(code);
  });

  it("turns it off with the password or a current code; a wrong one says why and changes nothing", async () => {
    const now = atNextStep();
    const { cookie, access } = await signedUp();
    const { secret, csrf } = await setUp(cookie, now - 30_000);
    const wrong = await from("/app/account/totp/off", { cookie, form: { _csrf: csrf, code: "", password: "not my password" } });
    expect(wrong.status).toBe(303);
    // ?error= names a code (pages/app/error-param.tsx); the account page says its message.
    expect(wrong.headers.get("location")).toBe("/app/account?error=invalid_password");
    expect((await page(wrong.headers.get("location")!, { cookie })).text).toContain("The password is not correct.");
    expect((await factorStatus(access)).body.totp.state).toBe("on");
    const off = await from("/app/account/totp/off", { cookie, form: { _csrf: csrf, code: codeAt(secret, now), password: "" } });
    expect([off.status, off.headers.get("location")]).toEqual([303, "/app/account?totp=off"]);
    expect((await page("/app/account?totp=off", { cookie })).text).toContain("Two-factor sign-in is off.");
    expect((await factorStatus(access)).body.totp.state).toBe("off");

    await setUp(cookie, now + 30_000);
    const byPassword = await from("/app/account/totp/off", { cookie, form: { _csrf: csrf, code: "", password: PASSWORD } });
    expect(byPassword.headers.get("location")).toBe("/app/account?totp=off");
  });
});

describe("the login page's second step", () => {
  it("asks for a code (no cookie yet); a wrong code keeps the step; the right one signs in and goes on to `next`", async () => {
    const now = atNextStep();
    const { email, cookie } = await signedUp();
    const { secret } = await setUp(cookie, now - 30_000);
    const step = await from("/app/login", { form: { email, password: PASSWORD, next: "/app/files" } });
    expect(step.status).toBe(200);
    expect(step.headers.getSetCookie().some((c) => c.startsWith("__Host-session="))).toBe(false);
    expect(step.text).toContain("<h1>Two-step sign-in</h1>");
    expect(step.text).toMatch(/<form method="post" action="\/app\/login\/2fa"/);
    expect(step.text).toContain("or one of your recovery codes if you lost the app");
    const mfaToken = hidden(step.text, "mfaToken");
    expect(mfaToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const good = codeAt(secret, now);
    const wrong = await from("/app/login/2fa", { form: { mfaToken, methods: "totp,recovery", next: "/app/files", code: good === "000000" ? "000001" : "000000" } });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("The code is wrong, already used or outside its time window");
    expect(hidden(wrong.text, "mfaToken")).toBe(mfaToken);
    expect(hidden(wrong.text, "next")).toBe("/app/files");

    const done = await from("/app/login/2fa", { form: { mfaToken, methods: "totp,recovery", next: "/app/files", code: good } });
    expect([done.status, done.headers.get("location")]).toEqual([303, "/app/files"]);
    expect((await page("/app/account", { cookie: sessionCookie(done) })).status).toBe(200);

    // The token is used up: back to the password.
    const again = await from("/app/login/2fa", { form: { mfaToken, methods: "totp", next: "", code: codeAt(secret, now + 30_000) } });
    expect(again.status).toBe(401);
    expect(again.text).toContain("<h1>Log in</h1>");
    expect(again.text).toContain("This sign-in expired or was already used");
  });

  it("a recovery code signs in too; foreign form posts are refused", async () => {
    const now = atNextStep();
    const { email, cookie } = await signedUp();
    const { codes } = await setUp(cookie, now);
    const mfaToken = hidden((await from("/app/login", { form: { email, password: PASSWORD } })).text, "mfaToken");
    const foreign = await page("/app/login/2fa", { form: { mfaToken, code: codes[0] }, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const done = await from("/app/login/2fa", { form: { mfaToken, methods: "totp,recovery", next: "", code: codes[0].toUpperCase() } });
    expect([done.status, done.headers.get("location")]).toEqual([303, "/app/upload"]);
  });
});
