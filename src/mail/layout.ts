// The one layout every mail shares (./templates.ts): the service's name and link at the top, the body, and a
// footer saying why the person got the mail. A mail is described once, as blocks, and rendered twice, as plain text
// and as HTML, so the two parts never say different things. Everything a block holds is text: the HTML renderer
// escapes all of it, so no caller can put markup into a mail.
import { MAIL } from "../config/mail";

/**
 * A piece of a paragraph: plain text, a name someone typed (shown in double quotes, its own quotes and line
 * breaks escaped, so it cannot add lines to the text part), or a code to copy.
 */
export type Inline = string | { quoted: string } | { code: string };

export type Block =
  /** A paragraph. */
  | { p: Inline[] }
  /** Short lines kept together (facts, a list). */
  | { lines: Inline[][] }
  /** An action: the label, then the address on a line of its own (text), or a link with the address under it (HTML). */
  | { link: string; label: string };

export type MailDoc = {
  subject: string;
  /** Who the mail greets by name (a username), or null for a plain "Hello,". */
  greeting: string | null;
  blocks: Block[];
  /** Ends "You got this mail because ...": what ties this address to the mail. */
  why: string;
};

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML text or attribute value. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** A name someone typed, as a mail shows it: in double quotes, its own quotes, backslashes and line breaks escaped. */
export const quoted = (name: string): string => JSON.stringify(name);

const inlineText = (part: Inline): string => (typeof part === "string" ? part : "quoted" in part ? quoted(part.quoted) : part.code);

function inlineHtml(part: Inline): string {
  if (typeof part === "string") return escapeHtml(part);
  if ("quoted" in part) return `<strong>${escapeHtml(quoted(part.quoted))}</strong>`;
  return `<code style="font-family:ui-monospace,monospace;font-size:14px;background:#f0f0f0;padding:2px 4px;border-radius:4px;word-break:break-all">${escapeHtml(part.code)}</code>`;
}

function blockText(block: Block): string {
  if ("p" in block) return block.p.map(inlineText).join("");
  if ("lines" in block) return block.lines.map((line) => line.map(inlineText).join("")).join("\n");
  return `${block.label}:\n${block.link}`;
}

const P = 'style="margin:0 0 16px"';

function blockHtml(block: Block): string {
  if ("p" in block) return `<p ${P}>${block.p.map(inlineHtml).join("")}</p>`;
  if ("lines" in block) return `<p ${P}>${block.lines.map((line) => line.map(inlineHtml).join("")).join("<br>")}</p>`;
  const href = escapeHtml(block.link);
  return (
    `<p ${P}><a href="${href}" style="display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;padding:10px 16px;border-radius:6px;font-weight:600">${escapeHtml(block.label)}</a><br>` +
    `<span style="font-size:13px;color:#555555;word-break:break-all">${href}</span></p>`
  );
}

/** The text part. */
export function renderText(siteUrl: string, doc: MailDoc): string {
  const hello = doc.greeting === null ? "Hello," : `Hello ${doc.greeting},`;
  const body = [hello, ...doc.blocks.map(blockText)].join("\n\n");
  return `${body}\n\n-- \n${MAIL.serviceName} - ${siteUrl}\nYou got this mail because ${doc.why}.\n`;
}

/** The HTML part: one narrow column, inline styles only (mail clients drop style sheets). */
export function renderHtml(siteUrl: string, doc: MailDoc): string {
  const site = escapeHtml(siteUrl);
  const name = escapeHtml(MAIL.serviceName);
  const hello = doc.greeting === null ? "Hello," : `Hello <strong>${escapeHtml(doc.greeting)}</strong>,`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(doc.subject)}</title></head>` +
    `<body style="margin:0;padding:24px 12px;background:#f4f4f5;color:#18181b;font:16px/1.5 -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif">` +
    `<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">` +
    `<p style="margin:0 0 24px;font-size:18px;font-weight:700"><a href="${site}" style="color:#18181b;text-decoration:none">${name}</a></p>` +
    `<p ${P}>${hello}</p>${doc.blocks.map(blockHtml).join("")}` +
    `<hr style="border:none;border-top:1px solid #e4e4e7;margin:24px 0 16px">` +
    `<p style="margin:0;font-size:13px;color:#555555">${name} &middot; <a href="${site}" style="color:#555555">${site}</a><br>` +
    `You got this mail because ${escapeHtml(doc.why)}.</p></div></body></html>`
  );
}
