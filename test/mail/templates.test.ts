// Every kind of mail, rendered: a text part and an HTML part in the one layout (the service's name and link, why
// the person got it), links at SITE_URL, and every piece of user-supplied text escaped in the HTML.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAIL_KINDS, renderMail, type MailContent, type MailKind } from "../../src/mail/templates";
import { escapeHtml } from "../../src/mail/layout";

const SCRIPT = `<script>alert("x")</script>`;
const at = new Date("2026-11-28T10:00:00.000Z");
const account = { username: "ada", email: "ada@example.com" };
const TOKEN = "tok_AbC-123_xyz";

/** One mail of each kind (the type makes a new kind fail to compile until it has one). */
const SAMPLES: { [K in MailKind]: Extract<MailContent, { kind: K }> } = {
  verify_email: { kind: "verify_email", username: "ada", token: TOKEN },
  password_reset: { kind: "password_reset", ...account, token: TOKEN },
  password_changed: { kind: "password_changed", ...account, at, path: "password_reset", remains: 'Second factors on the account: passkey "Laptop".\nIt has no API keys.' },
  totp_enabled: { kind: "totp_enabled", ...account, at },
  totp_disabled: { kind: "totp_disabled", ...account, at, confirmedWith: "code", passkeysLeft: false },
  passkey_added: { kind: "passkey_added", ...account, at, name: "Work laptop" },
  passkey_removed: { kind: "passkey_removed", ...account, at, name: "Old phone", confirmedWith: "password", lastFactor: true },
  moderation_escalation: { kind: "moderation_escalation", reportId: "rep_1", fileId: "file_1", reason: "csam", fileHidden: true },
  webhook_disabled: {
    kind: "webhook_disabled",
    username: "ada",
    endpoint: { id: "whe_1", url: "https://hooks.example.com/in", description: "Build server" },
    reason: "failures",
    failures: 20,
  },
};

/** What each kind must say, in both parts (beyond the layout). */
const SAYS: Record<MailKind, { subject: RegExp; text: string[]; links: string[] }> = {
  verify_email: { subject: /verify/i, text: [`verification token: ${TOKEN}`, "48 hours"], links: [`${env.SITE_URL}/verify-email?token=${TOKEN}`] },
  password_reset: { subject: /reset/i, text: [`reset code: ${TOKEN}`, "1 hour", account.email], links: [`${env.SITE_URL}/reset-password?token=${TOKEN}`] },
  password_changed: {
    subject: /password was changed/,
    text: ["2026-11-28T10:00:00.000Z", "with a reset link", 'passkey "Laptop"', "no API keys"],
    links: [`${env.SITE_URL}/app/forgot-password`, `${env.SITE_URL}/app/account`],
  },
  totp_enabled: { subject: /turned on/, text: ["authenticator app", account.email], links: [`${env.SITE_URL}/app/account`] },
  totp_disabled: { subject: /turned off/, text: ["a code from the authenticator app", "needs the password only"], links: [`${env.SITE_URL}/app/account`] },
  passkey_added: { subject: /passkey was added/, text: ['"Work laptop"', "without the password"], links: [`${env.SITE_URL}/app/account`] },
  passkey_removed: { subject: /passkey was removed/, text: ['"Old phone"', "the account's password", "needs the password only"], links: [`${env.SITE_URL}/app/account`] },
  moderation_escalation: {
    subject: /^\[Escalation\] csam report rep_1$/,
    text: ["Report: rep_1", "File: file_1 (hidden", `POST ${env.BASE_URL}/moderation/reports/rep_1/resolve`],
    links: [`${env.BASE_URL}/moderation/queue?priority=high`],
  },
  webhook_disabled: { subject: /webhook endpoint was disabled/, text: ['"https://hooks.example.com/in"', '"Build server"', "20 deliveries in a row failed"], links: [`${env.SITE_URL}/app/webhooks/whe_1`] },
};

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&middot;": "·" };
/** What a reader of the HTML part sees: its text without the tags. */
const visible = (html: string) => html.replace(/<[^>]*>/g, "").replace(/&[a-z0-9#]+;/g, (e) => ENTITIES[e] ?? e);
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1].replaceAll("&amp;", "&"));

describe("mail templates", () => {
  it("cover every kind queueMail sends", () => {
    expect([...MAIL_KINDS].sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  describe.each(MAIL_KINDS)("%s", (kind) => {
    const mail = renderMail(env, SAMPLES[kind]);
    const says = SAYS[kind];

    it("has a subject, a text part and an HTML part saying the same things", () => {
      expect(mail.kind).toBe(kind);
      expect(mail.subject).toMatch(says.subject);
      for (const phrase of says.text) {
        expect(mail.text).toContain(phrase);
        expect(visible(mail.html)).toContain(phrase);
      }
      expect(mail.html).toMatch(/^<!doctype html><html lang="en">/);
      expect(mail.html).toContain(`<title>${escapeHtml(mail.subject)}</title>`);
    });

    it("shares the layout: the service's name and link, and why the person got it", () => {
      expect(mail.text).toMatch(new RegExp(`\\n-- \\nimghost - ${env.SITE_URL.replace(/[.:/]/g, "\\$&")}\\nYou got this mail because [^\\n]+\\.\\n$`));
      expect(mail.html).toContain(`<a href="${env.SITE_URL}" style="color:#18181b;text-decoration:none">imghost</a>`);
      expect(mail.html).toMatch(/You got this mail because [^<]+\.<\/p><\/div><\/body><\/html>$/);
    });

    it("links only to the service's own addresses, each one in both parts", () => {
      for (const link of says.links) {
        expect(mail.text).toContain(`:\n${link}\n`);
        expect(hrefs(mail.html)).toContain(link);
      }
      for (const href of hrefs(mail.html)) expect(href.startsWith(env.SITE_URL) || href.startsWith(env.BASE_URL), href).toBe(true);
    });
  });

  it("escapes <script> in a username and in titles (a passkey's name, a webhook's description and URL)", () => {
    const hostile: MailContent[] = [
      { kind: "verify_email", username: SCRIPT, token: TOKEN },
      { kind: "passkey_added", ...account, username: SCRIPT, at, name: `Laptop ${SCRIPT}` },
      { kind: "passkey_removed", ...account, username: SCRIPT, at, name: `"${SCRIPT}\nInjected line`, confirmedWith: "code", lastFactor: false },
      {
        kind: "webhook_disabled",
        username: SCRIPT,
        endpoint: { id: "whe_2", url: `https://x.example/"><script>1</script>`, description: `Title ${SCRIPT}\nSecond line` },
        reason: "gone",
        failures: 20,
      },
    ];
    for (const content of hostile) {
      const { text, html } = renderMail(env, content);
      expect(html, content.kind).not.toMatch(/<script|<\/script/i);
      expect(html).toContain(`Hello <strong>${escapeHtml(SCRIPT)}</strong>,`);
      expect(html).toContain("&lt;script&gt;");
      // The text part is plain text: the name is shown as typed, but quoted, so a line break cannot add a line.
      expect(text).toContain(`Hello ${SCRIPT},`);
      expect(text).not.toMatch(/^Injected line|^Second line/m);
    }
    // The webhook's URL is shown, never linked.
    const webhook = renderMail(env, hostile[3]);
    expect(hrefs(webhook.html).some((h) => h.includes("x.example"))).toBe(false);
    expect(webhook.html).toContain(escapeHtml(JSON.stringify(`Title ${SCRIPT}\nSecond line`)));
  });
});
