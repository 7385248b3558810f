// Brute-force and flooding protection for the account routes: attempts are counted in the rate-limiter Durable
// Object before the check they guard, so a parallel burst cannot slip past. Login (and a password re-entered while
// signed in, a second factor's code, a passkey's answer) counts failures; password recovery counts every request.
// Who is counted for what is in config/auth.ts (LOGIN_LIMITS): nothing a stranger can send with only the address
// stops the owner for long.
import { LOGIN_LIMITS, MAIL_REQUESTS, PASSWORD_RESET } from "../config/auth";
import { RateLimitError } from "../platform/errors/errors";
import { verifyPassword } from "../platform/crypto/passwords";
import { limiterFor, type LimitState } from "../limits/rate-limiter";

/** One guarded action: its bucket in each subject's limiter, the window and the limits per account and per IP. */
export type AttemptLimit = { bucket: string; windowSeconds: number; perAccount: number; perIp: number; message: string };

const LOGIN_MESSAGE = "Too many login attempts; try again later";
/** Every failure from one IP, whatever was tried, shares this bucket in the IP's limiter. */
const LOGIN_BUCKET = "login-attempts";
/** In the address's limiter: all its wrong passwords (the ceiling), and those from one IP (the strict count). */
const PASSWORD_CEILING = "login-attempts";
const passwordFromIp = (ip: string) => `login-attempts@${ip}`;
/** In the address's limiter: wrong second-factor codes, which only someone with the password can send. */
const SECOND_FACTOR = "second-factor-attempts";

export const PASSWORD_RESETS: AttemptLimit = {
  bucket: "password-reset",
  windowSeconds: PASSWORD_RESET.windowSeconds,
  perAccount: PASSWORD_RESET.perAccount,
  perIp: PASSWORD_RESET.perIp,
  message: "Too many password reset requests; try again later",
};

/** The routes that mail on request share one bucket per recipient address and per IP (config MAIL_REQUESTS). */
const mailRequests = (message: string): AttemptLimit => ({
  bucket: "mail-requests",
  windowSeconds: MAIL_REQUESTS.windowSeconds,
  perAccount: MAIL_REQUESTS.perAddress,
  perIp: MAIL_REQUESTS.perIp,
  message,
});
export const PASSWORD_FORGOT = mailRequests("Too many password reset requests; try again later");
export const VERIFICATION_RESEND = mailRequests("Too many verification e-mails; try again later");

const accountLimiter = (env: Env, email: string) => limiterFor(env, `login-email:${email}`);
const ipLimiter = (env: Env, ip: string) => limiterFor(env, `login-ip:${ip}`);
const passkeyLimiter = (env: Env, passkeyId: string) => limiterFor(env, `login-passkey:${passkeyId}`);
const { windowSeconds } = LOGIN_LIMITS;

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

const countIp = (env: Env, ip: string) => ipLimiter(env, ip).hit(LOGIN_BUCKET, LOGIN_LIMITS.failuresPerIp, windowSeconds);

/**
 * Counts one password attempt for (address, IP), the address and the IP; throws 429 when any is over its limit.
 * The address's two buckets are counted together (all or nothing): a refused try uses up nothing there.
 */
export async function countLoginAttempt(env: Env, email: string, ip: string): Promise<void> {
  const [address, byIp] = await Promise.all([
    accountLimiter(env, email).consume([
      { name: passwordFromIp(ip), limit: LOGIN_LIMITS.failuresPerAddressAndIp, windowSeconds },
      { name: PASSWORD_CEILING, limit: LOGIN_LIMITS.failuresPerAddress, windowSeconds },
    ]),
    countIp(env, ip),
  ]);
  const full = address.hits.find((h) => !h.allowed);
  if (full) refuse(full, LOGIN_MESSAGE);
  if (!byIp.allowed) refuse(byIp, LOGIN_MESSAGE);
}

/** A failed sign-in that names no account (a passkey no account has): counted for the IP alone. */
export async function countIpLoginAttempt(env: Env, ip: string): Promise<void> {
  const byIp = await countIp(env, ip);
  if (!byIp.allowed) refuse(byIp, LOGIN_MESSAGE);
}

