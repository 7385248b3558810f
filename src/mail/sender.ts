// Who sends the mail: the EMAIL binding (Cloudflare Email Sending; simulated by wrangler dev and vitest) and the
// MAIL_FROM var, "Name <address>". Production without either would accept signups and resets and tell no one:
// the worker refuses to run instead (src/index.ts), the way it refuses OUTBOUND_ALLOW_HOSTS. MAIL_FROM is
// parsed, and refused, with every other var (config/env-schema.ts); the binding is checked here.
import { config, type RuntimeConfig } from "../config/env";
import type { MailFrom } from "../config/env-schema";

export type { MailFrom } from "../config/env-schema";

/** The binding and the sender, or null when this deployment has no way to send (development without the binding). */
export function mailSender(env: Env): { binding: SendEmail; from: MailFrom } | null {
  const from = config(env).mailFrom;
  return env.EMAIL && from ? { binding: env.EMAIL, from } : null;
}

/** Why production cannot send mail for want of the binding, or null. */
export function mailBindingProblem(env: Env, cfg: RuntimeConfig): string | null {
  if (cfg.environment !== "production" || env.EMAIL) return null;
  return 'there is no EMAIL binding but ENVIRONMENT is production: no mail would be sent; add [[send_email]] name = "EMAIL"';
}
