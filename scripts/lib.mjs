// Shared by the npm scripts: the offline environment for wrangler and the generated local secrets.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function offlineEnv(extra = {}) {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_HIDE_BANNER: "true",
    WRANGLER_LOG: process.env.WRANGLER_LOG ?? "warn",
    ...extra,
  };
}

/** Local secrets that .dev.vars must hold: each gets a fresh random value when missing. */
const LOCAL_SECRETS = ["JWT_SECRET", "BILLING_WEBHOOK_SECRET", "TOTP_ENCRYPTION_SECRET", "SIGNED_URL_SECRET"];

/**
 * Creates .dev.vars with fresh random local secrets when it is missing, and appends any secret a newer
 * checkout needs that an older .dev.vars lacks. Never changes a value that is already there.
 */
export function ensureDevVars() {
  const file = path.join(root, ".dev.vars");
  const existing = existsSync(file) ? readFileSync(file, "utf8") : null;
  const present = new Set((existing ?? "").split("\n").map((l) => /^\s*([A-Z0-9_]+)\s*=/.exec(l)?.[1]).filter(Boolean));
  const missing = LOCAL_SECRETS.filter((k) => !present.has(k));
  if (missing.length === 0) return;
  const lines = missing.map((k) => `${k}=${randomBytes(32).toString("base64url")}`).join("\n") + "\n";
  if (existing === null) {
    writeFileSync(file, `# Generated for local development by scripts/lib.mjs; not committed.\n${lines}`, { mode: 0o600 });
  } else {
    appendFileSync(file, (existing.endsWith("\n") || existing === "" ? "" : "\n") + lines);
  }
  console.log(`${existing === null ? "Generated .dev.vars" : "Added to .dev.vars"}: random local ${missing.join(", ")}.`);
}