/**
 * A right password is not a failure: the (address, IP) count is cleared and the attempt given back to the address's
 * ceiling and the IP. The ceiling is not cleared, so the owner signing in does not reopen a distributed guess.
 */
export async function forgiveLoginAttempt(env: Env, email: string, ip: string): Promise<void> {
  const address = accountLimiter(env, email);
  await Promise.all([address.clear(passwordFromIp(ip)), address.refund(PASSWORD_CEILING, windowSeconds), ipLimiter(env, ip).refund(LOGIN_BUCKET, windowSeconds)]);
}

/** A successful password reset proves the mailbox: the address's password counts (all IPs', and the resetting IP's) start again. */
export async function clearPasswordCount(env: Env, email: string, ip: string): Promise<void> {
  const address = accountLimiter(env, email);
  await Promise.all([address.clear(PASSWORD_CEILING), address.clear(passwordFromIp(ip))]);
}

/**
 * A second-factor code presented for an account (at the second step, or to remove a factor while signed in):
 * counted per account and per IP before `check` runs (so a parallel burst gets no extra tries, and past the limit
 * it is a 429 whatever the code); a success clears the account's count of codes and gives the IP its attempt back.
 */
export async function guardedCheck(env: Env, email: string, ip: string, check: () => Promise<boolean>): Promise<boolean> {
  const [codes, byIp] = await Promise.all([accountLimiter(env, email).hit(SECOND_FACTOR, LOGIN_LIMITS.secondFactorFailuresPerAccount, windowSeconds), countIp(env, ip)]);
  if (!codes.allowed) refuse(codes, LOGIN_MESSAGE);
  if (!byIp.allowed) refuse(byIp, LOGIN_MESSAGE);
  const ok = await check();
  if (ok) await Promise.all([accountLimiter(env, email).clear(SECOND_FACTOR), ipLimiter(env, ip).refund(LOGIN_BUCKET, windowSeconds)]);
  return ok;
}

/**
 * A passkey's answer at the sign-in without a password: counted per credential and per IP, never per address, so
 * wrong passwords for the address never refuse the owner's passkey. A success clears the credential's count.
 */
export async function passkeyAnswerGuarded(env: Env, passkeyId: string, ip: string, check: () => Promise<boolean>): Promise<boolean> {
  const [byKey, byIp] = await Promise.all([passkeyLimiter(env, passkeyId).hit(LOGIN_BUCKET, LOGIN_LIMITS.failuresPerPasskey, windowSeconds), countIp(env, ip)]);
  if (!byKey.allowed) refuse(byKey, LOGIN_MESSAGE);
  if (!byIp.allowed) refuse(byIp, LOGIN_MESSAGE);
  const ok = await check();
  if (ok) await Promise.all([passkeyLimiter(env, passkeyId).clear(LOGIN_BUCKET), ipLimiter(env, ip).refund(LOGIN_BUCKET, windowSeconds)]);
  return ok;
}

/** A signed-in person re-entering their password (account deletion, password change, turning a factor off). */
export async function reenteredPasswordOk(env: Env, user: { email: string; passwordHash: string }, password: string, ip: string): Promise<boolean> {
  await countLoginAttempt(env, user.email, ip);
  const ok = (await verifyPassword(password, user.passwordHash)).ok;
  if (ok) await forgiveLoginAttempt(env, user.email, ip);
  return ok;
}

/**
 * The right password of an account with a second factor: that attempt is given back everywhere. Wrong codes are
 * counted apart (per account), so signing in again does not wipe them.
 */
export async function passwordStepPassed(env: Env, email: string, ip: string): Promise<void> {
  const address = accountLimiter(env, email);
  await Promise.all([
    address.refund(passwordFromIp(ip), windowSeconds),
    address.refund(PASSWORD_CEILING, windowSeconds),
    ipLimiter(env, ip).refund(LOGIN_BUCKET, windowSeconds),
  ]);
}
