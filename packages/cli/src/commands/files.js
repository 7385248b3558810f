// `imghost ls`, `imghost rm` and `imghost open`: the caller's files.
import { InvalidArgumentError } from "commander";
import open from "open";
import { formatBytes, formatDate, formatDimensions, plural } from "../format.js";
import { note, out, pc } from "../output.js";
import { siteUrlOf } from "../settings.js";
import { EXIT, forEachId, parseCount, withClient } from "./shared.js";

const TITLE_WIDTH = 20;

/** `text` in exactly `width` columns: cut with an ellipsis, or padded. */
const cut = (/** @type {string} */ text, /** @type {number} */ width) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

/** How long `open` waits to learn that the opener failed; still running then means it is showing the page. */
const OPENER_VERDICT_MS = 2000;

/** @param {import("commander").Command} program */
export function registerFiles(program) {
  program
    .command("ls")
    .alias("list")
    .summary("list your files")
    .description("List every file of the account, newest first (all pages), your age-restricted (18+) ones included and marked.")
    .option("--json", "print one JSON object per line (the file as GET /files lists it)")
    .option("--page-size <n>", "files asked for per request (1 to 100)", (v) => parseCount(v, 1, 100), 100)
    .option("--color <#rrggbb>", "nearest dominant colour first (e.g. '#3366cc')", parseColor)
    .addHelpText("after", "\nExamples:\n  $ imghost ls\n  $ imghost ls --color '#3366cc'\n  $ imghost ls --json | jq -r 'select(.bytes > 1000000) | .id'")
    .action(withClient(list));

  program
    .command("rm")
    .alias("delete")
    .summary("delete files")
    .description("Delete files by id. The links stop working at once (410 Gone) and the bytes are removed from storage later.")
    .argument("<ids...>", "file ids (file_...)")
    .addHelpText("after", "\nExamples:\n  $ imghost rm file_V1StGXR8_Z5jdHi6B-myT\n  $ imghost ls --json | jq -r .id | xargs imghost rm")
    .action(withClient((context, ids) => remove(context, ids)));

  program
    .command("open")
    .summary("open a file's page in the browser")
    .description("Open the file's page in the web browser; when no browser can be opened (or with --print), print its address.")
    .argument("<id>", "a file id (file_...)")
    .option("--print", "print the address instead of opening a browser")
    .addHelpText("after", "\nExamples:\n  $ imghost open file_V1StGXR8_Z5jdHi6B-myT\n  $ imghost open file_V1StGXR8_Z5jdHi6B-myT --print")
    .action(withClient(openPage, { needKey: false }));
}

/** `#rrggbb` (the # may be left out), else a wrong command line. */
function parseColor(/** @type {string} */ value) {
  const hex = value.trim().replace(/^#?/, "#");
  if (!/^#[0-9a-fA-F]{6}$/.test(hex)) throw new InvalidArgumentError("give a colour as #rrggbb, e.g. '#3366cc'");
  return hex.toLowerCase();
}

/**
 * @param {import("./shared.js").CommandContext} context
 * @param {{ json?: boolean; pageSize: number; color?: string }} options
 */
async function list({ client }, options) {
  let count = 0;
  let flagged = 0;
  // Your own list: files.list() asks for age-restricted files too (the API's excludeNsfw default hides them).
  for await (const file of client.files.list({ limit: options.pageSize, color: options.color })) {
    count++;
    if (file.ageRestricted) flagged++;
    if (options.json) {
      out(JSON.stringify(file));
      continue;
    }
    // Fixed columns, so each row goes out as it comes (a long list starts printing at once).
    if (count === 1) out(pc.dim(["ID".padEnd(26), "CREATED".padEnd(16), "SIZE".padStart(8), "PIXELS".padEnd(11), "TITLE".padEnd(TITLE_WIDTH), "LINK"].join("  ")));
    const row = [file.id.padEnd(26), formatDate(file.createdAt).padEnd(16), formatBytes(file.bytes).padStart(8), formatDimensions(file.width, file.height).padEnd(11), cut(file.title ?? "", TITLE_WIDTH), file.url];
    // Last, so the columns stay fixed: only you see these in your list; others need to have turned safe mode off.
    if (file.ageRestricted) row.push(pc.yellow("18+"));
    out(row.join("  "));
  }
  if (!options.json) note(count ? `${plural(count, "file")}${flagged ? ` (${flagged} flagged 18+)` : ""}` : "No files yet. Upload some with: imghost upload <paths>");
  return EXIT.ok;
}

/** @param {import("./shared.js").CommandContext} context @param {string[]} ids */
async function remove({ client }, ids) {
  return forEachId(ids, async (id) => {
    await client.files.delete(id);
    out(`Deleted ${id}`);
  });
}

/**
 * The file is looked up first (a wrong id fails here, clearly, and a private one needs the key); its page is
 * {site_url}/f/<id>, the site being the API's origin when the base URL ends in /api/v1, else its short link.
 * @param {import("./shared.js").CommandContext} context
 * @param {string} id
 * @param {{ print?: boolean }} options
 */
async function openPage({ client, settings }, id, options) {
  const file = await client.files.get(id);
  const site = siteUrlOf(settings.baseUrl);
  const url = site ? `${site}/f/${encodeURIComponent(file.id)}` : file.url;
  if (options.print || process.env.BROWSER === "none" || !(await openInBrowser(url))) {
    if (!options.print && process.env.BROWSER !== "none") note("No web browser could be opened; the page is at:");
    out(url);
    return EXIT.ok;
  }
  note(`Opened ${url} in the web browser.`);
  return EXIT.ok;
}

/** True when the system's opener took the address: it is still running after a moment, or it ended well. */
async function openInBrowser(/** @type {string} */ url) {
  let child;
  try {
    child = await open(url);
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), OPENER_VERDICT_MS);
    child.once("error", () => (clearTimeout(timer), resolve(false)));
    child.once("exit", (code) => (clearTimeout(timer), resolve(code === 0)));
  });
}
