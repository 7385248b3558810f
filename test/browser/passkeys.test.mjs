// Passkeys in chromium (extensions.md §5), with the DevTools protocol's virtual authenticator (a CTAP2 platform
// authenticator with resident keys and user verification, presence simulated): add a passkey on the account page
// (the first one shows the recovery codes), log out, sign in with the passkey alone, then with the password and the
// passkey as the second step, and remove it after its confirmation page. The server checks the real signatures the
// browser's authenticator makes. The pages fit a 390 px phone, log no console error and have no serious axe-core
// violation.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, PHONE, DESKTOP, SHOTS, axeViolations, horizontalOverflow, openPage, signUp, startApp, suitePort, watch } from "./support.mjs";

const PORT = suitePort(7);
let app;

/** The checks every page passes (pages.test.mjs), for the pages of this feature; a screenshot (git-ignored) to look at. */
async function checkPage(page, label, shot) {
  if (shot) await page.screenshot({ path: path.join(SHOTS, `passkeys-${shot}.png`), fullPage: true });
  expect(await axeViolations(page), `${label}: axe`).toEqual([]);
  const viewport = page.viewportSize();
  await page.setViewportSize(PHONE);
  const { over, culprits } = await horizontalOverflow(page);
  expect(over, `${label} at 390 px: ${culprits.join(", ")}`).toBe(0);
  await page.setViewportSize(viewport);
}

/** A virtual authenticator in this page's browser context, as a phone's or a laptop's built-in one. */
async function virtualAuthenticator(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials };
}

async function logOut(page) {
  await page.getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(/\/app\/login$/);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  app = await startApp(PORT);
});

afterAll(async () => {
  await app?.stop();
});

describe("passkeys", () => {
  it("add one on the account page, sign in with it alone, then as the second step, and remove it", async () => {
    const { context, page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    const authenticator = await virtualAuthenticator(context, page);
    const { email } = await signUp(page, app.origin, "passkey");

    await page.goto(`${app.origin}/app/account`);
    await page.getByText("No passkeys yet.").waitFor();
    // The script found WebAuthn and loaded its two modules (webauthn.js, api.js): bounded, as a loaded machine is slow.
    await expect.poll(() => page.getByRole("button", { name: "Add a passkey" }).isVisible(), { timeout: 10_000, message: "passkeys: the Add button never showed" }).toBe(true);
    await checkPage(page, "/app/account, no passkey");
    await page.getByLabel("A name for the new passkey").fill("Virtual laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByRole("heading", { name: "Save your recovery codes" }).waitFor();
    await page.getByText("Your passkey was added.").waitFor();
    expect(await page.locator("#recovery-codes code").allTextContents()).toHaveLength(10);
    await page.getByRole("link", { name: "I have saved them" }).click();
    await page.locator("#passkey-list strong", { hasText: "Virtual laptop" }).waitFor();
    await checkPage(page, "/app/account, one passkey", "account");
    // A discoverable credential for this site, holding the account's user handle.
    const [credential] = await authenticator.credentials();
    expect(credential).toMatchObject({ isResidentCredential: true, rpId: "localhost" });

    await logOut(page);
    await expect.poll(() => page.getByRole("button", { name: "Sign in with a passkey" }).isVisible(), { timeout: 10_000, message: "passkeys: the sign-in button never showed" }).toBe(true);
    await checkPage(page, "/app/login with a passkey", "login");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(/\/app\/upload$/);
    await page.goto(`${app.origin}/app/account`);
    await page.getByText(`(${email})`).waitFor();
    await page.locator("#passkey-list").getByText("last used").waitFor();

    await logOut(page);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Two-step sign-in" }).waitFor();
    await expect.poll(() => page.getByRole("button", { name: "Use a passkey" }).isVisible(), { timeout: 10_000, message: "passkeys: the second-step button never showed" }).toBe(true);
    await checkPage(page, "the second step with a passkey", "second-step");
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.waitForURL(/\/app\/upload$/);

    await page.goto(`${app.origin}/app/account`);
    await page.getByRole("link", { name: "Remove Virtual laptop" }).click();
    await page.getByRole("heading", { name: "Remove the passkey “Virtual laptop”" }).waitFor();
    await checkPage(page, "the removal's confirmation", "remove");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Remove the passkey" }).click();
    await page.getByText("The passkey was removed.").waitFor();
    await page.getByText("No passkeys yet.").waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
