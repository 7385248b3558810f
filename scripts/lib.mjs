// Shared by the npm scripts: the offline environment for wrangler and the generated local secrets.
import { existsSync, writeFileSync } from "node:fs";
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

/** Creates .dev.vars with fresh random local secrets when it is missing; never overwrites. */
export function ensureDevVars() {
  const file = path.join(root, ".dev.vars");
  if (existsSync(file)) return;
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `# Generated for local development by scripts/lib.mjs; not committed.\nJWT_SECRET=${secret}\n`, { mode: 0o600 });
  console.log("Generated .dev.vars with a random local JWT_SECRET.");
}
