// `imghost login` and `imghost logout`: the server's address and an API key, checked with a call, kept in the
// user's config folder readable by the user alone.
import { cancel, isCancel, password, text } from "@clack/prompts";
import { connect, describeError } from "../client.js";
import { keepSecret, note, out, warn } from "../output.js";
import { configFile, DEFAULT_BASE_URL, normalizeBaseUrl, readStored, siteUrlOf, UsageError, writeStored } from "../settings.js";
import { EXIT, exitWith } from "./shared.js";

/** @param {import("commander").Command} program */
export function registerLogin(program) {
  program
    .command("login")
    .summary("save the server's address and your API key")
    .description(
      "Check an API key against the server and save both in your config folder, readable only by you. " +
        "Asks for what --base and --key do not give; without a terminal, the key may come on standard input. " +
        "Create keys in the web app (Account, API keys).",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ imghost login
  $ imghost login --base https://img.example.com/api/v1
  $ printenv IMGHOST_KEY | imghost login --base https://img.example.com/api/v1`,
    )
    .action(async (_options, command) => exitWith(() => login(command.optsWithGlobals())));

  program
    .command("logout")
    .summary("forget the saved API key")
    .description("Remove the API key from the config folder (the server's address stays). The key itself stays valid until it is revoked in the web app (API keys).")
    .action(() => exitWith(logout));
}

/** @param {import("./shared.js").GlobalOptions} flags */
async function login(flags) {
  const stored = await readStored();
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const baseInput = flags.base ?? process.env.IMGHOST_BASE_URL ?? (interactive ? await askBase(stored.baseUrl ?? DEFAULT_BASE_URL) : stored.baseUrl);
  if (!baseInput) throw new UsageError("give the server's API address with --base (e.g. --base https://img.example.com/api/v1)");
  const baseUrl = normalizeBaseUrl(baseInput);
  const apiKey = flags.key ?? process.env.IMGHOST_API_KEY ?? (interactive ? await askKey() : await keyFromStdin());
  keepSecret(apiKey);

  const settings = { baseUrl, apiKey, keySource: "login" };
  const who = await checkKey(connect(settings, { debug: Boolean(flags.debug) }));
  const file = await writeStored({ ...stored, baseUrl, apiKey });
  if (who.account) {
    const { user, key } = who.account;
    out(`Logged in to ${baseUrl} as ${user.username} (${user.email})${key ? ` with the key "${key.name}"` : ""}.`);
  } else {
    out(`Logged in to ${baseUrl}.`);
  }
  note(`Saved in ${file} (readable only by you).`);
  for (const warning of who.warnings) warn(warning);
  return EXIT.ok;
}

/**
 * One call, GET /account/whoami: whose key this is and what it may do. A refused key (401) fails the login. A server
 * without that route (404) gets the older check, one listing call (a key without `read` is kept, with a warning).
 * @returns {Promise<{ account: import("@imghost/client").Whoami | null; warnings: string[] }>}
 */
async function checkKey(/** @type {import("../client.js").ImghostClient} */ client) {
  try {
    const account = await client.account.whoami();
    return { account, warnings: account.key ? missingPermissions(account.key.permissions) : [] };
  } catch (err) {
    if (status(err) !== 404) throw refused(err);
  }
  try {
    for await (const _file of client.files.list({ limit: 1 })) break;
    return { account: null, warnings: [] };
  } catch (err) {
    // All this tells: the key lacks `read`.
    if (status(err) === 403) return { account: null, warnings: missingPermissions(["upload", "manage"]) };
    throw refused(err);
  }
}

const status = (/** @type {unknown} */ err) => (typeof err === "object" && err !== null && "status" in err ? err.status : undefined);
const refused = (/** @type {unknown} */ err) => new Error(`the server did not accept the login: ${describeError(err)}`);

/** A warning for each kind of command the key cannot run. */
function missingPermissions(/** @type {string[]} */ permissions) {
  const lacks = (/** @type {string} */ p) => !permissions.includes(p);
  return [
    lacks("read") && "this key may not read files: `imghost ls`, `imghost search`, `imghost open` and `imghost stats` will be refused (it needs `read`).",
    lacks("upload") && "this key may not upload: `imghost upload` will be refused (it needs `upload`).",
    lacks("manage") && "this key may not change files or albums: `imghost rm` and `imghost album` will be refused (they need `manage`).",
  ].filter(/** @returns {x is string} */ (x) => typeof x === "string");
}

async function askBase(/** @type {string} */ initialValue) {
  const answer = await text({
    message: "Server's API address",
    initialValue,
    validate: (value) => {
      try {
        normalizeBaseUrl(value ?? "");
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    },
  });
  return answered(answer);
}

async function askKey() {
  const answer = await password({
    message: "API key (pk_..., from the web app's API keys page)",
    mask: "•",
    validate: (value) => (value && value.trim() ? undefined : "paste the key"),
  });
  return answered(answer).trim();
}

/** A prompt's answer; Ctrl-C or Escape ends the command. */
function answered(/** @type {string | symbol} */ answer) {
  if (isCancel(answer) || typeof answer !== "string") {
    cancel("Login cancelled.");
    process.exit(EXIT.failed);
  }
  return answer;
}

/** The key piped in (`... | imghost login`): the first line of standard input. */
async function keyFromStdin() {
  if (process.stdin.isTTY) throw new UsageError("give the API key with --key, IMGHOST_API_KEY, or on standard input");
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const key = input.split(/\r?\n/)[0]?.trim();
  if (!key) throw new UsageError("no API key on standard input; give it with --key or IMGHOST_API_KEY");
  return key;
}

async function logout() {
  const stored = await readStored();
  if (!stored.apiKey) {
    note(`No API key is saved (${configFile()}).`);
    return EXIT.ok;
  }
  const file = await writeStored({ baseUrl: stored.baseUrl });
  out(`Logged out: the API key was removed from ${file}.`);
  // Forgetting a key here does not end it: anyone holding a copy can still use it.
  const site = stored.baseUrl ? siteUrlOf(stored.baseUrl) : null;
  note(`The key stays valid until it is revoked: revoke it in the web app's API keys page${site ? ` (${site}/app/keys)` : ""}.`);
  return EXIT.ok;
}
