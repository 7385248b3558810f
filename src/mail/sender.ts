// Who sends the mail: the EMAIL binding (Cloudflare Email Sending; simulated by wrangler dev and vitest) and the
// MAIL_FROM var, "Name <address>". Production without either would accept signups and resets and tell no one:
// the worker refuses to run instead (src/index.ts), the way it refuses OUTBOUND_ALLOW_HOSTS.

export type MailFrom = { name: string; email: string };
export type MailEnv = Pick<Env, "ENVIRONMENT" | "MAIL_FROM"> & { EMAIL?: SendEmail };

const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

/** "imghost <noreply@example.com>" -> { name, email }; null when it is not a name and an address. */
export function parseMailFrom(value: string | undefined): MailFrom | null {
  const m = /^\s*([^<>"]*?)\s*<([^<>]+)>\s*$/.exec(value ?? "");
  if (!m || !m[1] || !ADDRESS.test(m[2])) return null;
  return { name: m[1], email: m[2] };
}

/** The binding and the sender, or null when this deployment has no way to send (development without the binding). */
export function mailSender(env: MailEnv): { binding: SendEmail; from: MailFrom } | null {
  const from = parseMailFrom(env.MAIL_FROM);
  return env.EMAIL && from ? { binding: env.EMAIL, from } : null;
}

/** Why production cannot send mail, or null. */
export function mailConfigProblem(env: MailEnv): string | null {
  if (env.ENVIRONMENT !== "production") return null;
  if (!env.EMAIL) return 'there is no EMAIL binding but ENVIRONMENT is production: no mail would be sent; add [[send_email]] name = "EMAIL"';
  if (!parseMailFrom(env.MAIL_FROM)) return 'MAIL_FROM is not a name and an address ("imghost <noreply@your-domain>") but ENVIRONMENT is production: no mail would be sent';
  return null;
}
