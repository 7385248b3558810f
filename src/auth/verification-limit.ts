import { VERIFICATION_RESEND, countAttempt } from "./login-guard";

/**
 * Counted per recipient address and per caller IP, together with "forgot password" (config MAIL_REQUESTS), so
 * neither route can be used to flood an inbox.
 */
export async function resendAllowed(env: Env, email: string, ip: string): Promise<void> {
  await countAttempt(env, VERIFICATION_RESEND, { email, ip });
}
