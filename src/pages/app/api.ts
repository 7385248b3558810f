// The pages call the JSON API through @imghost/client's typed client, generated from docs/openapi.json, so a wrong
// pairing of operation, parameters and answer does not compile. Its fetch dispatches in-process through the app's
// own fetch, lent by the site router (routes.tsx: InProcessApi), so src/pages imports nothing from app.ts; the page's
// session is lent on the execution context (auth/principal.ts lendPrincipal) and not checked again.
import { API_BASE } from "../../platform/http/api-endpoints";
import type { Context } from "hono";
import { createClient, ImghostError, type components, type ImghostClient } from "@imghost/client";
import type { AppEnv } from "../../platform/http/env";
import { lendPrincipal } from "../../auth/principal";
import { BOOKMARK_HEADER } from "../../middleware/db";

/** The app's own fetch, lent to the pages by siteRoutes(). */
export type InProcessApi = (req: Request, env: Env, ctx: Context<AppEnv>["executionCtx"]) => Response | Promise<Response>;

declare module "hono" {
  interface ContextVariableMap {
    inProcessApi: InProcessApi;
    /** The page request's API client, made on its first call (clientOf). */
    apiClient: ImghostClient;
  }
}

/** The API's shapes, generated from docs/openapi.json. */
export type Schemas = components["schemas"];
/** The API's error body, every part optional: a refused in-process call may answer anything. */
export type ApiErrorBody = Partial<Omit<Schemas["Error"], "details">> & {
  details?: { code?: string; fields?: { path: string; message: string }[] } & Record<string, unknown>;
};
export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; body: ApiErrorBody };

export type FileItem = Schemas["FileListItem"];
export type FileFull = Schemas["File"];
export type Album = Schemas["Album"];
export type AlbumDetail = Album & { files: FileItem[]; pagination: Schemas["Pagination"] };
export type UploadAnswer = Schemas["FinalizeResponse"];
export type ApiKey = Schemas["ApiKey"];
export type Webhook = Schemas["WebhookEndpoint"];
export type WebhookAttempt = Schemas["WebhookAttempt"];
export type SecondFactors = Schemas["SecondFactorStatus"];
export type Passkeys = Schemas["Passkey"][];

/** The typed client of one page request. */
export type Api = ImghostClient["raw"];

/** What an in-process call inherits from the page request: the client's IP, the page's D1 bookmark (the API
 *  then reads at least as fresh as the page did) and the page's session. The body is framed once, so the API
 *  sees a Content-Length (the upload routes require one). */
function inProcessFetch(c: Context<AppEnv>): typeof fetch {
  return async (input, init) => {
    const sent = new Request(input, init);
    const body = sent.body ? await sent.arrayBuffer() : undefined;
    const headers = new Headers(sent.headers);
    if (body) headers.set("content-length", String(body.byteLength));
    const ip = c.req.header("cf-connecting-ip");
    if (ip) headers.set("cf-connecting-ip", ip);
    const bookmark = c.get("dbs").bookmark();
    if (bookmark) headers.set(BOOKMARK_HEADER, bookmark);
    const req = new Request(sent.url, { method: sent.method, headers, body });
    const s = c.get("pageSession");
    return c.get("inProcessApi")(req, c.env, s ? lendPrincipal(c.executionCtx, s.principal) : c.executionCtx);
  };
}

/** The client of this page request: the session's bearer token, no retries (a 429 is the page's to explain). */
function clientOf(c: Context<AppEnv>): ImghostClient {
  let client = c.get("apiClient");
  if (!client) {
    const baseUrl = new URL(API_BASE, c.req.url).href;
    client = createClient({ baseUrl, accessToken: c.get("pageSession")?.access, fetch: inProcessFetch(c), retry: { attempts: 1 } });
    c.set("apiClient", client);
  }
  return client;
}

/** The API as this page request calls it (the client's typed openapi-fetch client). */
export const apiOf = (c: Context<AppEnv>): Api => clientOf(c).raw;

/** openapi-fetch's answer as the pages read it: ok with the answer's body, or the API's error body. */
export async function result<R extends { data?: unknown; error?: unknown; response: Response }>(call: R | Promise<R>): Promise<ApiResult<NonNullable<R["data"]>>> {
  const { data, error, response } = await call;
  if (response.ok) return { ok: true, status: response.status, body: data as NonNullable<R["data"]> };
  // A body that was not JSON arrives as its text.
  const body = typeof error === "string" ? { message: error } : ((error ?? {}) as ApiErrorBody);
  return { ok: false, status: response.status, body };
}

/** POST /upload/form (the client's uploadForm: the document names no body for it), answered as `result` does. */
export async function uploadForm(c: Context<AppEnv>, form: FormData): Promise<ApiResult<Schemas["FormUploadResponse"]>> {
  try {
    return { ok: true, status: 201, body: await clientOf(c).uploadForm(form) };
  } catch (err) {
    if (!(err instanceof ImghostError)) throw err;
    return { ok: false, status: err.status, body: (typeof err.body === "object" && err.body ? err.body : { message: err.message }) as ApiErrorBody };
  }
}

/** A query without its empty fields (an empty form field means "any", not "the empty string"). */
export function compact<const Q extends Record<string, unknown>>(q: Q): Q {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== "")) as Q;
}

/** A sentence for a person from an API error. */
export function apiMessage(r: { ok: false; status: number; body: ApiErrorBody }): string {
  if (r.status === 429) return "Too many requests: please wait a moment and try again.";
  const fields = Array.isArray(r.body?.details?.fields) ? r.body.details.fields : [];
  const detail = fields.map((f) => `${f.path || "form"}: ${f.message}`).join("; ");
  const base = r.body?.message ?? r.body?.error ?? `Request failed (${r.status})`;
  return detail ? `${base} (${detail})` : base;
}
