// The CLI's only import of the library: every command gets its client here, and describes the library's errors
// with `describeError`. (Until packages/client lands, "@imghost/client" resolves to the stand-in in
// ../stand-in-client, a workspace of the same name.)
import { createClient, ImghostError } from "@imghost/client";
import { formatDuration } from "./format.js";
import { note, pc } from "./output.js";

/** @typedef {import("@imghost/client").ImghostClient} ImghostClient */
/** @typedef {import("@imghost/client").FinalizeResponse} FinalizeResponse */
/** @typedef {import("@imghost/client").FileResource} FileResource */
/** @typedef {import("./settings.js").Settings} Settings */

export { ImghostError };

/**
 * A client for the settings. With `debug`, each request and its answer are logged to stderr: method, address,
 * status, request id and time; never a header, so never the key.
 * @param {Settings} settings
 * @param {{ debug?: boolean }} [options]
 * @returns {ImghostClient}
 */
export function connect(settings, { debug = false } = {}) {
  return createClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, ...(debug ? { fetch: loggingFetch } : {}) });
}

/** @type {typeof fetch} */
async function loggingFetch(input, init) {
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  const url = input instanceof Request ? input.url : String(input);
  const started = performance.now();
  note(pc.dim(`debug: → ${method} ${url}`));
  try {
    const res = await fetch(input, init);
    const id = res.headers.get("x-request-id");
    note(pc.dim(`debug: ← ${res.status} ${method} ${url}${id ? ` (request id ${id})` : ""} in ${formatDuration(performance.now() - started)}`));
    return res;
  } catch (err) {
    note(pc.dim(`debug: ✗ ${method} ${url}: ${err instanceof Error ? err.message : String(err)}`));
    throw err;
  }
}

/**
 * One line saying why a call failed: the contract's message, then its code, the HTTP status and the request id
 * (what the server's logs are searched by), then what to do about it when we know.
 */
export function describeError(/** @type {unknown} */ err) {
  if (err instanceof ImghostError) {
    const facts = [`code ${err.code}`, err.status ? `HTTP ${err.status}` : null, err.requestId ? `request id ${err.requestId}` : null].filter(Boolean);
    return `${headlineOf(err)}${fieldsOf(err)} (${facts.join(", ")})${hintFor(err)}`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The contract's error type and its message: "API key has been revoked: This API key has been revoked". */
function headlineOf(/** @type {ImghostError} */ err) {
  const body = /** @type {{ error?: unknown } | null} */ (typeof err.body === "object" ? err.body : null);
  const type = typeof body?.error === "string" ? body.error : null;
  return type && !err.message.toLowerCase().startsWith(type.toLowerCase()) ? `${type}: ${err.message}` : err.message;
}

/** Validation errors list their fields (decisions.md § Errors). */
function fieldsOf(/** @type {ImghostError} */ err) {
  const fields = err.details?.fields;
  if (!Array.isArray(fields) || fields.length === 0) return "";
  return `: ${fields.map((f) => `${f?.path ?? "?"} ${f?.message ?? ""}`.trim()).join("; ")}`;
}

function hintFor(/** @type {ImghostError} */ err) {
  if (err.status === 401) return ". The API key was refused: create a new one in the web app and run `imghost login` again.";
  if (err.code === "missing_permission") {
    const permission = typeof err.details.permission === "string" ? `the "${err.details.permission}" permission` : "a permission this needs";
    return `. The API key lacks ${permission}: create a key with it in the web app and run \`imghost login\` again.`;
  }
  if (err.status === 0) return ". Is the server running and the base URL right? (`imghost login` shows it)";
  return "";
}
