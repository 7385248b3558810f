// Every mail the service sends, one function per kind, all in the one layout of ./layout.ts. Callers pass facts
// (a username, a token, a time); the words, the links (at SITE_URL, or BASE_URL for the moderation API) and the
// reason the person got the mail are decided here.
import { apiUrl } from "../platform/http/urls";
import { pathOf } from "@imghost/client";
import { renderHtml, renderText, type Block, type MailDoc } from "./layout";
import { config } from "../config/env";

type Account = { username: string; email: string };
type Confirmation = "password" | "code";

/** What a mail is about: its kind and the facts it tells. */
export type MailContent =
  | { kind: "verify_email"; username: string; token: string }
  | ({ kind: "password_reset"; token: string } & Account)
  | ({ kind: "password_changed"; at: Date; path: "password_change" | "password_reset"; remains: string } & Account)
  | ({ kind: "totp_enabled"; at: Date } & Account)
  | ({ kind: "totp_disabled"; at: Date; confirmedWith: Confirmation; passkeysLeft: boolean } & Account)
  | ({ kind: "passkey_added"; at: Date; name: string } & Account)
  | ({ kind: "passkey_removed"; at: Date; name: string; confirmedWith: Confirmation; lastFactor: boolean } & Account)
  | { kind: "moderation_escalation"; reportId: string; fileId: string; reason: string; fileHidden: boolean }
  | { kind: "webhook_disabled"; username: string; endpoint: { id: string; url: string; description: string }; reason: "gone" | "failures"; failures: number };

export type MailKind = MailContent["kind"];
export type RenderedMail = { kind: MailKind; subject: string; text: string; html: string };

type Of<K extends MailKind> = Extract<MailContent, { kind: K }>;
type Template<K extends MailKind> = (env: Env, mail: Of<K>) => MailDoc;

const ACCOUNT_WHY = "it is the address of an imghost account, and we tell an account of every change to how it signs in";
const accountPage = (env: Env) => `${config(env).siteUrl}/app/account`;
const confirmed = (how: Confirmation) => (how === "password" ? "the account's password" : "a code from the authenticator app");
const SIGNED_OUT = "Every other device signed in to the account has been signed out.";
/** What a security notice ends with: what to do if the change was not the owner's, and the account page. */
const notYou = (env: Env, what: string): Block[] => [{ p: [`If this was not you, ${what}.`] }, { label: "Your account", link: accountPage(env) }];

