// `imghost upload <paths or globs...>`: sends files N at a time with a progress bar each, then prints one line per
// file (its link) and a summary; `--json` prints each finalize body as one JSON line instead. The exit status is
// 1 when any file or argument failed.
import { Option } from "commander";
import { describeError } from "../client.js";
import { formatBytes, formatDimensions, formatDuration, plural } from "../format.js";
import { expandInputs } from "../inputs.js";
import { fail, note, out, pc } from "../output.js";
import { progressBars } from "../progress.js";
import { EXIT, parseCount, parseTags, withClient } from "./shared.js";

/** @typedef {import("../client.js").FinalizeResponse} FinalizeResponse */
/** @typedef {import("../inputs.js").UploadFile} UploadFile */
/** @typedef {{ file: UploadFile; body?: FinalizeResponse; error?: unknown; notSent?: boolean }} Outcome */

/** @param {import("commander").Command} program */
export function registerUpload(program) {
  program
    .command("upload")
    .summary("upload files, folders or glob patterns")
    .description("Upload images and print a link to each. A folder uploads the images in it and its subfolders; a quoted glob pattern is expanded here.")
    .argument("<paths...>", "files, folders or glob patterns")
    .option("--album <id>", "put the files in this album of yours (set with the upload, like --tags: no manage permission needed)")
    .addOption(new Option("--visibility <visibility>", "who can see the files (the server's default: public)").choices(["public", "unlisted", "private"]))
    .option("--tags <tags>", "comma-separated tags, e.g. holiday,beach", parseTags)
    .option("--concurrency <n>", "files sent at the same time (1 to 16)", (v) => parseCount(v, 1, 16), 4)
    .option("--json", "print one JSON object per line (the server's finalize body) and nothing else on stdout")
    .addHelpText(
      "after",
      `
Examples:
  $ imghost upload screenshot.png
  $ imghost upload ./holiday --album alb_V1StGXR8_Z5jdHi6B-myT --tags holiday,2026
  $ imghost upload "shots/**/*.png" --visibility unlisted --json | jq -r .url`,
    )
    .action(withClient(upload));
}

/**
 * @param {import("./shared.js").CommandContext} context
 * @param {string[]} patterns
 * @param {{ album?: string; visibility?: "public" | "unlisted" | "private"; tags?: string[]; concurrency: number; json?: boolean }} options
 */
async function upload({ client }, patterns, options) {
  const { files, problems } = await expandInputs(patterns);
  for (const problem of problems) fail(`${problem.argument}: ${problem.reason}`);
  if (files.length === 0) return EXIT.failed;
  // A wrong album would fail each file after it is stored: find it before sending anything.
  if (options.album && !(await ownsAlbum(client, options.album))) {
    fail(`album ${options.album} is not one of your albums (imghost album create makes one); nothing was uploaded`);
    return EXIT.failed;
  }

  const bars = progressBars();
  const controller = new AbortController();
  const interrupt = () => {
    controller.abort();
    bars.stop();
    note("Interrupted: the uploads in flight were cancelled.");
    process.exit(130);
  };
  process.once("SIGINT", interrupt);
  // JSON lines go out as each file finishes when no bars are drawn (a script reading them streams); with bars
  // they wait for the bars to end, so they do not land in the middle of them.
  const streamJson = Boolean(options.json) && !process.stderr.isTTY;
  /** @type {Outcome[]} */
  const outcomes = new Array(files.length);
  /** @type {unknown} */
  let keyRefused = null;
  const started = performance.now();

  await eachAtMost(options.concurrency, files, async (file, i) => {
    if (keyRefused) return void (outcomes[i] = { file, error: keyRefused, notSent: true });
    const bar = bars.add(file.display, file.bytes);
    try {
      const body = await client.upload(file.path, {
        visibility: options.visibility,
        tags: options.tags,
        albumId: options.album,
        signal: controller.signal,
        onProgress: ({ sentBytes }) => bar.update(sentBytes),
      });
      bar.finish("done");
      outcomes[i] = { file, body };
      if (streamJson) out(JSON.stringify(body));
    } catch (error) {
      bar.finish("failed");
      outcomes[i] = { file, error };
      // One refused key refuses every file: stop there, and say it once.
      if (!keyRefused && isKeyRefused(error)) keyRefused = error;
    }
  });
  bars.stop();
  process.removeListener("SIGINT", interrupt);

  report(outcomes, { json: Boolean(options.json), streamedJson: streamJson, keyRefused });
  const failed = outcomes.filter((o) => o.error).length;
  const uploaded = outcomes.filter((o) => o.body);
  const bytes = uploaded.reduce((sum, o) => sum + (o.body?.bytes ?? 0), 0);
  const elapsed = formatDuration(performance.now() - started);
  if (failed + problems.length === 0) {
    note(`Uploaded ${plural(uploaded.length, "file")} (${formatBytes(bytes)}) in ${elapsed}.`);
    return EXIT.ok;
  }
  const skipped = problems.length ? `; ${plural(problems.length, "argument")} named no file` : "";
  note(`Uploaded ${uploaded.length} of ${plural(files.length, "file")} (${formatBytes(bytes)}) in ${elapsed}; ${failed} failed${skipped}.`);
  return EXIT.failed;
}

