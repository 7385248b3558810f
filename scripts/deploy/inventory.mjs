// What the account already has, asked of wrangler (read-only commands). `capture` is scripts/deploy/wrangler.mjs's
// (tests pass one that answers with committed samples). Any failure stops the deploy: an unknown answer is never
// taken for "missing", since that would create a second database or replace a secret.
import { ENV } from "./plan.mjs";
import { failure } from "./wrangler.mjs";
import { isWorkerNotFound, parseD1List, parseQueuesList, parseR2BucketList, parseSecretList, parseWhoami } from "./wrangler-output.mjs";

/** Stop paging `wrangler queues list` here: an account with more queues than this is not one this tool guesses at. */
const MAX_QUEUE_PAGES = 50;

function ok(capture, args) {
  const r = capture(args);
  if (r.status !== 0) throw new Error(failure(args, r));
  return r.stdout;
}

/** `wrangler whoami --json` (exit 1 with `{"loggedIn":false}` when logged out, which is an answer, not a failure). */
export function whoami(capture) {
  const r = capture(["whoami", "--json"]);
  try {
    return parseWhoami(r.stdout);
  } catch {
    throw new Error(failure(["whoami", "--json"], r));
  }
}

/**
 * Queue names, page by page (`wrangler queues list` shows one page of the API's list), until a page is empty or
 * every wanted queue has been seen.
 */
export function queueNames(capture, wantedNames) {
  const seen = new Set();
  for (let page = 1; page <= MAX_QUEUE_PAGES; page++) {
    const names = parseQueuesList(ok(capture, ["queues", "list", "--page", String(page)]));
    if (names.length === 0) return seen;
    for (const n of names) seen.add(n);
    if (wantedNames.every((n) => seen.has(n))) return seen;
  }
  throw new Error(`wrangler queues list: more than ${MAX_QUEUE_PAGES} pages; create the queues by hand (README § Deploying)`);
}

/** The production worker's secret names, or null when the worker does not exist yet (nothing is set). */
export function secretNames(capture) {
  const args = ["secret", "list", "--format", "json", "--env", ENV];
  const r = capture(args);
  if (r.status === 0) return parseSecretList(r.stdout);
  if (isWorkerNotFound(r.stderr)) return null;
  throw new Error(failure(args, r));
}

/** Everything planDeploy needs to know about the account. */
export function inventory(capture, want) {
  return {
    d1: parseD1List(ok(capture, ["d1", "list", "--json"])),
    buckets: parseR2BucketList(ok(capture, ["r2", "bucket", "list"])),
    queues: queueNames(capture, want.queues.map((q) => q.name)),
    secrets: secretNames(capture),
  };
}
