// Helpers for the password change and reset tests (extensions.md §7): the three routes, and the mails they send.
import { call, type Reply } from "./api";

let ipCounter = 0;
/** A client address no other test of the file uses, so per-IP limits of one test do not reach another. */
export const freshIp = () => `192.0.2.${++ipCounter}`;

export const changePassword = (token: string, body: unknown, ip = freshIp()): Promise<Reply> => call("/auth/password", { token, body, ip });
export const forgotPassword = (email: string, ip = freshIp()): Promise<Reply> => call("/auth/password/forgot", { body: { email }, ip });
export const resetPassword = (token: string, newPassword: string, ip = freshIp()): Promise<Reply> => call("/auth/password/reset", { body: { token, newPassword }, ip });
export const loginWith = (email: string, password: string): Promise<Reply> => call("/auth/login", { body: { email, password }, ip: freshIp() });

export type Mail = { to: string; subject: string; text: string; createdAt: string };

/** The address's mails, newest first (the dev outbox, as decisions.md describes it). */
export async function mailsTo(email: string): Promise<Mail[]> {
  return (await call(`/dev/outbox?to=${encodeURIComponent(email)}`)).body.messages;
}

/**
 * The forgot route answers before the address is looked up (the queue's consumer writes the mail after the
 * answer): waits, up to 5 s, until the address has `count` reset mails, and returns them newest first.
 */
export async function resetMails(email: string, count = 1): Promise<Mail[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const mails = (await mailsTo(email)).filter((m) => /reset/i.test(m.subject));
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The token in a reset mail (the code line, and the same token in the link). */
export function resetTokenOf(mail: Mail): string {
  const m = /reset code: (\S+)/.exec(mail.text);
  if (!m) throw new Error(`no reset code in: ${mail.text}`);
  return m[1];
}

/** Asks for a reset of `email` and returns the token its mail carries. */
export async function requestReset(email: string): Promise<string> {
  const before = (await resetMails(email, 0)).length;
  const res = await forgotPassword(email);
  if (res.status !== 202) throw new Error(`forgot failed: ${res.status} ${res.text}`);
  const mails = await resetMails(email, before + 1);
  if (mails.length <= before) throw new Error("no reset mail arrived");
  return resetTokenOf(mails[0]);
}
