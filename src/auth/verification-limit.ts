import { VERIFICATION_LIMITS } from "../config/auth";
import { RateLimitError } from "../platform/errors";
import { limiterFor } from "../limits/rate-limiter";

/** At most a few verification mails per user per hour, so the endpoint cannot be used to flood an inbox. */
export async function resendAllowed(env: Env, userId: string): Promise<void> {
  const state = await limiterFor(env, `user:${userId}`).hit("verification-mail", VERIFICATION_LIMITS.resendsPerHour, VERIFICATION_LIMITS.windowSeconds);
  if (!state.allowed) {
    throw new RateLimitError(Math.max(1, state.reset - Math.floor(Date.now() / 1000)), state.limit, state.reset, "Too many verification e-mails; try again later");
  }
}
