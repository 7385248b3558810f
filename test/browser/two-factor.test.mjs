// Two-factor sign-in in chromium (extensions.md §5): set TOTP up on the account page (the QR code and the key; the
// code computed here from the key the page shows, as an authenticator app would), keep the recovery codes, log
// out, and sign in with the password and then a code. The new pages fit a 390 px phone, log no console error
// and have no serious axe-core violation.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, PHONE, DESKTOP, axeViolations, horizontalOverflow, openPage, signUp, startApp, suitePort, watch } from "./support.mjs";

const PORT = suitePort(6);
let app;

/** RFC 6238 (SHA-1, 6 digits, 30 s) code of a base32 key at `ms`, as an authenticator app computes it. */
function totp(base32, ms) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...base32.replace(/\s/g, "")].map((ch) => alphabet.indexOf(ch).toString(2).padStart(5, "0")).join("");
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 30_000)));
  const mac = createHmac("sha1", key).update(counter).digest();
  const o = mac[19] & 0xf;
  return String((mac.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

/** The checks every page passes (pages.test.mjs), for the pages of this feature. */
async function checkPage(page, label) {
  expect(await axeViolations(page), `${label}: axe`).toEqual([]);
  const viewport = page.viewportSize();
  await page.setViewportSize(PHONE);
  const { over, culprits } = await horizontalOverflow(page);
  expect(over, `${label} at 390 px: ${culprits.join(", ")}`).toBe(0);
  await page.setViewportSize(viewport);
}

beforeAll(async () => {
  app = await startApp(PORT);
});

afterAll(async () => {
  await app?.stop();
});

describe("two-factor sign-in", () => {
  it("set up TOTP on the account page, log out, sign in with the password and a code", async () => {
    const { context, page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    const { email } = await signUp(page, app.origin, "totp");

    await page.goto(`${app.origin}/app/account`);
    await checkPage(page, "/app/account, two-factor off");
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.getByRole("heading", { name: "Set up an authenticator app" }).waitFor();
    await expect.poll(() => page.getByRole("img", { name: /QR code/ }).isVisible()).toBe(true);
    const qr = await page.getByRole("img", { name: /QR code/ }).boundingBox();
    expect(qr.width).toBeGreaterThan(150); // big enough for a phone's camera
    const secret = (await page.locator("#totp-secret").textContent()).replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await checkPage(page, "the setup page");

    const enrolledAt = Date.now();
    await page.getByLabel("The 6-digit code the app shows").fill(totp(secret, enrolledAt));
    await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    await page.getByRole("heading", { name: "Save your recovery codes" }).waitFor();
    const codes = await page.locator("#recovery-codes code").allTextContents();
    expect(codes).toHaveLength(10);
    await checkPage(page, "the recovery codes");
    await page.getByRole("link", { name: "I have saved them" }).click();
    await page.getByText("Two-factor sign-in is on.").waitFor();
    await page.getByText("Recovery codes left: 10.").waitFor();
    await checkPage(page, "/app/account, two-factor on");

    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(/\/app\/login$/);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Two-step sign-in" }).waitFor();
    await checkPage(page, "the second step");
    // The next step's code: the one of the confirmation's step is used up (each code works once).
    await page.getByLabel("Code").fill(totp(secret, Math.max(Date.now(), enrolledAt + 30_000)));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(/\/app\/upload$/);
    await page.goto(`${app.origin}/app/account`);
    await page.getByText(`(${email})`).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
