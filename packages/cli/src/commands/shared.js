// What every command shares: its settings and client, how its outcome becomes the exit status, and the parsers
// of option values.
import { InvalidArgumentError } from "commander";
import { connect, describeError } from "../client.js";
import { fail } from "../output.js";
import { resolveSettings, UsageError } from "../settings.js";

/** @typedef {import("../client.js").ImghostClient} ImghostClient */
/** @typedef {import("../settings.js").Settings} Settings */
/** @typedef {{ client: ImghostClient; settings: Settings; debug: boolean }} CommandContext */
/** @typedef {{ base?: string; key?: string; debug?: boolean }} GlobalOptions */

/** Exit statuses: 0 everything worked, 1 something failed (a file, a call), 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 };

/**
 * A commander action for `run(context, ...arguments, options)`, which returns its exit status. Errors are written
 * to stderr (message, code, request id: describeError) and give 1; a usage problem gives 2.
 * @param {(context: CommandContext, ...args: any[]) => Promise<number | void>} run
 * @param {{ needKey?: boolean }} [options]
 */
export function withClient(run, { needKey = true } = {}) {
  return async (/** @type {any[]} */ ...args) => {
    const command = /** @type {import("commander").Command} */ (args.at(-1));
    /** @type {GlobalOptions} */
    const globals = command.optsWithGlobals();
    await exitWith(async () => {
      const settings = await resolveSettings(globals, { needKey });
      const context = { client: connect(settings, { debug: Boolean(globals.debug) }), settings, debug: Boolean(globals.debug) };
      return run(context, ...args.slice(0, -1));
    });
  };
}

/** Runs `body` and sets the exit status from what it returns or throws. */
export async function exitWith(/** @type {() => Promise<number | void>} */ body) {
  try {
    process.exitCode = (await body()) ?? EXIT.ok;
  } catch (err) {
    fail(describeError(err));
    process.exitCode = err instanceof UsageError ? EXIT.usage : EXIT.failed;
  }
}

/** "--concurrency 4" -> 4, within [min, max]. */
export function parseCount(/** @type {string} */ value, /** @type {number} */ min, /** @type {number} */ max) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`give a whole number from ${min} to ${max}`);
  return n;
}

const MAX_TAGS = 30;
const MAX_TAG_LENGTH = 50;

/** "a, b,,c" -> ["a", "b", "c"]. */
export function parseTags(/** @type {string} */ value) {
  const tags = value
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.length === 0) throw new InvalidArgumentError("give at least one tag, e.g. --tags holiday,beach");
  // The server's limits (PATCH /files/:id), checked before any file is sent rather than after each is stored.
  if (tags.length > MAX_TAGS) throw new InvalidArgumentError(`at most ${MAX_TAGS} tags`);
  const long = tags.find((t) => t.length > MAX_TAG_LENGTH);
  if (long) throw new InvalidArgumentError(`"${long}" is longer than ${MAX_TAG_LENGTH} characters`);
  return tags;
}

/** Several ids, each tried; the failures said on stderr. Returns the exit status. */
export async function forEachId(/** @type {string[]} */ ids, /** @type {(id: string) => Promise<void>} */ act) {
  let failed = 0;
  for (const id of ids) {
    try {
      await act(id);
    } catch (err) {
      failed++;
      fail(`${id}: ${describeError(err)}`);
    }
  }
  return failed ? EXIT.failed : EXIT.ok;
}
