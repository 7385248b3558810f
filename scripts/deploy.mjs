// `npm run deploy [-- --dry-run] [-- --yes]`: from a Cloudflare account logged in with wrangler to a running
// service, always with [env.production]. Reads the config, checks the login, asks the account what exists, prints
// the plan (scripts/deploy/plan.mjs), then (not with --dry-run) creates the missing databases and dead-letter
// queue, generates and sets each missing secret, applies every database's migrations and deploys; wrangler deploy
// itself provisions the bucket and the producer's queue. Safe to run again: it only adds what is missing, never
// replaces a secret, and migrations apply only what is not applied yet.
import { createRequire } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { root } from "./lib.mjs";
import { inventory, whoami } from "./deploy/inventory.mjs";
import { chooseAccount, configProblems, ENV, formatPlan, planDeploy, summary, wanted } from "./deploy/plan.mjs";
import { capture, runStep, wranglerEnv } from "./deploy/wrangler.mjs";

const USAGE = "usage: npm run deploy [-- --dry-run] [-- --yes]";
const argv = process.argv.slice(2);
const dryRun = argv.includes("--dry-run");
const yes = argv.includes("--yes");
const unknown = argv.filter((a) => a !== "--dry-run" && a !== "--yes");
if (unknown.length) {
  console.error(`unknown argument ${unknown.join(" ")}\n${USAGE}`);
  process.exit(2);
}

const stop = (message) => {
  console.error(`\n${message}`);
  process.exit(1);
};

console.log(dryRun ? "npm run deploy --dry-run: the plan only; nothing is created, set or deployed.\n" : "npm run deploy\n");

// 1. The production config as wrangler itself reads it (environments resolved, nothing inherited by mistake).
const { unstable_readConfig } = createRequire(import.meta.url)("wrangler");
const config = unstable_readConfig({ config: path.join(root, "wrangler.toml"), env: ENV });
const want = wanted(config);
console.log(`Config: wrangler.toml [env.${ENV}], worker ${want.worker}`);
for (const d of want.databases) console.log(`  D1      ${d.binding} = ${d.name} (${d.dir}/, ${d.location ? `location hint ${d.location}` : "no location hint"})`);
for (const b of want.buckets) console.log(`  R2      ${b.binding} = ${b.name}`);
for (const q of want.queues) console.log(`  Queue   ${q.name}${q.producer ? ` (producer ${q.producer})` : ""}`);
console.log(`  Secrets ${want.secrets.join(", ")}`);
const problems = configProblems(config);
if (problems.length) {
  console.log(`\nTo fix in wrangler.toml before deploying:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  if (!dryRun) stop("Nothing was changed. Fix the above, then run npm run deploy again.");
}

// 2. The login, and which account every later command acts on (pinned, so wrangler never has to ask).
console.log("\nLogin: wrangler whoami --json");
let login;
try {
  login = whoami(capture);
} catch (e) {
  stop(`Stopped at the login: ${e.message}`);
}
const { account, problem } = chooseAccount(login, process.env.CLOUDFLARE_ACCOUNT_ID ?? config.account_id);
if (!account) stop(`Stopped at the login: ${problem}.`);
console.log(`  ${login.email ?? login.authType ?? "logged in"}, account ${account.name} (${account.id})`);
const env = wranglerEnv({ CLOUDFLARE_ACCOUNT_ID: account.id });
const onAccount = (args) => capture(args, env);

// 3. What exists, and the plan.
console.log("\nAsking the account what exists (d1 list, r2 bucket list, queues list, secret list) ...");
let plan;
try {
  plan = planDeploy(want, inventory(onAccount, want));
} catch (e) {
  stop(`Stopped: ${e.message}`);
}
console.log(`\nPlan: ${summary(plan)}\n${formatPlan(plan)}`);
if (dryRun) {
  console.log(problems.length ? "\nDry run: the config above must be fixed before a deploy." : "\nDry run: nothing was changed.");
  process.exit(problems.length ? 1 : 0);
}

// 4. One confirmation for the whole plan (wrangler's own prompts are off: its stdin is closed).
if (!yes) {
  if (!process.stdin.isTTY) stop("Not a terminal: run `npm run deploy -- --yes` to go ahead without the question.");
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question(`\nGo ahead on account ${account.name}? [y/N] `);
  rl.close();
  if (!/^y(es)?$/i.test(answer.trim())) stop("Nothing was changed.");
}

// 5. Each step in order; a failure stops here, and running again resumes (what exists is kept).
for (const step of plan.steps) {
  if (!step.args) continue;
  const label = step.kind === "secret" ? `${step.name}: generated, set through stdin` : `wrangler ${step.args.join(" ")}`;
  console.log(`\n== ${label}`);
  const status = runStep(step, env);
  if (status !== 0) stop(`Stopped at: ${label} (exit ${status}). Fix the cause and run npm run deploy again: what exists is kept.`);
}
console.log(`\nDeployed ${plan.worker}. Next (README § Deploying): route the four hostnames to it, and onboard the mail domain.`);
