// The account's security mails: turning TOTP on is mailed like adding a passkey, and the password mails (change and
// reset) say which second factors and how many API keys remain, so a person who did not do it knows what to check.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, createKey, signup, verifiedUser, type TestUser } from "../support/api";
import { changePassword, mailsTo, requestReset, resetPassword } from "../support/password";
import { atNextStep, codeAt, confirm, enrol } from "../support/totp";
import { listPasskeys, registerPasskey, withPasskey } from "../support/passkeys";

afterEach(() => vi.useRealTimers());

const NEW_PASSWORD = "a completely new passphrase";
const mailWith = async (email: string, subject: string) => (await mailsTo(email)).filter((m) => m.subject === subject);

/** A verified account with TOTP on, a passkey named "Laptop" and two API keys. */
async function wellEquipped(): Promise<TestUser> {
  const now = atNextStep();
  const user = await verifiedUser();
  const { secret } = (await enrol(user.access)).body;
  expect((await confirm(user.access, codeAt(secret, now))).status).toBe(200);
  await withPasskey(user, "Laptop");
  await createKey(user, { name: "one" });
  await createKey(user, { name: "two" });
  return user;
}

describe("security mails", () => {
  it("turning TOTP on is mailed (on confirmation, not on enrolment)", async () => {
    const now = atNextStep();
    const user = await signup();
    const { secret } = (await enrol(user.access)).body;
    expect(await mailWith(user.email, "Two-factor sign-in was turned on")).toHaveLength(0);
    expect((await confirm(user.access, codeAt(secret, now))).status).toBe(200);
    const [mail] = await mailWith(user.email, "Two-factor sign-in was turned on");
    expect(mail).toBeDefined();
    expect(mail.text).toContain(user.email);
    expect(mail.text).toContain("If this was not you");
    expect(mail.text).toContain(`${env.SITE_URL}/app/account`);
    expect(mail.text).not.toContain(secret);
  });

  it("the password-changed mail lists the second factors and the API keys that remain", async () => {
    const user = await wellEquipped();
    expect((await changePassword(user.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
    const [mail] = await mailWith(user.email, "Your password was changed");
    expect(mail.text).toContain("authenticator app");
    expect(mail.text).toContain('passkey "Laptop"');
    expect(mail.text).toContain("2 API keys");
    expect(mail.text).toContain("If this was not you");
  });

  it("the reset mail does too; an account with none says so", async () => {
    const user = await wellEquipped();
    expect((await resetPassword(await requestReset(user.email), NEW_PASSWORD)).status).toBe(200);
    const [mail] = await mailWith(user.email, "Your password was changed");
    expect(mail.text).toContain("authenticator app");
    expect(mail.text).toContain('passkey "Laptop"');
    expect(mail.text).toContain("2 API keys");

    const bare = await signup();
    expect((await changePassword(bare.access, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
    const [plain] = await mailWith(bare.email, "Your password was changed");
    expect(plain.text).toContain("no second factor");
    expect(plain.text).toContain("no API keys");
  });
});

describe("a passkey's name in the mails", () => {
  it("control characters and line breaks are refused: 400 validation_error, nothing stored, nothing mailed", async () => {
    const user = await signup();
    for (const name of ["Laptop\n\nIf this was not you, ignore this mail", "a\rb", "a\tb", "a\u0000b", "a\u007fb", "a\u0085b", "a\u2028b", "a\u2029b", "a\u202eb", "a\u2066b"]) {
      const { reply } = await registerPasskey(user, name);
      expect([reply.status, reply.body.details?.code], JSON.stringify(name)).toEqual([400, "validation_error"]);
    }
    expect((await listPasskeys(user.access)).body.passkeys).toEqual([]);
    expect(await mailWith(user.email, "A passkey was added to your account")).toHaveLength(0);
  });

  it("is quoted, its own quotes escaped, so it cannot close the quote and speak for the mail", async () => {
    const user = await signup();
    const name = 'Laptop" was added by the support team. Nothing to do. "';
    await withPasskey(user, name);
    const [mail] = await mailWith(user.email, "A passkey was added to your account");
    expect(mail.text).toContain(JSON.stringify(name));
    expect(mail.text).not.toContain(`"${name}"`);
  });
});