const TEMPLATES: { [K in MailKind]: Template<K> } = {
  verify_email: (env, m) => ({
    subject: "Verify your e-mail address",
    greeting: m.username,
    blocks: [
      { p: ["Welcome! Confirm your e-mail address by opening this link."] },
      { label: "Confirm my e-mail address", link: `${config(env).siteUrl}/verify-email?token=${encodeURIComponent(m.token)}` },
      { p: ["Or paste this verification token: ", { code: m.token }] },
      { p: ["The link expires in 48 hours."] },
    ],
    why: "someone signed up with this address, or asked for the verification mail again; if it was not you, ignore this mail",
  }),
  password_reset: (env, m) => ({
    subject: "Reset your password",
    greeting: m.username,
    blocks: [
      { p: [`Someone asked to reset the password of the imghost account ${m.email}. To choose a new one, open this link.`] },
      { label: "Choose a new password", link: `${config(env).siteUrl}/reset-password?token=${encodeURIComponent(m.token)}` },
      { p: ["Or paste this reset code: ", { code: m.token }] },
      { p: ["The link works once, for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is."] },
    ],
    why: "someone asked for a password reset for this address",
  }),
  password_changed: (env, m) => ({
    subject: "Your password was changed",
    greeting: m.username,
    blocks: [
      {
        p: [
          `The password of the imghost account ${m.email} was changed on ${m.at.toISOString()} `,
          m.path === "password_change"
            ? `from a signed-in session. ${SIGNED_OUT}`
            : "with a reset link sent to this address. Every device signed in to the account has been signed out.",
        ],
      },
      { lines: m.remains.split("\n").map((line) => [line]) },
      { p: ["If this was not you, reset the password now, then remove any second factor or API key you do not recognise."] },
      { label: "Reset the password", link: `${config(env).siteUrl}/app/forgot-password` },
      { label: "Your account", link: accountPage(env) },
    ],
    why: ACCOUNT_WHY,
  }),
  totp_enabled: (env, m) => ({
    subject: "Two-factor sign-in was turned on",
    greeting: m.username,
    blocks: [
      {
        p: [
          `Two-factor sign-in with an authenticator app was turned on for the imghost account ${m.email} on ${m.at.toISOString()}. `,
          "Signing in now asks for a code from that app after the password.",
        ],
      },
      ...notYou(env, "change your password now and turn it off"),
    ],
    why: ACCOUNT_WHY,
  }),
  totp_disabled: (env, m) => ({
    subject: "Two-factor sign-in was turned off",
    greeting: m.username,
    blocks: [
      {
        p: [
          `Two-factor sign-in (authenticator app) of the imghost account ${m.email} was turned off on ${m.at.toISOString()}, `,
          `confirmed with ${confirmed(m.confirmedWith)}. `,
          m.passkeysLeft
            ? "Signing in still asks for one of the account's passkeys (or a recovery code) after the password. "
            : "Signing in now needs the password only, and the recovery codes no longer work. ",
          SIGNED_OUT,
        ],
      },
      ...notYou(env, "change your password now and turn two-factor sign-in on again"),
    ],
    why: ACCOUNT_WHY,
  }),
  passkey_added: (env, m) => ({
    subject: "A passkey was added to your account",
    greeting: m.username,
    blocks: [
      {
        p: [
          "The passkey ",
          { quoted: m.name },
          ` was added to the imghost account ${m.email} on ${m.at.toISOString()}. It can sign in to the account without the password.`,
        ],
      },
      ...notYou(env, "remove it and change your password now"),
    ],
    why: ACCOUNT_WHY,
  }),
  passkey_removed: (env, m) => ({
    subject: "A passkey was removed from your account",
    greeting: m.username,
    blocks: [
      {
        p: [
          "The passkey ",
          { quoted: m.name },
          ` was removed from the imghost account ${m.email} on ${m.at.toISOString()}, confirmed with ${confirmed(m.confirmedWith)}. `,
          m.lastFactor ? "Signing in now needs the password only, and the recovery codes no longer work. " : "The account's other second factors still apply. ",
          SIGNED_OUT,
        ],
      },
      ...notYou(env, "change your password now and check your second factors"),
    ],
    why: ACCOUNT_WHY,
  }),
  // No reporter contact or free text: moderators read those in the queue, behind their login.
  moderation_escalation: (env, m) => ({
    subject: `[Escalation] ${m.reason} report ${m.reportId}`,
    greeting: null,
    blocks: [
      { p: [`A ${m.reason} report needs urgent review.`] },
      { lines: [[`Report: ${m.reportId}`], [`File: ${m.fileId}${m.fileHidden ? " (hidden from everyone until the report is resolved)" : ""}`]] },
      { label: "The high-priority queue", link: apiUrl(env, `${pathOf("moderation.queue")}?priority=high`) },
      { p: [`Resolve it with POST ${apiUrl(env, pathOf("moderation.resolve", { id: m.reportId }))}`] },
    ],
    why: "this address belongs to a moderator or an administrator of imghost",
  }),
  webhook_disabled: (env, m) => {
    const why = m.reason === "gone" ? "it answered 410 Gone, which asks us to stop sending" : `its last ${m.failures} deliveries in a row failed`;
    // The URL is shown, never linked: it is the owner's text, and a mail must not lead anyone to it.
    const blocks: Block[] = [
      {
        p: [
          "We stopped sending webhooks to ",
          { quoted: m.endpoint.url },
          ...(m.endpoint.description ? [" (", { quoted: m.endpoint.description }, ")"] : []),
          `, endpoint ${m.endpoint.id}, because ${why}.`,
        ],
      },
      { p: ["Events that happen while it is disabled are not sent to it. Once it works again, turn it back on in your account."] },
      { label: "The endpoint's page", link: `${config(env).siteUrl}/app/webhooks/${m.endpoint.id}` },
      { p: [`Or with PATCH ${apiUrl(env, pathOf("webhooks.update", { id: m.endpoint.id }))} and {"enabled": true}.`] },
    ];
    return { subject: "A webhook endpoint was disabled", greeting: m.username, blocks, why: "you own this webhook endpoint" };
  },
};

export const MAIL_KINDS = Object.keys(TEMPLATES) as MailKind[];

/** The mail's subject, text part and HTML part. */
export function renderMail(env: Env, content: MailContent): RenderedMail {
  const doc = (TEMPLATES[content.kind] as Template<MailKind>)(env, content);
  return { kind: content.kind, subject: doc.subject, text: renderText(config(env).siteUrl, doc), html: renderHtml(config(env).siteUrl, doc) };
}
