// Brute-force and flooding protection for the account routes: attempts are counted per account (e-mail) and per
// client IP in the rate-limiter Durable Object before the check they guard, so a parallel burst cannot slip past.
// Login (and a password re-entered while signed in, a second factor's code, a passkey's answer) counts failures;
// password recovery counts every request.
import { LOGIN_LIMITS, PASSWORD_RESET } from "../config";
import { RateLimitError } from "../platform/errors";
import { verifyPassword } from "../platform/passwords";
import { limiterFor, type LimitState } from "../limits/rate-limiter";

/** One guarded action: its bucket in each subject's limiter, the window and the limits per account and per IP. */
export type AttemptLimit = { bucket: string; windowSeconds: number; perAccount: number; perIp: number; message: string };

const LOGIN: AttemptLimit = {
  bucket: "login-attempts",
  windowSeconds: LOGIN_LIMITS.windowSeconds,
  perAccount: LOGIN_LIMITS.failuresPerAccount,
  perIp: LOGIN_LIMITS.failuresPerIp,
  message: "Too many login attempts; try again later",
};
const recovery = (bucket: string): AttemptLimit => ({
  bucket,
  windowSeconds: PASSWORD_RESET.windowSeconds,
  perAccount: PASSWORD_RESET.perAccount,
  perIp: PASSWORD_RESET.perIp,
  message: "Too many password reset requests; try again later",
});
export const PASSWORD_FORGOT = recovery("password-forgot");
export const PASSWORD_RESETS = recovery("password-reset");

const accountLimiter = (env: Env, email: string) => limiterFor(env, `login-email:${email}`);
const ipLimiter = (env: Env, ip: string) => limiterFor(env, `login-ip:${ip}`);

function refuse(state: LimitState, message: string): never {
  const retryAfter = Math.max(1, state.reset - Math.floor(Date.now() / 1000));
  throw new RateLimitError(retryAfter, state.limit, state.reset, message);
}

/** Counts one attempt for the account and/or the IP given; throws 429 when either is over its limit. */
export async function countAttempt(env: Env, limit: AttemptLimit, who: { email?: string; ip?: string }): Promise<void> {
  const [account, byIp] = await Promise.all([
    who.email === undefined ? undefined : accountLimiter(env, who.email).hit(limit.bucket, limit.perAccount, limit.windowSeconds),
    who.ip === undefined ? undefined : ipLimiter(env, who.ip).hit(limit.bucket, limit.perIp, limit.windowSeconds),
  ]);
  if (account && !account.allowed) refuse(account, limit.message);
  if (byIp && !byIp.allowed) refuse(byIp, limit.message);
}

/** Counts one login attempt for the account and the IP; throws 429 when either is over its limit. */
export function countLoginAttempt(env: Env, email: string, ip: string): Promise<void> {
  return countAttempt(env, LOGIN, { email, ip });
}

/** A failed sign-in that names no account (a passkey no account has): counted for the IP alone. */
export function countIpLoginAttempt(env: Env, ip: string): Promise<void> {
  return countAttempt(env, LOGIN, { ip });
}

/** A successful login is not a failure: the account's count is cleared and the IP's attempt given back. */
export async function forgiveLoginAttempt(env: Env, email: string, ip: string): Promise<void> {
  await Promise.all([accountLimiter(env, email).clear(LOGIN.bucket), ipLimiter(env, ip).refund(LOGIN.bucket, LOGIN.windowSeconds)]);
}

/**
 * A secret presented for an account (a password re-entered while signed in, a second factor's code): a login
 * attempt as far as guessing goes, counted for the account and the IP before `check` runs (so a parallel
 * burst gets no extra tries, and past the limit it is a 429 whatever the secret), cleared by a success.
 */
export async function guardedCheck(env: Env, email: string, ip: string, check: () => Promise<boolean>): Promise<boolean> {
  await countLoginAttempt(env, email, ip);
  const ok = await check();
  if (ok) await forgiveLoginAttempt(env, email, ip);
  return ok;
}

/** A signed-in person re-entering their password (account deletion, password change, turning a factor off). */
export function reenteredPasswordOk(env: Env, user: { email: string; passwordHash: string }, password: string, ip: string): Promise<boolean> {
  return guardedCheck(env, user.email, ip, async () => (await verifyPassword(password, user.passwordHash)).ok);
}

/**
 * The right password of an account with a second factor: that attempt is given back, but the account's count
 * is not cleared. Only a finished second step clears it, so failed codes add up across logins (logging in
 * again must not wipe the count of wrong codes).
 */
export async function passwordStepPassed(env: Env, email: string, ip: string): Promise<void> {
  await Promise.all([accountLimiter(env, email).refund(LOGIN.bucket, LOGIN.windowSeconds), ipLimiter(env, ip).refund(LOGIN.bucket, LOGIN.windowSeconds)]);
}
