// Mail end to end against `wrangler dev`: the worker delivers each mail from its queue through the EMAIL binding,
// which wrangler dev simulates (nothing leaves the machine) and lists in its local explorer. The tests find each
// mail there, never in the outbox table, open its HTML part in chromium and follow its link: sign up -> the
// verification mail -> verified; forgot password -> the reset mail -> a new password that signs in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, boundedFetch, openPage, startApp, suitePort, watch } from "./support.mjs";

const PORT = suitePort(8);
/** wrangler dev's local explorer: the mails its send_email simulation sent this session. */
const SENT = "/cdn-cgi/local/explorer/api/local/email/sending";
let app;

/** The newest mail to `to` with `subject` that the simulation sent, with its text and HTML parts (polled: delivery runs from the queue). */
async function deliveredMail(to, subject) {
  let found;
  await expect
    .poll(
      async () => {
        const list = await (await boundedFetch(`${app.origin}${SENT}?per_page=100`)).json();
        found = list.result.filter((m) => m.to.includes(to) && m.subject === subject).sort((a, b) => b.sentAt.localeCompare(a.sentAt))[0];
        return Boolean(found);
      },
      { timeout: 20_000, interval: 250 },
    )
    .toBe(true);
  const detail = await (await boundedFetch(`${app.origin}${SENT}?email_id=${encodeURIComponent(found.messageId)}`)).json();
  return detail.result;
}

/** Shows the mail's HTML part in the page, as a mail client would (outside the site and its CSP), and clicks the link named `label`. */
async function followLink(page, mail, label) {
  await page.goto("about:blank");
  await page.setContent(mail.html);
  const link = page.getByRole("link", { name: label });
  const href = await link.getAttribute("href");
  expect(href.startsWith(`${app.origin}/`), href).toBe(true);
  await Promise.all([page.waitForURL((url) => url.href === href), link.click()]);
}

/** The outbox's record of the mail: delivered, with the simulation's message id. */
async function outboxRecord(to, messageId) {
  const { messages } = await (await boundedFetch(`${app.origin}/api/v1/dev/outbox?to=${encodeURIComponent(to)}`)).json();
  return messages.find((m) => m.messageId === messageId);
}

beforeAll(async () => {
  app = await startApp(PORT);
});

afterAll(async () => {
  await app?.stop();
});

describe("mail through wrangler dev's send_email simulation", () => {
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
  const email = `mail-${stamp}@example.com`;
  const username = `mail${stamp}`;

  it("sign up -> the verification mail -> its link -> verified", async () => {
    const { context, page } = await openPage(app.browser);
    const problems = watch(page);
    await page.goto(`${app.origin}/app/signup`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Username").fill(username);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL(/\/app\/account/);

    const mail = await deliveredMail(email, "Verify your e-mail address");
    expect(mail.from).toBe('"imghost" <noreply@example.com>');
    expect(mail.text).toContain(`Hello ${username},`);
    expect(mail.text).toMatch(new RegExp(`${app.origin}/verify-email\\?token=\\S+`));
    expect(await outboxRecord(email, mail.messageId)).toMatchObject({ status: "sent", attempts: 1 });

    await followLink(page, mail, "Confirm my e-mail address");
    await page.getByRole("button", { name: "Confirm my e-mail address" }).click();
    await page.getByText("Your e-mail address is verified.").waitFor();
    await page.goto(`${app.origin}/app/account`);
    expect(await page.locator("#verified").count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("forgot password -> the reset mail -> its link -> a new password that signs in", async () => {
    const { context, page } = await openPage(app.browser);
    const problems = watch(page);
    await page.goto(`${app.origin}/app/forgot-password`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByRole("button", { name: "Send the reset link" }).click();
    await page.getByText("If an account uses this address, a link to reset its password is on its way.").waitFor();

    const mail = await deliveredMail(email, "Reset your password");
    expect(mail.text).toMatch(/reset code: \S+/);
    expect(await outboxRecord(email, mail.messageId)).toMatchObject({ status: "sent", attempts: 1 });

    await followLink(page, mail, "Choose a new password");
    const NEW = "a brand new passphrase";
    await page.getByLabel("New password (at least 8 characters)").fill(NEW);
    await page.getByLabel("Repeat the new password").fill(NEW);
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByText("Your password was changed.").waitFor();

    await page.goto(`${app.origin}/app/login`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(NEW);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/app\/upload$/);
    // The change is mailed too, through the same simulation.
    expect((await deliveredMail(email, "Your password was changed")).text).toContain("with a reset link");
    expect(problems).toEqual([]);
    await context.close();
  });
});
