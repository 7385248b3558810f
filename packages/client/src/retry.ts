// When to try a request again and how long to wait first. 429 waits as long as Retry-After says; 5xx and failures
// to reach the server wait with exponential backoff and jitter; nothing else is tried again.
import { networkError } from "./errors.js";

export type RetryOptions = { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const p = { ...DEFAULT_RETRY, ...options };
  return { attempts: Math.max(1, Math.floor(p.attempts)), baseDelayMs: Math.max(0, p.baseDelayMs), maxDelayMs: Math.max(0, p.maxDelayMs) };
}

/** The wait before try `failures + 1`: base * 2^(failures - 1), capped, with "equal jitter" (half fixed, half random). */
export function backoffMs(failures: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Retry-After in milliseconds (seconds or an HTTP date), or null without a usable one. */
export function retryAfterMs(response: Response): number | null {
  const raw = response.headers.get("retry-after");
  if (raw === null || raw.trim() === "") return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/**
 * How long to wait before trying again after `response`, or null when it is final: a success, a 4xx other than
 * 429, or a 429 whose Retry-After is beyond maxDelayMs (the server's window will not have moved by then, so a
 * retry sooner is refused again; the caller gets the 429 at once instead of after a pointless wait).
 */
export function waitAfter(response: Response, failures: number, policy: RetryPolicy): number | null {
  if (response.status === 429) {
    const wait = retryAfterMs(response) ?? backoffMs(failures, policy);
    return wait <= policy.maxDelayMs ? wait : null;
  }
  if (response.status >= 500) {
    const asked = retryAfterMs(response);
    return asked !== null && asked <= policy.maxDelayMs ? asked : backoffMs(failures, policy);
  }
  return null;
}

/** Only the caller's own signal stops the tries: any other failure to get an answer (a custom fetch's timeout too) is a network failure. */
export function isAbort(signal?: AbortSignal | null): boolean {
  return Boolean(signal?.aborted);
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  if (ms <= 0 && !signal?.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Sends with `send` (called afresh for each try, so a body is never reused) until an answer is final or the tries
 * run out; the last answer is returned as it is, whatever its status. Throws ImghostError(network_error) when the
 * last try got no answer, and the abort reason when `signal` ends the wait.
 */
export async function withRetries(send: () => Promise<Response>, policy: RetryPolicy, what: string, signal?: AbortSignal | null): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await send();
    } catch (err) {
      if (isAbort(signal)) throw err;
      if (attempt >= policy.attempts) throw networkError(err, what);
      await sleep(backoffMs(attempt, policy), signal);
      continue;
    }
    const wait = attempt < policy.attempts ? waitAfter(response, attempt, policy) : null;
    if (wait === null) return response;
    // Read to the end so the connection goes back to the pool; a failure to read it changes nothing.
    await response.arrayBuffer().catch(() => undefined);
    await sleep(wait, signal);
  }
}

/** A fetch that retries as `withRetries` does (openapi-fetch's requests go through it). */
export function retryingFetch(base: typeof fetch, policy: RetryPolicy): (request: Request) => Promise<Response> {
  return (request) => withRetries(() => base(request.clone()), policy, `${request.method} ${request.url}`, request.signal);
}
