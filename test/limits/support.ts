// The vitest config runs every suite with RATE_LIMIT_MULTIPLIER=1000 so that suites signing up many users
// from one IP never meet a limit. Limit tests switch the real figures on for their own file: the env object
// imported here is the very one the worker receives, so the change applies to the worker's requests.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { limiterFor } from "../../src/limits/rate-limiter";
import { leases } from "../../src/limits/leases";

export function setMultiplier(value: string) {
  (env as { RATE_LIMIT_MULTIPLIER: string }).RATE_LIMIT_MULTIPLIER = value;
}

/** Real limits (multiplier 1) for each test of the file; users made in beforeAll are made with the high one. */
export function useRealLimits() {
  let saved = env.RATE_LIMIT_MULTIPLIER;
  beforeAll(() => {
    saved = env.RATE_LIMIT_MULTIPLIER;
  });
  beforeEach(() => setMultiplier("1"));
  afterAll(() => setMultiplier(saved));
}

let ipCounter = 0;
/** A client address no other test uses: each anonymous test starts with a fresh bucket. */
export function freshIp(): string {
  ipCounter += 1;
  return `198.51.100.${ipCounter}`;
}

/**
 * Fills a subject's bucket so that only `left` calls remain in this window (no HTTP needed), as if other
 * isolates had spent the rest: this isolate forgets the tickets it held for the subject.
 */
export async function leaveOnly(subject: string, bucket: "api" | "uploads", limit: number, left: number) {
  leases.forget(subject);
  const state = await limiterFor(env, subject).peek(bucket, limit, 3600);
  const used = limit - state.remaining;
  const cost = limit - left - used;
  if (cost > 0) await limiterFor(env, subject).hit(bucket, limit, 3600, cost);
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
