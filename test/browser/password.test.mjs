// Password change and reset in chromium (extensions.md §7): "Forgot your password?" on the login page -> the mail's
// link -> the reset page -> sign in with the new password; and the account page's "Change password", which keeps
// this browser signed in and signs every other one out. The pages fit a 390 px phone, log no console error and
// have no serious axe-core violation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, PHONE, DESKTOP, axeViolations, boundedFetch, horizontalOverflow, openPage, signUp, startApp, suitePort, watch } from "./support.mjs";

const PORT = suitePort(5);
let app;

/** The reset link of the newest reset mail to `email`, once the outbox has it (the forgot route writes it after its answer). */
async function resetLink(origin, email) {
  let link;
  await expect
    .poll(
      async () => {
        const mail = await (await boundedFetch(`${origin}/api/v1/dev/outbox?to=${encodeURIComponent(email)}`)).json();
        const reset = mail.messages.find((m) => m.subject === "Reset your password");
        link = reset && /(http\S+\/reset-password\?token=\S+)/.exec(reset.text)?.[1];
        return Boolean(link);
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  return link;
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

async function logIn(page, origin, email, password) {
  await page.goto(`${origin}/app/login`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

beforeAll(async () => {
  app = await startApp(PORT);
});

afterAll(async () => {
  await app?.stop();
});

describe("password recovery and change", () => {
  it("forgot password -> the mail's link -> reset -> sign in with the new password", async () => {
    const { context: signup, page: first } = await openPage(app.browser, { viewport: DESKTOP });
    const { email } = await signUp(first, app.origin, "forgot");
    await signup.close();

    const { context, page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    await page.goto(`${app.origin}/app/login`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL(/\/app\/forgot-password$/);
    await checkPage(page, "/app/forgot-password");
    await page.getByLabel("E-mail").fill(email);
    await page.getByRole("button", { name: "Send the reset link" }).click();
    await page.getByText("If an account uses this address, a link to reset its password is on its way.").waitFor();

    await page.goto(await resetLink(app.origin, email));
    await checkPage(page, "/reset-password");
    const NEW = "a brand new passphrase";
    await page.getByLabel("New password (at least 8 characters)").fill(NEW);
    await page.getByLabel("Repeat the new password").fill(NEW);
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByText("Your password was changed.").waitFor();
    await page.getByRole("link", { name: "Log in with your new password" }).click();
    await page.waitForURL(/\/app\/login$/);

    expect(problems).toEqual([]);

    // The old password no longer opens the account (the login page answers it 401, which chromium logs); the new one does.
    await logIn(page, app.origin, email, PASSWORD);
    await page.getByText("Invalid e-mail or password").waitFor();
    await logIn(page, app.origin, email, NEW);
    await page.waitForURL(/\/app\/upload$/);
    await context.close();
  });

  it("the account page's change form: this browser stays signed in, another one is signed out", async () => {
    const { context, page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    const { email } = await signUp(page, app.origin, "change");
    const { context: elsewhere, page: other } = await openPage(app.browser, { viewport: DESKTOP });
    await logIn(other, app.origin, email, PASSWORD);
    await other.waitForURL(/\/app\/upload$/);

    await page.goto(`${app.origin}/app/account`);
    await checkPage(page, "/app/account");
    const NEW = "changed while signed in";
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByLabel("New password (at least 8 characters)").fill(NEW);
    await page.getByLabel("Repeat the new password").fill(NEW);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your password was changed. Every other device was signed out.").waitFor();

    // This browser carries the fresh session on; the other one is back at the login page.
    await page.goto(`${app.origin}/app/files`);
    expect(new URL(page.url()).pathname).toBe("/app/files");
    await other.goto(`${app.origin}/app/files`);
    expect(new URL(other.url()).pathname).toBe("/app/login");
    await logIn(other, app.origin, email, NEW);
    await other.waitForURL(/\/app\/upload$/);
    expect(problems).toEqual([]);
    await elsewhere.close();
    await context.close();
  });
});
