// Every tunable number of the service in one place. Plan figures are decisions.md's defaults.

export type Plan = "free" | "pro" | "enterprise";
export type PlanOrAnonymous = Plan | "anonymous";
export type Role = "user" | "moderator" | "admin";

export const PLANS: readonly Plan[] = ["free", "pro", "enterprise"];
export const ROLES: readonly Role[] = ["user", "moderator", "admin"];

const MB = 1_000_000;
const GB = 1_000 * MB;
const TB = 1_000 * GB;

export type PlanLimits = {
  uploadsPerHour: number;
  apiCallsPerHour: number;
  maxFileBytes: number;
  /** null: anonymous uploads have no account to charge. */
  storageQuotaBytes: number | null;
};

export const PLAN_LIMITS: Record<PlanOrAnonymous, PlanLimits> = {
  anonymous: { uploadsPerHour: 5, apiCallsPerHour: 100, maxFileBytes: 10 * MB, storageQuotaBytes: null },
  free: { uploadsPerHour: 20, apiCallsPerHour: 1_000, maxFileBytes: 20 * MB, storageQuotaBytes: 2 * GB },
  pro: { uploadsPerHour: 100, apiCallsPerHour: 10_000, maxFileBytes: 200 * MB, storageQuotaBytes: 200 * GB },
  enterprise: { uploadsPerHour: 1_000, apiCallsPerHour: 100_000, maxFileBytes: 2 * GB, storageQuotaBytes: 5 * TB },
};

export const PASSWORD_HASH = {
  /** Production Workers cap PBKDF2 at 100,000 iterations. */
  iterations: 100_000,
  maxIterations: 100_000,
};

export const PASSWORD_LENGTH = { min: 8, max: 256 };

export const SESSION = {
  accessTokenSeconds: 900,
  refreshTokenSeconds: 30 * 24 * 3600,
  uploadTokenSeconds: 3600,
  emailTokenSeconds: 48 * 3600,
};

export const LOGIN_LIMITS = {
  windowSeconds: 15 * 60,
  /** Failed logins per account (e-mail) per window. */
  failuresPerAccount: 10,
  /** Failed logins per client IP per window. */
  failuresPerIp: 50,
};

export const VERIFICATION_LIMITS = { windowSeconds: 3600, resendsPerHour: 5 };

export const API_KEYS = {
  prefix: "pk_",
  bodyLength: 32,
  /** Characters of the key kept in clear to help people recognise it in lists (`pk_` + 6). */
  displayPrefixLength: 9,
  /** lastUsedAt is written at most this often per key, so using a key is not a D1 write per request. */
  lastUsedWriteIntervalSeconds: 300,
  maxPerUser: 50,
};

export const REQUEST_LIMITS = {
  /** JSON bodies of the API (uploads stream separately). */
  jsonBodyBytes: 64 * 1024,
};
