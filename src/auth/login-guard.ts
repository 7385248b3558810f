// Brute-force protection for login: attempts are counted per account (e-mail) and per client IP in the
// rate-limiter Durable Object before the password is checked, so a parallel burst cannot slip past.
import { LOGIN_LIMITS } from "../config";
import { RateLimitError } from "../platform/errors";
import { limiterFor, type LimitState } from "../limits/rate-limiter";

const BUCKET = "login-attempts";

function stubs(env: Env, email: string, ip: string) {
  return { account: limiterFor(env, `login-email:${email}`), ip: limiterFor(env, `login-ip:${ip}`) };
}

function refuse(state: LimitState): never {
  const retryAfter = Math.max(1, state.reset - Math.floor(Date.now() / 1000));
  throw new RateLimitError(retryAfter, state.limit, state.reset, "Too many login attempts; try again later");
}

/** Counts one attempt for the account and the IP; throws 429 when either is over its limit. */
export async function countLoginAttempt(env: Env, email: string, ip: string): Promise<void> {
  const s = stubs(env, email, ip);
  const [account, byIp] = await Promise.all([
    s.account.hit(BUCKET, LOGIN_LIMITS.failuresPerAccount, LOGIN_LIMITS.windowSeconds),
    s.ip.hit(BUCKET, LOGIN_LIMITS.failuresPerIp, LOGIN_LIMITS.windowSeconds),
  ]);
  if (!account.allowed) refuse(account);
  if (!byIp.allowed) refuse(byIp);
}

/** A successful login is not a failure: the account's count is cleared and the IP's attempt given back. */
export async function forgiveLoginAttempt(env: Env, email: string, ip: string): Promise<void> {
  const s = stubs(env, email, ip);
  await Promise.all([s.account.clear(BUCKET), s.ip.refund(BUCKET, LOGIN_LIMITS.windowSeconds)]);
}
