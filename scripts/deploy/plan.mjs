// `npm run deploy`'s decisions as plain functions (tested in test/deploy/plan.test.mjs): from the production
// config (wrangler's own reading of [env.production]) what the service needs, and from what the account has
// (wrangler's list outputs, scripts/deploy/wrangler-output.mjs) what to create, set and run. Nothing here
// spawns or reaches anything.

export const ENV = "production";
/** wrangler d1 create --location choices (wrangler 4.156: LOCATION_CHOICES). */
export const LOCATION_HINTS = ["weur", "eeur", "apac", "oc", "wnam", "enam"];
/** Vars the operator must fill in before a deploy: the worker cannot serve without them. */
const REQUIRED_URLS = ["BASE_URL", "IMAGE_URL", "CDN_URL", "SITE_URL"];
const PLACEHOLDER_ID = /^0{8}-0{4}-0{4}-0{4}-0{11}\d$/;

/** The shard a D1 binding holds: DB is the directory and shard 0, SHARD_n shard n, anything else none. */
function shardOf(binding) {
  if (binding === "DB") return 0;
  const m = /^SHARD_(\d+)$/.exec(binding);
  return m ? Number(m[1]) : null;
}

/** SHARD_REGIONS ("0:enam,1:weur") as shard -> hint, read as src/platform/data/placement.ts reads it. */
export function shardRegions(value) {
  const out = new Map();
  for (const part of (value ?? "").split(",")) {
    const m = /^\s*(\d+)\s*:\s*([a-z]+)\s*$/.exec(part);
    if (m) out.set(Number(m[1]), m[2]);
  }
  return out;
}

/**
 * What the production service needs, from wrangler's resolved config (`unstable_readConfig({ env })`).
 * Queues: every producer's queue (wrangler deploy provisions those), then consumers' and dead-letter queues no
 * producer names (nothing provisions those: `wrangler queues create`).
 */
export function wanted(config) {
  const vars = config.vars ?? {};
  const regions = shardRegions(vars.SHARD_REGIONS);
  const databases = (config.d1_databases ?? []).map((d) => {
    const shard = shardOf(d.binding);
    return { binding: d.binding, name: d.database_name, id: d.database_id, dir: d.migrations_dir, shard, location: shard === null ? undefined : regions.get(shard) };
  });
  const queues = [];
  const addQueue = (name, producer) => name && !queues.some((q) => q.name === name) && queues.push({ name, producer });
  for (const p of config.queues?.producers ?? []) addQueue(p.queue, p.binding);
  for (const c of config.queues?.consumers ?? []) {
    addQueue(c.queue, null);
    addQueue(c.dead_letter_queue, null);
  }
  return {
    worker: config.name,
    databases,
    buckets: (config.r2_buckets ?? []).map((b) => ({ binding: b.binding, name: b.bucket_name })),
    queues,
    secrets: [...(config.secrets?.required ?? [])],
  };
}

