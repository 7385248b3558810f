// Everything the CLI writes goes through here, so that an API key can never reach the terminal: the key in use is
// replaced wherever it appears, and so is anything shaped like one (pk_ and 32 base58 characters), whichever
// library produced the text (commander's errors are routed here too, see main.js).
import pc from "picocolors";

const KEY_SHAPE = /pk_[1-9A-HJ-NP-Za-km-z]{32}/g;
const REDACTED = "pk_[redacted]";

/** @type {Set<string>} */
const secrets = new Set();

/** Remembers a secret (the API key in use) so that it is never written out. */
export function keepSecret(/** @type {string | undefined} */ value) {
  if (value && value.length >= 8) secrets.add(value);
}

/** `text` with every known secret and every key-shaped string replaced. */
export function redact(/** @type {string} */ text) {
  let out = text.replace(KEY_SHAPE, REDACTED);
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out;
}

/** A line to stdout: results (links, JSON lines, tables). */
export function out(/** @type {string} */ line) {
  process.stdout.write(redact(line) + "\n");
}

/** A line to stderr: progress, notes, warnings and errors. */
export function note(/** @type {string} */ line) {
  process.stderr.write(redact(line) + "\n");
}

/** A failure line to stderr, prefixed so it stands out in a log. */
export function fail(/** @type {string} */ line) {
  note(`${pc.red("error:")} ${line}`);
}

export function warn(/** @type {string} */ line) {
  note(`${pc.yellow("warning:")} ${line}`);
}

export { pc };
