// The outbound half of an upload from a URL (extensions.md § 2): one deadline over the whole fetch, and redirects
// followed by hand so that every hop passes the outbound address rules (platform/outbound/outbound-address.ts) before it
// is requested. What the remote answers is judged here; its body is read by remote-body.ts.
import { URL_UPLOADS } from "../config/uploads";
import { ApiError } from "../platform/errors/errors";
import { checkOutboundUrl, outboundRules } from "../platform/outbound/outbound-address";

/** One time limit over the request, every redirect and every read of the body. */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly expired: Promise<never>;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => this.controller.abort(new DOMException(`no complete answer within ${ms} ms`, "TimeoutError")), ms);
    this.expired = new Promise<never>((_, reject) => {
      this.controller.signal.addEventListener("abort", () => reject(this.controller.signal.reason), { once: true });
    });
    this.expired.catch(() => undefined); // observed only through within()
  }

  /** Aborts fetch() and the body it streams. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get passed(): boolean {
    return this.controller.signal.aborted;
  }

  /** `work`, or a rejection when the deadline passes first (a body source that ignores the signal included). */
  within<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expired]);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

export type Fetched = { response: Response; url: URL };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const invalidUrl = (reason: string) => new ApiError("invalid_url", `This URL cannot be fetched: ${reason}`, { field: "url" });

export function fetchFailed(message: string, details: { status: number | null; reason?: string; [k: string]: unknown }) {
  return new ApiError("url_fetch_failed", message, details);
}

export function timedOut(status: number | null) {
  return fetchFailed(`The remote did not send the whole image within ${URL_UPLOADS.timeoutMs / 1000} s`, { status, reason: "timeout" });
}

/** Drops a body we will not read, so the connection is freed. */
const discard = (response: Response) => response.body?.cancel().catch(() => undefined);

/**
 * GET `raw`, following at most URL_UPLOADS.maxRedirects redirects, each target checked by the address rules
 * first (http stays allowed in production: public images). The answer is a 2xx with a body, or one of the
 * contract's errors: 400 invalid_url, 422 url_fetch_failed (non-2xx, too many redirects, unreachable, timeout).
 */
export async function fetchFollowingRedirects(env: Env, raw: string, deadline: Deadline): Promise<Fetched> {
  const rules = outboundRules(env, { httpInProduction: true });
  let target = raw;
  for (let redirects = 0; ; redirects++) {
    const checked = checkOutboundUrl(target, rules);
    if (!checked.ok) throw invalidUrl(redirects === 0 ? checked.reason : `it redirects to a URL that is not allowed (${checked.reason})`);
    let response: Response;
    try {
      response = await deadline.within(fetch(checked.url.href, { redirect: "manual", signal: deadline.signal, headers: { accept: "image/*" } }));
    } catch {
      if (deadline.passed) throw timedOut(null);
      throw fetchFailed("The remote could not be reached", { status: null, reason: "unreachable" });
    }
    const location = REDIRECTS.has(response.status) ? response.headers.get("location") : null;
    if (location === null) {
      if (response.ok) return { response, url: checked.url };
      await discard(response);
      throw fetchFailed(`The remote answered ${response.status}`, { status: response.status });
    }
    await discard(response);
    if (redirects === URL_UPLOADS.maxRedirects) {
      throw fetchFailed(`The remote redirected more than ${URL_UPLOADS.maxRedirects} times`, { status: response.status, redirects });
    }
    try {
      target = new URL(location, checked.url).href; // a relative Location is resolved against this hop
    } catch {
      throw invalidUrl("it redirects to a Location that is not a URL");
    }
  }
}
