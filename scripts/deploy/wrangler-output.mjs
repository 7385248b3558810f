// Reads what wrangler 4.156 prints for the commands `npm run deploy` asks about the account. Formats taken from
// its source (node_modules/wrangler/wrangler-dist/cli.js) and checked against committed samples
// (test/deploy/samples/, recorded from the installed wrangler by test/deploy/samples/record.mjs). Every reader
// throws on output it does not recognise: a misread list must stop the deploy, never read as "nothing there"
// (that would create a second database, or replace a secret).

const ANSI = /\u001b\[[0-9;]*m/g;
const plain = (text) => String(text).replace(ANSI, "");

/** The first JSON value on stdout (wrangler may print a warning line before it). */
function jsonIn(stdout, what) {
  const text = plain(stdout);
  const start = text.search(/^[[{]/m);
  if (start < 0) throw new Error(`${what}: no JSON in wrangler's output`);
  try {
    return JSON.parse(text.slice(start));
  } catch (e) {
    throw new Error(`${what}: wrangler's output is not JSON (${e.message})`);
  }
}

/**
 * `wrangler whoami --json`: `{"loggedIn":false}` (exit 1) or `{ loggedIn: true, authType, email, accounts:
 * [{ id, name }], tokenPermissions }`.
 * @returns {{ loggedIn: boolean, email?: string, authType?: string, accounts: { id: string, name: string }[] }}
 */
export function parseWhoami(stdout) {
  const v = jsonIn(stdout, "wrangler whoami --json");
  if (typeof v?.loggedIn !== "boolean") throw new Error("wrangler whoami --json: no loggedIn field");
  const accounts = Array.isArray(v.accounts) ? v.accounts.map((a) => ({ id: String(a.id), name: String(a.name) })) : [];
  return { loggedIn: v.loggedIn, email: v.email, authType: v.authType, accounts };
}

/**
 * `wrangler d1 list --json`: the API's list, every page, as a JSON array of `{ uuid, name, created_at, version,
 * num_tables, file_size, jurisdiction }`.
 * @returns {Map<string, string>} database name -> uuid
 */
export function parseD1List(stdout) {
  const v = jsonIn(stdout, "wrangler d1 list --json");
  if (!Array.isArray(v)) throw new Error("wrangler d1 list --json: not an array");
  const out = new Map();
  for (const db of v) {
    if (typeof db?.name !== "string" || typeof db?.uuid !== "string") throw new Error("wrangler d1 list --json: an entry without name or uuid");
    out.set(db.name, db.uuid);
  }
  return out;
}

/**
 * `wrangler r2 bucket list` (it has no --json): "Listing buckets...", then per bucket a block of labelled lines,
 * `name:           <name>` and `creation_date:  <date>`, blocks separated by a blank line.
 * @returns {Set<string>} bucket names
 */
export function parseR2BucketList(stdout) {
  const text = plain(stdout);
  if (!/^Listing buckets\.\.\.$/m.test(text)) throw new Error("wrangler r2 bucket list: no 'Listing buckets...' line");
  const names = new Set();
  for (const m of text.matchAll(/^name:\s+(\S+)\s*$/gm)) names.add(m[1]);
  return names;
}

/**
 * `wrangler queues list [--page N]` (no --json): one page of the API's list as a cli-table3 box table with the
 * columns id, name, created_on, modified_on, producers, consumers (and jurisdiction after name when any queue
 * has one). A page past the end prints nothing at all (an empty table has no header to print).
 * @returns {string[]} the queue names on that page
 */
export function parseQueuesList(stdout) {
  const text = plain(stdout);
  if (text.trim() === "") return [];
  const rows = text
    .split("\n")
    .filter((line) => line.startsWith("│"))
    .map((line) => line.split("│").slice(1, -1).map((cell) => cell.trim()));
  if (rows.length === 0) throw new Error("wrangler queues list: no table in wrangler's output");
  const nameAt = rows[0].indexOf("name");
  if (nameAt < 0) throw new Error("wrangler queues list: the table has no name column");
  return rows.slice(1).map((cells) => cells[nameAt]);
}

/**
 * `wrangler secret list --format json`: `[{ "name": ..., "type": "secret_text" }, ...]` (names only, never values).
 * @returns {Set<string>} secret names
 */
export function parseSecretList(stdout) {
  const v = jsonIn(stdout, "wrangler secret list");
  if (!Array.isArray(v)) throw new Error("wrangler secret list: not an array");
  return new Set(
    v.map((s) => {
      if (typeof s?.name !== "string") throw new Error("wrangler secret list: an entry without a name");
      return s.name;
    }),
  );
}

/**
 * Whether a failed `wrangler secret list` said the worker does not exist yet (a first deploy: no secret is set).
 * Wrangler's words: `Worker "<name>" (env: production) not found.` followed by "If this is a new Worker, ...".
 * Anything else is an error that must stop the deploy.
 */
export function isWorkerNotFound(stderr) {
  return /Worker "[^"]+"(?: \(env: [^)]+\))? not found\./.test(plain(stderr));
}
