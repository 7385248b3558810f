// The API's endpoints as its clients in this repository call them: the pages (pages/app/api.ts) and the browser
// script (pages/client/upload-api.ts), beside the base the app mounts the API at. Paths are written as the
// OpenAPI document writes them; test/pages/api-endpoints.test.ts checks each against the document the routes
// generate, so a renamed route fails a test instead of a page. Plain constants: the browser bundle inlines them.
export const API_BASE = "/api/v1";

export type Endpoint = { method: "GET" | "POST" | "PATCH" | "DELETE"; path: string };
const at = (method: Endpoint["method"], path: string): Endpoint => ({ method, path });

export const ENDPOINTS = {
  login: at("POST", "/auth/login"),
  signup: at("POST", "/auth/signup"),
  logout: at("POST", "/auth/logout"),
  logoutOthers: at("POST", "/auth/logout/others"),
  verifyEmail: at("POST", "/auth/verify-email"),
  resendVerification: at("POST", "/auth/resend-verification"),
  changePassword: at("POST", "/auth/password"),
  forgotPassword: at("POST", "/auth/password/forgot"),
  resetPassword: at("POST", "/auth/password/reset"),
  loginSecondStep: at("POST", "/auth/login/2fa"),
  secondFactors: at("GET", "/auth/2fa"),
  enrolTotp: at("POST", "/auth/2fa/totp"),
  confirmTotp: at("POST", "/auth/2fa/totp/confirm"),
  turnOffTotp: at("DELETE", "/auth/2fa/totp"),
  passkeyOptions: at("POST", "/auth/passkeys/options"),
  addPasskey: at("POST", "/auth/passkeys"),
  listPasskeys: at("GET", "/auth/passkeys"),
  removePasskey: at("DELETE", "/auth/passkeys/{id}"),
  passkeySignInOptions: at("POST", "/auth/passkeys/login/options"),
  passkeySignIn: at("POST", "/auth/passkeys/login"),
  account: at("GET", "/account"),
  patchAccount: at("PATCH", "/account"),
  deleteAccount: at("DELETE", "/account"),
  limits: at("GET", "/account/limits"),
  exportAccount: at("GET", "/account/export"),
  presign: at("POST", "/upload/presign"),
  finalize: at("POST", "/upload/finalize"),
  uploadForm: at("POST", "/upload/form"),
  uploadUrl: at("POST", "/upload/url"),
  tusCreate: at("POST", "/upload/tus"),
  listFiles: at("GET", "/files"),
  getFile: at("GET", "/files/{id}"),
  downloadFile: at("GET", "/files/{id}/download"),
  patchFile: at("PATCH", "/files/{id}"),
  deleteFile: at("DELETE", "/files/{id}"),
  signFile: at("POST", "/files/{id}/signed-url"),
  revokeSignedLinks: at("POST", "/files/{id}/signed-url/revoke"),
  listAlbums: at("GET", "/albums"),
  createAlbum: at("POST", "/albums"),
  getAlbum: at("GET", "/albums/{id}"),
  patchAlbum: at("PATCH", "/albums/{id}"),
  deleteAlbum: at("DELETE", "/albums/{id}"),
  addToAlbum: at("POST", "/albums/{id}/files"),
  removeFromAlbum: at("DELETE", "/albums/{id}/files/{fileId}"),
  listKeys: at("GET", "/keys"),
  createKey: at("POST", "/keys"),
  revokeKey: at("DELETE", "/keys/{id}"),
  listWebhooks: at("GET", "/webhooks"),
  createWebhook: at("POST", "/webhooks"),
  getWebhook: at("GET", "/webhooks/{id}"),
  patchWebhook: at("PATCH", "/webhooks/{id}"),
  deleteWebhook: at("DELETE", "/webhooks/{id}"),
  pingWebhook: at("POST", "/webhooks/{id}/ping"),
  webhookDeliveries: at("GET", "/webhooks/{id}/deliveries"),
  retryDelivery: at("POST", "/webhooks/{id}/deliveries/{deliveryId}/retry"),
  report: at("POST", "/moderation/report"),
  queue: at("GET", "/moderation/queue"),
  resolve: at("POST", "/moderation/reports/{id}/resolve"),
} satisfies Record<string, Endpoint>;

/** The endpoint's path under API_BASE with its `{name}` segments filled in (each escaped) and an optional query. */
export function endpointPath(endpoint: Endpoint, params: Record<string, string> = {}, query = ""): string {
  return endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? "")) + query;
}
