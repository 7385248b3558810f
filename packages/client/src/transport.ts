// How the upload flows talk to the API: the base URL, the caller's credentials, the fetch to use and the retry
// policy, with one place that turns a refused answer into an ImghostError.
import { errorFromResponse } from "./errors.js";
import { withRetries, type RetryPolicy } from "./retry.js";

export class Transport {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    /** The caller's bearer token (API key or access token); none for anonymous callers. */
    readonly token: string | undefined,
    private readonly fetchImpl: typeof fetch | undefined,
    readonly policy: RetryPolicy,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  /** A path under the base URL, or an absolute URL the server answered (resolved against the base URL). */
  url(pathOrUrl: string): string {
    return /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl) ? pathOrUrl : `${this.baseUrl}${pathOrUrl.startsWith("/") ? "" : "/"}${pathOrUrl}`;
  }

  headers(extra: Record<string, string> = {}, token = this.token): Headers {
    const h = new Headers(extra);
    if (token) h.set("authorization", `Bearer ${token}`);
    return h;
  }

  /** One request, no retries (the tus chunks decide themselves what to do after a failure). */
  fetch(url: string, init: RequestInit): Promise<Response> {
    return (this.fetchImpl ?? globalThis.fetch)(url, init);
  }

  /** A request tried again as the retry policy says; `init` is called for each try (a fresh body each time). */
  send(what: string, url: string, init: () => RequestInit, signal?: AbortSignal): Promise<Response> {
    return withRetries(() => this.fetch(url, { ...init(), signal }), this.policy, what, signal);
  }

  /** `send`, then the JSON of a 2xx answer, or the ImghostError of any other. */
  async json<T>(what: string, url: string, init: () => RequestInit, signal?: AbortSignal): Promise<T> {
    const res = await this.send(what, url, init, signal);
    if (!res.ok) throw await errorFromResponse(res);
    return (await res.json()) as T;
  }
}

export const jsonBody = (body: unknown): { body: string; headers: Record<string, string> } => ({
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});

const toHex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

export function base64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
