// The pages' typed client of the JSON API, called in-process (no network hop) through the app's own fetch,
// which the site router lends (routes.tsx: InProcessApi), so src/pages imports nothing from app.ts. The answer
// types come from the API's own zod schemas. The page's session, resolved once per page request, is lent to
// each call (auth/principal.ts lendPrincipal): the API does not check the session again.
import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/env";
import { lendPrincipal } from "../../auth/principal";
import { BOOKMARK_HEADER } from "../../middleware/db";
import type { ErrorBody, MessageBody } from "../../platform/openapi";
import type { fieldErrors } from "../../platform/validation";
import type { AccountSchema, AuthResponse, LoginRequest, SignupRequest } from "../../auth/schemas";
import type { FileList, FileSchema, FileListItemSchema, FileUpdated, ListFilesQuery, PatchFileRequest } from "../../files/schemas";
import type { AddFilesRequest, AlbumDetailSchema, AlbumFilesAdded, AlbumList, AlbumSchema, AlbumUpdated, CreateAlbumRequest, PatchAlbumRequest } from "../../albums/schemas";
import type { AccountBody, AccountDeleted, AccountPatch, AccountUpdated, DeleteAccountBody } from "../../account/schemas";
import type { ApiKey as ApiKeySchema, ApiKeyList, CreatedKey as CreatedKeySchema, CreateKeyRequest } from "../../keys/schemas";
import type { LimitsBody } from "../../limits/schemas";
import type { FinalizeResponse } from "../../uploads/schemas";
import type { QueueQuery, ReportCreated, ReportItem, ReportList, ReportRequest, ResolveRequest, ResolveResponse } from "../../moderation/schemas";

/** The app's own fetch, lent to the pages by siteRoutes(). */
export type InProcessApi = (req: Request, env: Env, ctx: Context<AppEnv>["executionCtx"]) => Response | Promise<Response>;

declare module "hono" {
  interface ContextVariableMap {
    inProcessApi: InProcessApi;
  }
}

/** The API's error body (ErrorBody), every part optional: a refused in-process call may answer anything. */
export type ApiErrorBody = Partial<Omit<z.output<typeof ErrorBody>, "details">> & {
  details?: { code?: string; fields?: ReturnType<typeof fieldErrors> } & Record<string, unknown>;
};
export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; body: ApiErrorBody };

type Out<S extends z.ZodType> = z.output<S>;
type In<S extends z.ZodType> = z.input<S>;
export type FileItem = Out<typeof FileListItemSchema>;
export type FileFull = Out<typeof FileSchema>;
export type Album = Out<typeof AlbumSchema>;
export type AlbumDetail = Out<typeof AlbumDetailSchema>;
export type Account = Out<typeof AccountSchema>;
export type UploadAnswer = Out<typeof FinalizeResponse>;
export type Report = Out<typeof ReportItem>;
export type ApiKey = Out<typeof ApiKeySchema>;
export type CreatedKey = Out<typeof CreatedKeySchema>;
export type Limits = Out<typeof LimitsBody>;
type Message = Out<typeof MessageBody>;

/** What an in-process call inherits from the page request: the client's IP, the page's D1 bookmark (the API
 *  then reads at least as fresh as the page did) and the page's session. */
function prepare(c: Context<AppEnv>, req: Request) {
  const ip = c.req.header("cf-connecting-ip");
  if (ip) req.headers.set("cf-connecting-ip", ip);
  const bookmark = c.get("dbSession")?.getBookmark();
  if (bookmark) req.headers.set(BOOKMARK_HEADER, bookmark);
  const s = c.get("pageSession");
  if (s) {
    req.headers.set("authorization", `Bearer ${s.access}`);
    lendPrincipal(req, s.principal);
  }
  return req;
}

function request(c: Context<AppEnv>, method: string, path: string, body?: unknown): Request {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers = new Headers(text === undefined ? {} : { "content-type": "application/json", "content-length": String(new TextEncoder().encode(text).byteLength) });
  return prepare(c, new Request(new URL(`/api/v1${path}`, c.req.url), { method, headers, body: text }));
}

/** Sends an in-process API request and hands back its Response unread (streamed answers: the export). */
export async function apiResponse(c: Context<AppEnv>, method: string, path: string, body?: unknown): Promise<Response> {
  return c.get("inProcessApi")(request(c, method, path, body), c.env, c.executionCtx);
}

async function read<T>(res: Response): Promise<ApiResult<T>> {
  const type = res.headers.get("content-type") ?? "";
  const body = type.includes("json") ? await res.json().catch(() => ({})) : { message: await res.text() };
  return res.ok ? { ok: true, status: res.status, body: body as T } : { ok: false, status: res.status, body: body as ApiErrorBody };
}

async function call<T>(c: Context<AppEnv>, method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  return read<T>(await apiResponse(c, method, path, body));
}

const qs = (q: Record<string, string | number | boolean | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== "") p.set(k, String(v));
  return p.size ? `?${p}` : "";
};
const id = encodeURIComponent;
type Query<S extends z.ZodType> = { [K in keyof In<S>]?: string | number | boolean | undefined };

