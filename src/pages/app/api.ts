// The pages' typed client of the JSON API, called in-process (no network hop) through the app's own fetch,
// which the site router lends (routes.tsx: InProcessApi), so src/pages imports nothing from app.ts. The answer
// types come from the API's own zod schemas. The page's session, resolved once per page request, is lent to
// each call (auth/principal.ts lendPrincipal): the API does not check the session again.
import { API_BASE, ENDPOINTS, endpointPath, type Endpoint } from "../../platform/api-endpoints";
import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/env";
import { lendPrincipal } from "../../auth/principal";
import { BOOKMARK_HEADER } from "../../middleware/db";
import type { ErrorBody, MessageBody } from "../../platform/openapi";
import type { fieldErrors } from "../../platform/validation";
import type {
  AccountSchema,
  AuthResponse,
  ChangePasswordRequest,
  LoginRequest,
  LoginResponse,
  LoginSecondStepRequest,
  OthersSignedOut,
  PasswordChanged,
  RecoveryCodes,
  ResetPasswordRequest,
  SecondFactorStatus,
  SignupRequest,
  TotpEnrolment,
  TotpTurnOffRequest,
} from "../../auth/schemas";
import type { PasskeyAdded, PasskeyList, PasskeyRegistrationRequest, PasskeyRemovalRequest, PasskeySignInRequest } from "../../auth/passkey-schemas";
import type { FileList, FileSchema, FileListItemSchema, FileUpdated, ListFilesQuery, PatchFileRequest } from "../../files/schemas";
import type { SignedUrl, SignedUrlRequest } from "../../files/signed-url-schemas";
import type { AddFilesRequest, AlbumDetailSchema, AlbumFilesAdded, AlbumList, AlbumSchema, AlbumUpdated, CreateAlbumRequest, PatchAlbumRequest } from "../../albums/schemas";
import type { AccountBody, AccountDeleted, AccountPatch, AccountUpdated, DeleteAccountBody } from "../../account/schemas";
import type { ApiKey as ApiKeySchema, ApiKeyList, CreatedKey as CreatedKeySchema, CreateKeyRequest } from "../../keys/schemas";
import type { LimitsBody } from "../../limits/schemas";
import type { CreatedWebhook, CreateWebhookRequest, QueuedDelivery, UpdateWebhookRequest, WebhookAttemptList, WebhookEndpoint, WebhookList } from "../../webhooks/schemas";
import type { FinalizeResponse, UrlUploadRequest } from "../../uploads/schemas";
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
export type Webhook = Out<typeof WebhookEndpoint>;
export type WebhookAttempt = Out<typeof WebhookAttemptList>["deliveries"][number];
export type SecondFactors = Out<typeof SecondFactorStatus>;
export type Passkeys = Out<typeof PasskeyList>["passkeys"];
/** A browser's WebAuthn answer as a form carried it (parsed JSON, unchecked): the API checks it. */
type Answer<S extends z.ZodObject> = Omit<In<S>, "response"> & { response: unknown };
type Message = Out<typeof MessageBody>;

/** What an in-process call inherits from the page request: the client's IP, the page's D1 bookmark (the API
 *  then reads at least as fresh as the page did) and the page's session. */
