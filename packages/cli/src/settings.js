// Where the CLI keeps the server's address and the API key (`imghost login`), and which of them a command uses:
// --base/--key first, then IMGHOST_BASE_URL/IMGHOST_API_KEY, then the stored file.
import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import envPaths from "env-paths";
import { keepSecret, warn } from "./output.js";

export const DEFAULT_BASE_URL = "http://localhost:8787/api/v1";

/** @typedef {{ baseUrl?: string; apiKey?: string }} Stored */
/** @typedef {{ base?: string; key?: string }} GlobalFlags */
/** @typedef {{ baseUrl: string; apiKey: string | undefined; keySource: string | undefined }} Settings */

export class UsageError extends Error {}

/**
 * The settings file: `$XDG_CONFIG_HOME/imghost/config.json` (or ~/.config/...) on Linux, ~/Library/Preferences on
 * macOS, %APPDATA% on Windows, as env-paths says for each system.
 */
export function configFile() {
  return path.join(envPaths("imghost", { suffix: "" }).config, "config.json");
}

/** @returns {Promise<Stored>} */
export async function readStored() {
  const file = configFile();
  let text;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === "ENOENT") return {};
    throw err;
  }
  if (process.platform !== "win32" && ((await stat(file)).mode & 0o077) !== 0) {
    warn(`${file} can be read by other users of this computer; run: chmod 600 ${JSON.stringify(file)}`);
  }
  try {
    const parsed = JSON.parse(text);
    return { baseUrl: typeof parsed.baseUrl === "string" ? parsed.baseUrl : undefined, apiKey: typeof parsed.apiKey === "string" ? parsed.apiKey : undefined };
  } catch {
    throw new UsageError(`${file} is not valid JSON; fix it or run \`imghost login\` again`);
  }
}

/**
 * Writes the settings readable by the user only (0600, in a 0700 folder): written to a temporary file created
 * with that mode, then renamed over the old one, so no moment exists where the key sits in a wider-open file.
 * @param {Stored} stored
 */
export async function writeStored(stored) {
  const file = configFile();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(stored, null, 2) + "\n", { mode: 0o600, flag: "w" });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

/**
 * The API's base URL as the server wants it: http(s), no trailing slash; a bare origin
 * ("https://img.example.com") gets the API's path, /api/v1.
 */
export function normalizeBaseUrl(/** @type {string} */ raw) {
  let url;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`"${raw}" is not a URL; give the API's address, e.g. ${DEFAULT_BASE_URL}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`the base URL must start with http:// or https://, not ${url.protocol}`);
  if (url.username || url.password) throw new UsageError("the base URL must not carry a user name or password; give the key with --key");
  const pathname = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${pathname || "/api/v1"}`;
}

/**
 * The settings a command runs with. `needKey`: fail with a hint when no key is known (every command but
 * `open` of a public file needs one).
 * @param {GlobalFlags} flags
 * @returns {Promise<Settings>}
 */
export async function resolveSettings(flags, { needKey = true } = {}) {
  const stored = await readStored();
  const env = process.env;
  const base = flags.base ?? env.IMGHOST_BASE_URL ?? stored.baseUrl;
  const [apiKey, keySource] = flags.key
    ? [flags.key, "--key"]
    : env.IMGHOST_API_KEY
      ? [env.IMGHOST_API_KEY, "IMGHOST_API_KEY"]
      : stored.apiKey
        ? [stored.apiKey, configFile()]
        : [undefined, undefined];
  keepSecret(apiKey);
  if (!base) throw new UsageError("no server given: run `imghost login` first, or pass --base (or set IMGHOST_BASE_URL)");
  if (needKey && !apiKey) throw new UsageError("no API key given: run `imghost login` first, or pass --key (or set IMGHOST_API_KEY)");
  return { baseUrl: normalizeBaseUrl(base), apiKey, keySource };
}

/** The site's address for a base URL that ends in /api/v1 (the site is served beside the API), else null. */
export function siteUrlOf(/** @type {string} */ baseUrl) {
  return baseUrl.endsWith("/api/v1") ? baseUrl.slice(0, -"/api/v1".length) : null;
}