/** What in the production config stops a deploy before anything is created: the operator's to fix. */
export function configProblems(config) {
  const vars = config.vars ?? {};
  const problems = [];
  const where = `[env.${ENV}.vars]`;
  if (vars.ENVIRONMENT !== "production") problems.push(`ENVIRONMENT must be "production" in ${where}`);
  for (const name of REQUIRED_URLS) {
    const value = vars[name] ?? "";
    let url;
    try {
      url = new URL(value);
    } catch {
      problems.push(value ? `${name} is not a URL: "${value}"` : `${name} is empty: set it in ${where} (an https:// address of the service)`);
      continue;
    }
    if (url.protocol !== "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)) problems.push(`${name} must be a public https:// address, not "${value}"`);
  }
  if (!(vars.MAIL_FROM ?? "").trim()) problems.push(`MAIL_FROM is empty: set it in ${where} (a name and an address on the onboarded mail domain: "imghost <no-reply@img.example.org>")`);
  if (!(config.send_email ?? []).some((b) => b.name === "EMAIL")) problems.push(`[[env.${ENV}.send_email]] must bind EMAIL`);
  if ((vars.OUTBOUND_ALLOW_HOSTS ?? "").trim()) problems.push("OUTBOUND_ALLOW_HOSTS must be empty in production (the worker refuses to run with it)");
  const databases = wanted(config).databases;
  if (!databases.some((d) => d.binding === "DB")) problems.push(`[[env.${ENV}.d1_databases]] must bind DB`);
  for (const d of databases) {
    if (!d.name) problems.push(`D1 binding ${d.binding} has no database_name`);
    if (d.id && PLACEHOLDER_ID.test(d.id)) problems.push(`D1 binding ${d.binding} has the placeholder id ${d.id}: remove database_id`);
    if (d.location && !LOCATION_HINTS.includes(d.location)) problems.push(`SHARD_REGIONS gives shard ${d.shard} "${d.location}", not a D1 location hint (${LOCATION_HINTS.join(", ")})`);
  }
  for (const shard of shardRegions(vars.SHARD_REGIONS).keys()) {
    if (!databases.some((d) => d.shard === shard)) problems.push(`SHARD_REGIONS names shard ${shard}, which has no D1 binding`);
  }
  return problems;
}

/**
 * Which account wrangler will act on: the only one the login sees, or CLOUDFLARE_ACCOUNT_ID / account_id when
 * it sees several (wrangler itself refuses to choose outside a terminal).
 * @returns {{ account?: { id: string, name: string }, problem?: string }}
 */
export function chooseAccount(whoami, accountId) {
  if (!whoami.loggedIn) return { problem: "not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID)" };
  if (accountId) {
    const account = whoami.accounts.find((a) => a.id === accountId);
    // An account API token may not list its account: trust the id it was given.
    return { account: account ?? { id: accountId, name: "(from CLOUDFLARE_ACCOUNT_ID)" } };
  }
  if (whoami.accounts.length === 1) return { account: whoami.accounts[0] };
  if (whoami.accounts.length === 0) return { problem: "the login sees no account: set CLOUDFLARE_ACCOUNT_ID" };
  const list = whoami.accounts.map((a) => `${a.name} (${a.id})`).join(", ");
  return { problem: `the login sees ${whoami.accounts.length} accounts (${list}): set CLOUDFLARE_ACCOUNT_ID to the one to deploy to` };
}

/**
 * The steps of a deploy, in order, each with the wrangler arguments that carry it out (none: nothing to do, or
 * done by another step). `found.secrets` is null when the worker does not exist yet (every secret is missing).
 * @param {ReturnType<typeof wanted>} want
 * @param {{ d1: Map<string, string>, buckets: Set<string>, queues: Set<string>, secrets: Set<string> | null }} found
 */
export function planDeploy(want, found) {
  const env = ["--env", ENV];
  const steps = [];
  for (const d of want.databases) {
    const id = found.d1.get(d.name);
    if (id) steps.push({ kind: "d1", binding: d.binding, name: d.name, state: "exists", detail: id });
    else steps.push({ kind: "d1", binding: d.binding, name: d.name, state: "create", detail: d.location ? `location hint ${d.location}` : "no location hint", args: ["d1", "create", d.name, ...(d.location ? ["--location", d.location] : [])] });
  }
  for (const b of want.buckets) {
    steps.push({ kind: "r2", binding: b.binding, name: b.name, state: found.buckets.has(b.name) ? "exists" : "provision", detail: found.buckets.has(b.name) ? undefined : "wrangler deploy creates it (bucket_name in config)" });
  }
  for (const q of want.queues) {
    if (found.queues.has(q.name)) steps.push({ kind: "queue", name: q.name, state: "exists" });
    else if (q.producer) steps.push({ kind: "queue", name: q.name, state: "provision", detail: `wrangler deploy creates it (producer binding ${q.producer})` });
    else steps.push({ kind: "queue", name: q.name, state: "create", detail: "no binding names it, so wrangler deploy would not", args: ["queues", "create", q.name] });
  }
  const present = found.secrets ?? new Set();
  for (const name of want.secrets) {
    if (present.has(name)) steps.push({ kind: "secret", name, state: "set", detail: "kept: never replaced" });
    else steps.push({ kind: "secret", name, state: "generate", detail: "32 random bytes, through stdin, never printed", args: ["secret", "put", name, ...env] });
  }
  for (const d of want.databases) {
    steps.push({ kind: "migrate", binding: d.binding, name: d.name, state: "apply", detail: `${d.dir}/, only migrations not applied yet`, args: ["d1", "migrations", "apply", d.binding, "--remote", ...env] });
  }
  steps.push({ kind: "deploy", name: want.worker, state: "deploy", args: ["deploy", ...env] });
  const others = [...present].filter((n) => !want.secrets.includes(n));
  return { worker: want.worker, newWorker: found.secrets === null, otherSecrets: others, steps };
}

const LABEL = { d1: "D1", r2: "R2", queue: "Queue", secret: "Secret", migrate: "Migrate", deploy: "Deploy" };

/** The plan as the dry run prints it: one line per step, what exists, what would be created or set, and how. */
export function formatPlan(plan) {
  const lines = [`Worker ${plan.worker} (--env ${ENV})${plan.newWorker ? ": not deployed yet" : ""}`];
  for (const s of plan.steps) {
    const what = s.binding ? `${s.binding} (${s.name})` : s.name;
    const how = s.args ? `  $ wrangler ${s.args.join(" ")}` : "";
    lines.push(`  ${LABEL[s.kind].padEnd(7)} ${what}: ${s.state}${s.detail ? `, ${s.detail}` : ""}${how}`);
  }
  if (plan.otherSecrets.length) lines.push(`  (also set, left alone: ${plan.otherSecrets.join(", ")})`);
  return lines.join("\n");
}

/** The steps that change something, for the summary line ("creates 2, sets 4 secrets, ..."). */
export function summary(plan) {
  const count = (kind, state) => plan.steps.filter((s) => s.kind === kind && (!state || s.state === state)).length;
  const created = count("d1", "create") + count("queue", "create");
  const provisioned = count("r2", "provision") + count("queue", "provision");
  return `creates ${created}${provisioned ? ` (wrangler deploy provisions ${provisioned} more)` : ""}, generates ${count("secret", "generate")} secret(s), migrates ${count("migrate")} database(s), deploys ${plan.worker}`;
}
