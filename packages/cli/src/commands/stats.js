// `imghost stats [file id]`: the last 30 days as a terminal sparkline with the totals (extensions.md § 10).
import { formatBytes } from "../format.js";
import { out, pc } from "../output.js";
import { EXIT, withClient } from "./shared.js";

const BARS = "▁▂▃▄▅▆▇█";

/** One character a day, scaled to the range's largest value (a day without any is the lowest bar). */
export function sparkline(/** @type {number[]} */ values) {
  const max = Math.max(0, ...values);
  return values.map((v) => (max === 0 ? BARS[0] : BARS[Math.min(BARS.length - 1, Math.floor((v / max) * (BARS.length - 1)))])).join("");
}

const sum = (/** @type {number[]} */ values) => values.reduce((a, b) => a + b, 0);
const n = (/** @type {number} */ v) => v.toLocaleString("en-US");

/** @param {import("commander").Command} program */
export function registerStats(program) {
  program
    .command("stats")
    .summary("views over the last 30 days")
    .description("Views a day over the last 30 days (UTC) as a sparkline, with the totals and top referring sites: of the account, or of one file.")
    .argument("[id]", "a file id (file_...); without it, the whole account")
    .option("--json", "print the API's answer (GET /files/{id}/stats or GET /account/stats)")
    .addHelpText("after", "\nExamples:\n  $ imghost stats\n  $ imghost stats file_V1StGXR8_Z5jdHi6B-myT --json | jq .totals")
    .action(withClient((context, id, options) => stats(context, id, options)));
}

/**
 * @param {import("./shared.js").CommandContext} context
 * @param {string | undefined} id
 * @param {{ json?: boolean }} options
 */
async function stats({ client }, id, options) {
  const body = id ? await client.stats(id) : await client.stats();
  if (options.json) {
    out(JSON.stringify(body));
    return EXIT.ok;
  }
  const views = body.days.map((d) => d.views);
  const first = body.days[0]?.date ?? "";
  const last = body.days.at(-1)?.date ?? "";
  out(`${pc.bold(id ?? "Your account")}  ${first} → ${last}`);
  out(`views      ${sparkline(views)}  ${n(sum(views))}`);
  out(`downloads  ${sparkline(body.days.map((d) => d.downloads))}  ${n(sum(body.days.map((d) => d.downloads)))}`);
  if ("topFiles" in body) {
    const uploads = body.days.map((d) => d.uploads);
    out(`uploads    ${sparkline(uploads)}  ${n(sum(uploads))}`);
    out(`storage    ${formatBytes(body.days.at(-1)?.storageBytes ?? 0)} used today`);
    for (const f of body.topFiles) out(`  ${f.id}  ${n(f.views).padStart(7)}  ${f.title}`);
  }
  for (const r of body.referrers) out(`  ${pc.dim("from")} ${r.host}  ${n(r.views)}`);
  return EXIT.ok;
}