function prepare(c: Context<AppEnv>, req: Request) {
  const ip = c.req.header("cf-connecting-ip");
  if (ip) req.headers.set("cf-connecting-ip", ip);
  const bookmark = c.var.dbs.bookmark();
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
  return prepare(c, new Request(new URL(`${API_BASE}${path}`, c.req.url), { method, headers, body: text }));
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
/** An endpoint as call() takes it: its method and its filled-in path. */
const at = (e: Endpoint, params?: Record<string, string>, query?: string) => [e.method, endpointPath(e, params, query)] as const;
type Query<S extends z.ZodType> = { [K in keyof In<S>]?: string | number | boolean | undefined };

/** The API, as the pages use it. */
export const api = {
  /** The session, or (an account with a second factor) the mfaToken for loginSecondStep. */
  login: (c: Context<AppEnv>, body: In<typeof LoginRequest>) => call<Out<typeof LoginResponse>>(c, ...at(ENDPOINTS.login), body),
  loginSecondStep: (c: Context<AppEnv>, body: In<typeof LoginSecondStepRequest>) => call<Out<typeof AuthResponse>>(c, ...at(ENDPOINTS.loginSecondStep), body),
  signup: (c: Context<AppEnv>, body: In<typeof SignupRequest>) => call<Out<typeof AuthResponse>>(c, ...at(ENDPOINTS.signup), body),
  logout: (c: Context<AppEnv>) => call<Message>(c, ...at(ENDPOINTS.logout)),
  logoutOthers: (c: Context<AppEnv>) => call<Out<typeof OthersSignedOut>>(c, ...at(ENDPOINTS.logoutOthers)),
  verifyEmail: (c: Context<AppEnv>, token: string) => call<Message & { user: Account }>(c, ...at(ENDPOINTS.verifyEmail), { token }),
  resendVerification: (c: Context<AppEnv>) => call<Message>(c, ...at(ENDPOINTS.resendVerification)),
  changePassword: (c: Context<AppEnv>, body: In<typeof ChangePasswordRequest>) => call<Out<typeof PasswordChanged>>(c, ...at(ENDPOINTS.changePassword), body),
  forgotPassword: (c: Context<AppEnv>, email: string) => call<Message>(c, ...at(ENDPOINTS.forgotPassword), { email }),
  resetPassword: (c: Context<AppEnv>, body: In<typeof ResetPasswordRequest>) => call<Message>(c, ...at(ENDPOINTS.resetPassword), body),
  secondFactors: (c: Context<AppEnv>) => call<SecondFactors>(c, ...at(ENDPOINTS.secondFactors)),
  enrolTotp: (c: Context<AppEnv>) => call<Out<typeof TotpEnrolment>>(c, ...at(ENDPOINTS.enrolTotp)),
  confirmTotp: (c: Context<AppEnv>, code: string) => call<Out<typeof RecoveryCodes>>(c, ...at(ENDPOINTS.confirmTotp), { code }),
  turnOffTotp: (c: Context<AppEnv>, body: In<typeof TotpTurnOffRequest>) => call<Message>(c, ...at(ENDPOINTS.turnOffTotp), body),
  listPasskeys: (c: Context<AppEnv>) => call<Out<typeof PasskeyList>>(c, ...at(ENDPOINTS.listPasskeys)),
  addPasskey: (c: Context<AppEnv>, body: Answer<typeof PasskeyRegistrationRequest>) => call<Out<typeof PasskeyAdded>>(c, ...at(ENDPOINTS.addPasskey), body),
  removePasskey: (c: Context<AppEnv>, passkeyId: string, body: In<typeof PasskeyRemovalRequest>) => call<Message>(c, ...at(ENDPOINTS.removePasskey, { id: passkeyId }), body),
  /** With an mfaToken, the second step; without, a sign-in of its own. Both answer as login does. */
  passkeySignIn: (c: Context<AppEnv>, body: Answer<typeof PasskeySignInRequest>) => call<Out<typeof AuthResponse>>(c, ...at(ENDPOINTS.passkeySignIn), body),

  listFiles: (c: Context<AppEnv>, q: Query<typeof ListFilesQuery>) => call<Out<typeof FileList>>(c, ...at(ENDPOINTS.listFiles, {}, qs(q))),
  getFile: (c: Context<AppEnv>, fileId: string) => call<FileFull>(c, ...at(ENDPOINTS.getFile, { id: fileId })),
  patchFile: (c: Context<AppEnv>, fileId: string, body: In<typeof PatchFileRequest>) => call<Out<typeof FileUpdated>>(c, ...at(ENDPOINTS.patchFile, { id: fileId }), body),
  deleteFile: (c: Context<AppEnv>, fileId: string) => call<Message>(c, ...at(ENDPOINTS.deleteFile, { id: fileId })),
  signFile: (c: Context<AppEnv>, fileId: string, body: In<typeof SignedUrlRequest>) => call<Out<typeof SignedUrl>>(c, ...at(ENDPOINTS.signFile, { id: fileId }), body),
  revokeSignedLinks: (c: Context<AppEnv>, fileId: string) => call<Message>(c, ...at(ENDPOINTS.revokeSignedLinks, { id: fileId })),

  listAlbums: (c: Context<AppEnv>) => call<Out<typeof AlbumList>>(c, ...at(ENDPOINTS.listAlbums, {}, "?limit=100")),
  getAlbum: (c: Context<AppEnv>, albumId: string, limit = 100) => call<AlbumDetail>(c, ...at(ENDPOINTS.getAlbum, { id: albumId }, `?limit=${limit}`)),
  createAlbum: (c: Context<AppEnv>, body: In<typeof CreateAlbumRequest>) => call<Album>(c, ...at(ENDPOINTS.createAlbum), body),
  patchAlbum: (c: Context<AppEnv>, albumId: string, body: In<typeof PatchAlbumRequest>) => call<Out<typeof AlbumUpdated>>(c, ...at(ENDPOINTS.patchAlbum, { id: albumId }), body),
  addToAlbum: (c: Context<AppEnv>, albumId: string, fileIds: In<typeof AddFilesRequest>["fileIds"]) => call<Out<typeof AlbumFilesAdded>>(c, ...at(ENDPOINTS.addToAlbum, { id: albumId }), { fileIds }),
  removeFromAlbum: (c: Context<AppEnv>, albumId: string, fileId: string) => call<Message>(c, ...at(ENDPOINTS.removeFromAlbum, { id: albumId, fileId })),
  deleteAlbum: (c: Context<AppEnv>, albumId: string) => call<Message>(c, ...at(ENDPOINTS.deleteAlbum, { id: albumId })),

  listKeys: (c: Context<AppEnv>) => call<Out<typeof ApiKeyList>>(c, ...at(ENDPOINTS.listKeys, {}, "?limit=100")),
  // Permissions as the form sent them: the API refuses unknown ones with its own message.
  createKey: (c: Context<AppEnv>, body: Omit<In<typeof CreateKeyRequest>, "permissions"> & { permissions: string[] }) => call<CreatedKey>(c, ...at(ENDPOINTS.createKey), body),
  revokeKey: (c: Context<AppEnv>, keyId: string) => call<Message>(c, ...at(ENDPOINTS.revokeKey, { id: keyId })),

  listWebhooks: (c: Context<AppEnv>) => call<Out<typeof WebhookList>>(c, ...at(ENDPOINTS.listWebhooks)),
  // Events as the form sent them: the API refuses unknown ones with its own message.
  createWebhook: (c: Context<AppEnv>, body: Omit<In<typeof CreateWebhookRequest>, "events"> & { events: string[] }) => call<Out<typeof CreatedWebhook>>(c, ...at(ENDPOINTS.createWebhook), body),
  getWebhook: (c: Context<AppEnv>, id: string) => call<Webhook>(c, ...at(ENDPOINTS.getWebhook, { id })),
  patchWebhook: (c: Context<AppEnv>, id: string, body: In<typeof UpdateWebhookRequest>) => call<Webhook>(c, ...at(ENDPOINTS.patchWebhook, { id }), body),
  deleteWebhook: (c: Context<AppEnv>, id: string) => call<Message>(c, ...at(ENDPOINTS.deleteWebhook, { id })),
  pingWebhook: (c: Context<AppEnv>, id: string) => call<Out<typeof QueuedDelivery>>(c, ...at(ENDPOINTS.pingWebhook, { id })),
  webhookDeliveries: (c: Context<AppEnv>, id: string) => call<Out<typeof WebhookAttemptList>>(c, ...at(ENDPOINTS.webhookDeliveries, { id }, "?limit=50")),
  retryDelivery: (c: Context<AppEnv>, id: string, deliveryId: string) => call<Out<typeof QueuedDelivery>>(c, ...at(ENDPOINTS.retryDelivery, { id, deliveryId })),

  account: (c: Context<AppEnv>) => call<Out<typeof AccountBody>>(c, ...at(ENDPOINTS.account)),
  limits: (c: Context<AppEnv>) => call<Limits>(c, ...at(ENDPOINTS.limits)),
  patchAccount: (c: Context<AppEnv>, body: In<typeof AccountPatch>) => call<Out<typeof AccountUpdated>>(c, ...at(ENDPOINTS.patchAccount), body),
  deleteAccount: (c: Context<AppEnv>, password: In<typeof DeleteAccountBody>["password"]) => call<Out<typeof AccountDeleted>>(c, ...at(ENDPOINTS.deleteAccount), { password }),

  report: (c: Context<AppEnv>, body: In<typeof ReportRequest>) => call<Out<typeof ReportCreated>>(c, ...at(ENDPOINTS.report), body),
  queue: (c: Context<AppEnv>, q: Query<typeof QueueQuery>) => call<Out<typeof ReportList>>(c, ...at(ENDPOINTS.queue, {}, qs(q))),
  resolve: (c: Context<AppEnv>, reportId: string, body: In<typeof ResolveRequest>) => call<Out<typeof ResolveResponse>>(c, ...at(ENDPOINTS.resolve, { id: reportId }), body),

  /** The server fetches the image at a link, stores and finalizes it (POST /upload/url). */
  uploadUrl: (c: Context<AppEnv>, body: In<typeof UrlUploadRequest>) => call<UploadAnswer>(c, ...at(ENDPOINTS.uploadUrl), body),

  /** The one-request upload (multipart/form-data), framed once so it carries a Content-Length. */
  async uploadForm(c: Context<AppEnv>, form: FormData): Promise<ApiResult<UploadAnswer>> {
    const url = new URL(API_BASE + endpointPath(ENDPOINTS.uploadForm), c.req.url);
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