/** The API, as the pages use it. */
export const api = {
  login: (c: Context<AppEnv>, body: In<typeof LoginRequest>) => call<Out<typeof AuthResponse>>(c, "POST", "/auth/login", body),
  signup: (c: Context<AppEnv>, body: In<typeof SignupRequest>) => call<Out<typeof AuthResponse>>(c, "POST", "/auth/signup", body),
  logout: (c: Context<AppEnv>) => call<Message>(c, "POST", "/auth/logout"),
  verifyEmail: (c: Context<AppEnv>, token: string) => call<Message & { user: Account }>(c, "POST", "/auth/verify-email", { token }),
  resendVerification: (c: Context<AppEnv>) => call<Message>(c, "POST", "/auth/resend-verification"),

  listFiles: (c: Context<AppEnv>, q: Query<typeof ListFilesQuery>) => call<Out<typeof FileList>>(c, "GET", `/files${qs(q)}`),
  getFile: (c: Context<AppEnv>, fileId: string) => call<FileFull>(c, "GET", `/files/${id(fileId)}`),
  patchFile: (c: Context<AppEnv>, fileId: string, body: In<typeof PatchFileRequest>) => call<Out<typeof FileUpdated>>(c, "PATCH", `/files/${id(fileId)}`, body),
  deleteFile: (c: Context<AppEnv>, fileId: string) => call<Message>(c, "DELETE", `/files/${id(fileId)}`),

  listAlbums: (c: Context<AppEnv>) => call<Out<typeof AlbumList>>(c, "GET", "/albums?limit=100"),
  getAlbum: (c: Context<AppEnv>, albumId: string, limit = 100) => call<AlbumDetail>(c, "GET", `/albums/${id(albumId)}?limit=${limit}`),
  createAlbum: (c: Context<AppEnv>, body: In<typeof CreateAlbumRequest>) => call<Album>(c, "POST", "/albums", body),
  patchAlbum: (c: Context<AppEnv>, albumId: string, body: In<typeof PatchAlbumRequest>) => call<Out<typeof AlbumUpdated>>(c, "PATCH", `/albums/${id(albumId)}`, body),
  addToAlbum: (c: Context<AppEnv>, albumId: string, fileIds: In<typeof AddFilesRequest>["fileIds"]) => call<Out<typeof AlbumFilesAdded>>(c, "POST", `/albums/${id(albumId)}/files`, { fileIds }),
  removeFromAlbum: (c: Context<AppEnv>, albumId: string, fileId: string) => call<Message>(c, "DELETE", `/albums/${id(albumId)}/files/${id(fileId)}`),
  deleteAlbum: (c: Context<AppEnv>, albumId: string) => call<Message>(c, "DELETE", `/albums/${id(albumId)}`),

  listKeys: (c: Context<AppEnv>) => call<Out<typeof ApiKeyList>>(c, "GET", "/keys?limit=100"),
  // Permissions as the form sent them: the API refuses unknown ones with its own message.
  createKey: (c: Context<AppEnv>, body: Omit<In<typeof CreateKeyRequest>, "permissions"> & { permissions: string[] }) => call<CreatedKey>(c, "POST", "/keys", body),
  revokeKey: (c: Context<AppEnv>, keyId: string) => call<Message>(c, "DELETE", `/keys/${id(keyId)}`),

  account: (c: Context<AppEnv>) => call<Out<typeof AccountBody>>(c, "GET", "/account"),
  limits: (c: Context<AppEnv>) => call<Limits>(c, "GET", "/account/limits"),
  patchAccount: (c: Context<AppEnv>, body: In<typeof AccountPatch>) => call<Out<typeof AccountUpdated>>(c, "PATCH", "/account", body),
  deleteAccount: (c: Context<AppEnv>, password: In<typeof DeleteAccountBody>["password"]) => call<Out<typeof AccountDeleted>>(c, "DELETE", "/account", { password }),

  report: (c: Context<AppEnv>, body: In<typeof ReportRequest>) => call<Out<typeof ReportCreated>>(c, "POST", "/moderation/report", body),
  queue: (c: Context<AppEnv>, q: Query<typeof QueueQuery>) => call<Out<typeof ReportList>>(c, "GET", `/moderation/queue${qs(q)}`),
  resolve: (c: Context<AppEnv>, reportId: string, body: In<typeof ResolveRequest>) => call<Out<typeof ResolveResponse>>(c, "POST", `/moderation/reports/${id(reportId)}/resolve`, body),

  /** The one-request upload (multipart/form-data), framed once so it carries a Content-Length. */
  async uploadForm(c: Context<AppEnv>, form: FormData): Promise<ApiResult<UploadAnswer>> {
    const url = new URL("/api/v1/upload/form", c.req.url);
    const framed = new Request(url, { method: "POST", body: form });
    const bytes = await framed.arrayBuffer();
    const headers = new Headers({ "content-type": framed.headers.get("content-type") ?? "multipart/form-data", "content-length": String(bytes.byteLength) });
    return read<UploadAnswer>(await c.get("inProcessApi")(prepare(c, new Request(url, { method: "POST", headers, body: bytes })), c.env, c.executionCtx));
  },
};

/** A sentence for a person from an API error. */
export function apiMessage(r: { ok: false; status: number; body: ApiErrorBody }): string {
  if (r.status === 429) return "Too many requests: please wait a moment and try again.";
  const fields = Array.isArray(r.body?.details?.fields) ? r.body.details.fields : [];
  const detail = fields.map((f) => `${f.path || "form"}: ${f.message}`).join("; ");
  const base = r.body?.message ?? r.body?.error ?? `Request failed (${r.status})`;
  return detail ? `${base} (${detail})` : base;
}
