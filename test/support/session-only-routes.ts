// The routes an API key may never use (api-v1.md § Authentication, rule 5; decisions.md § API keys).
// Table-driven so later features only append rows: every row is checked by test/skeleton/permission-matrix.test.ts
// for "API key -> 403 Forbidden with 'API keys can only access'" and "anonymous -> 401".
// `body` is a valid-looking body so a guard, not validation, decides the answer.

import type { Permission } from "../../src/platform/http/env";

export type GuardedRoute = { method: string; path: string; body?: unknown };

/** Session-only: an API key gets 403 (contract message), no credentials get 401. */
export const SESSION_ONLY_ROUTES: GuardedRoute[] = [
  { method: "POST", path: "/auth/logout" },
  { method: "POST", path: "/auth/logout/others" },
  { method: "POST", path: "/auth/resend-verification" },
  { method: "POST", path: "/keys", body: { name: "x" } },
  { method: "GET", path: "/keys" },
  { method: "DELETE", path: "/keys/key_V1StGXR8_Z5jdHi6B-myT" },
  { method: "GET", path: "/account" },
  { method: "PATCH", path: "/account", body: { safeMode: true } },
  { method: "POST", path: "/auth/password", body: { currentPassword: "long enough password", newPassword: "another long password" } },
  { method: "GET", path: "/auth/2fa" },
  { method: "POST", path: "/auth/2fa/totp" },
  { method: "POST", path: "/auth/2fa/totp/confirm", body: { code: "123456" } },
  { method: "DELETE", path: "/auth/2fa/totp", body: { password: "long enough password" } },
  { method: "POST", path: "/auth/passkeys/options" },
  { method: "POST", path: "/auth/passkeys", body: { name: "x", response: { id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "e30", attestationObject: "oA" }, clientExtensionResults: {} } } },
  { method: "GET", path: "/auth/passkeys" },
  { method: "DELETE", path: "/auth/passkeys/psk_V1StGXR8_Z5jdHi6B-myT", body: { password: "long enough password" } },
];

/** Anonymous welcome, API keys refused with 403 (signup, login and its second step, passkey sign-in, refresh, verify-email, password recovery). */
export const NO_API_KEY_ROUTES: GuardedRoute[] = [
  { method: "POST", path: "/auth/signup", body: { email: "nobody@example.com", password: "long enough password", username: "nobody" } },
  { method: "POST", path: "/auth/login", body: { email: "nobody@example.com", password: "long enough password" } },
  { method: "POST", path: "/auth/refresh", body: { refresh_token: "not-a-real-token" } },
  { method: "POST", path: "/auth/verify-email", body: { token: "not-a-real-token" } },
  { method: "POST", path: "/auth/password/forgot", body: { email: "nobody@example.com" } },
  { method: "POST", path: "/auth/password/reset", body: { token: "not-a-real-token", newPassword: "long enough password" } },
  { method: "POST", path: "/auth/login/2fa", body: { mfaToken: "not-a-real-token", code: "123456" } },
  { method: "POST", path: "/auth/passkeys/login/options" },
  { method: "POST", path: "/auth/passkeys/login", body: { response: { id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "e30", authenticatorData: "AAAA", signature: "AAAA" }, clientExtensionResults: {} } } },
];

/**
 * Routes an API key may use only with `permission` (decisions.md: read = GET files/albums, upload = /upload/*,
 * manage = PATCH/DELETE files and album writes); a key holding every other permission must get 403 missing_permission.
 * `anonymous`: the status expected without credentials when fixed (e.g. 401), else left out. Features append rows here.
 */
export type PermissionRoute = GuardedRoute & { permission: Permission; anonymous?: number };
export const KEY_PERMISSION_ROUTES: PermissionRoute[] = [
  // Files and albums (the read side): read = GETs, manage = changes. Ids need not exist: the guard answers first.
  { method: "GET", path: "/files", permission: "read", anonymous: 401 },
  { method: "GET", path: "/files/file_V1StGXR8_Z5jdHi6B-myT", permission: "read" },
  { method: "GET", path: "/files/file_V1StGXR8_Z5jdHi6B-myT/download", permission: "read" },
  { method: "PATCH", path: "/files/file_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401, body: { title: "x" } },
  { method: "DELETE", path: "/files/file_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401 },
  { method: "POST", path: "/albums", permission: "manage", anonymous: 401, body: { title: "x" } },
  { method: "GET", path: "/albums", permission: "read", anonymous: 401 },
  { method: "GET", path: "/albums/alb_V1StGXR8_Z5jdHi6B-myT", permission: "read" },
  { method: "PATCH", path: "/albums/alb_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401, body: { title: "x" } },
  { method: "DELETE", path: "/albums/alb_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401 },
  { method: "POST", path: "/albums/alb_V1StGXR8_Z5jdHi6B-myT/files", permission: "manage", anonymous: 401, body: { fileIds: ["file_V1StGXR8_Z5jdHi6B-myT"] } },
  { method: "DELETE", path: "/albums/alb_V1StGXR8_Z5jdHi6B-myT/files/file_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401 },
  // Webhooks (extensions.md § 4): manage, every route.
  { method: "POST", path: "/webhooks", permission: "manage", anonymous: 401, body: { url: "https://hooks.example.com/x", events: ["file.created"] } },
  { method: "GET", path: "/webhooks", permission: "manage", anonymous: 401 },
  { method: "GET", path: "/webhooks/whk_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401 },
  { method: "PATCH", path: "/webhooks/whk_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401, body: { description: "x" } },
  { method: "DELETE", path: "/webhooks/whk_V1StGXR8_Z5jdHi6B-myT", permission: "manage", anonymous: 401 },
  { method: "POST", path: "/webhooks/whk_V1StGXR8_Z5jdHi6B-myT/ping", permission: "manage", anonymous: 401 },
  { method: "GET", path: "/webhooks/whk_V1StGXR8_Z5jdHi6B-myT/deliveries", permission: "manage", anonymous: 401 },
  { method: "POST", path: "/webhooks/whk_V1StGXR8_Z5jdHi6B-myT/deliveries/whd_V1StGXR8_Z5jdHi6B-myT/retry", permission: "manage", anonymous: 401 },
];