/**
 * Whether the album is the caller's. A key without `read` cannot list albums (403): then each upload's creation
 * decides, which refuses another's album (404 album_not_found) before any byte is sent.
 */
async function ownsAlbum(/** @type {import("../client.js").ImghostClient} */ client, /** @type {string} */ albumId) {
  try {
    for await (const album of client.albums.list()) if (album.id === albumId) return true;
  } catch (err) {
    if (typeof err === "object" && err !== null && "status" in err && err.status === 403) return true;
    throw err;
  }
  return false;
}

/**
 * @param {Outcome[]} outcomes
 * @param {{ json: boolean; streamedJson: boolean; keyRefused: unknown }} how
 */
function report(outcomes, { json, streamedJson, keyRefused }) {
  if (keyRefused) fail(describeError(keyRefused));
  for (const { file, body, error, notSent } of outcomes) {
    if (body) {
      if (!json) out(successLine(file, body));
      else if (!streamedJson) out(JSON.stringify(body));
    } else if (isKeyRefused(error)) {
      note(`${pc.red("✗")} ${file.display}: ${notSent ? "not sent" : "refused"} (the API key was refused, see above)`);
    } else {
      fail(`${file.display}: ${describeError(error)}`);
    }
  }
}

/** "✓ a.png  http://…/i/file_…  1.2 MB  800×600  (same image as file_…)" */
function successLine(/** @type {UploadFile} */ file, /** @type {FinalizeResponse} */ body) {
  const parts = [`${pc.green("✓")} ${file.display}`, body.url, formatBytes(body.bytes), formatDimensions(body.width, body.height)];
  const exact = body.duplicates.filter((d) => d.match === "exact").map((d) => d.fileId);
  const similar = body.duplicates.filter((d) => d.match === "similar").map((d) => d.fileId);
  if (exact.length) parts.push(pc.yellow(`(same image as ${someOf(exact)})`));
  if (similar.length) parts.push(pc.dim(`(looks like ${someOf(similar)})`));
  if (body.analysis === "failed") parts.push(pc.yellow(`(analysis failed${body.analysisError ? `: ${body.analysisError}` : ""})`));
  return parts.filter(Boolean).join("  ");
}

/** "file_a", "file_a, file_b", "file_a and 4 more": the line stays one line. */
const someOf = (/** @type {string[]} */ ids) => (ids.length <= 2 ? ids.join(", ") : `${ids[0]} and ${ids.length - 1} more`);

const isKeyRefused = (/** @type {unknown} */ error) => typeof error === "object" && error !== null && "status" in error && error.status === 401;

/**
 * Runs `task` over `items`, at most `limit` at a time, in order of starting.
 * @template T
 * @param {number} limit
 * @param {T[]} items
 * @param {(item: T, index: number) => Promise<void>} task
 */
async function eachAtMost(limit, items, task) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
