// The browser script's calls to the JSON API, through @imghost/client (typed paths, bodies and answers; its one
// uploader, direct or tus). The Bearer token is this page's, from GET /app/token (the session cookie never
// reaches the API); an access token lives minutes, so a 401 gets a fresh one and the request is sent once more.
import { createClient, errorFromBody, localStorageResumeStore, ImghostError, type ImghostClient } from "@imghost/client";
import { API_BASE } from "../../platform/http/api-endpoints";

export { ImghostError };
export type { FinalizeResponse as Finalized } from "@imghost/client";

let token: Promise<string> | null = null;

/** A fresh access token for this page's session (SameSite=Strict cookie + the custom header). */
export function getToken(): Promise<string> {
  const fresh = fetch("/app/token", { headers: { "X-Requested-With": "imghost" }, credentials: "same-origin" }).then(async (r) => {
    if (!r.ok) throw new ImghostError({ status: r.status, code: "session_ended", message: "Your session ended: log in again." });
    return ((await r.json()) as { access_token: string }).access_token;
  });
  token = fresh;
  fresh.catch(() => (token = null)); // the next request asks again
  return fresh;
}

/** Called with the bytes of a request body sent so far (XMLHttpRequest's upload progress; fetch has none) and the
 *  request's headers (a tus chunk's Upload-Offset says where its bytes start). */
export type OnSent = (loaded: number, headers: Headers) => void;

/** One request through XMLHttpRequest, answered as fetch answers: its upload progress is observable. */
function viaXhr(req: Request, headers: Headers, body: ArrayBuffer, onSent: OnSent): Promise<Response> {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open(req.method, req.url);
    x.responseType = "arraybuffer";
    headers.forEach((value, name) => x.setRequestHeader(name, value));
    x.upload.onprogress = (e) => onSent(e.loaded, headers);
    x.onload = () => {
      const answered = new Headers();
      for (const line of x.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
        const at = line.indexOf(":");
        if (at > 0) answered.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      const empty = req.method === "HEAD" || x.status === 204 || x.status === 304;
      resolve(new Response(empty ? null : (x.response as ArrayBuffer), { status: x.status, statusText: x.statusText, headers: answered }));
    };
    x.onerror = x.ontimeout = () => reject(new TypeError("Network error"));
    x.onabort = () => reject(new DOMException("The upload was stopped", "AbortError"));
    req.signal.addEventListener("abort", () => x.abort(), { once: true });
    x.send(body);
  });
}

/** fetch with this page's token; bytes going up (PUT, PATCH) through XMLHttpRequest when `onSent` listens. The body
 *  is read once, so the request can be sent again after a 401. */
function pageFetch(onSent?: OnSent): typeof fetch {
  const send = async (req: Request, body: ArrayBuffer | null): Promise<Response> => {
    const headers = new Headers(req.headers);
    headers.set("authorization", `Bearer ${await (token ?? getToken())}`);
    if (onSent && body && (req.method === "PUT" || req.method === "PATCH")) return viaXhr(req, headers, body, onSent);
    return fetch(req.url, { method: req.method, headers, body, signal: req.signal });
  };
  return async (input, init) => {
    const req = new Request(input, init);
    const body = req.method === "GET" || req.method === "HEAD" ? null : await req.arrayBuffer();
    const res = await send(req, body);
    if (res.status !== 401) return res;
    await getToken().catch(() => undefined);
    return send(req, body);
  };
}

/** The API for this page; `onSent` (uploads) reports each request body's progress. */
export function api(options: { onSent?: OnSent; retry?: { attempts: number; baseDelayMs: number; maxDelayMs: number }; anonymous?: boolean } = {}): ImghostClient {
  // The token goes on each request (pageFetch), not into the client: it changes while the page is open. A page
  // without a session (the login page's passkey) sends none.
  const baseUrl = location.origin + API_BASE;
  return createClient({ baseUrl, fetch: options.anonymous ? (input, init) => fetch(input, init) : pageFetch(options.onSent), retry: options.retry ?? { attempts: 1 } });
}

/** Unfinished large uploads, remembered in localStorage: the same file picked again after a reload resumes. */
export const resumeStore = localStorageResumeStore();

/** A typed call's answer, or its refusal thrown as an ImghostError. */
export async function answerOf<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined || data === null) throw errorFromBody(response, error);
  return data;
}

