// `npm run admin -- --email E [--role user|moderator|admin] [--plan free|pro|enterprise]`
// Changes a LOCAL account (the D1 database `npm run dev` uses, under .wrangler/) through
// `wrangler d1 execute DB --local`: the plan change is recorded in plan_changes (provider "cli") and the
// change in audit_log, like the admin API does. Production accounts are changed with PATCH /admin/users/:id.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { parseArgs } from "node:util";
import { offlineEnv, root } from "./lib.mjs";

const ROLES = ["user", "moderator", "admin"];
const PLANS = ["free", "pro", "enterprise"];
const usage = "usage: npm run admin -- --email <address> [--role user|moderator|admin] [--plan free|pro|enterprise]";

function fail(message) {
  console.error(message);
  process.exit(2);
}

let args;
try {
  args = parseArgs({ options: { email: { type: "string" }, role: { type: "string" }, plan: { type: "string" }, help: { type: "boolean", short: "h" } } }).values;
} catch (err) {
  fail(`${err.message}\n${usage}`);
}
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const email = (args.email ?? "").trim().toLowerCase();
if (!/^[^\s@']+@[^\s@']+\.[^\s@']+$/.test(email)) fail(`--email must be an e-mail address\n${usage}`);
if (args.role !== undefined && !ROLES.includes(args.role)) fail(`--role must be one of ${ROLES.join(", ")}`);
if (args.plan !== undefined && !PLANS.includes(args.plan)) fail(`--plan must be one of ${PLANS.join(", ")}`);
if (args.role === undefined && args.plan === undefined) fail(`give --role and/or --plan\n${usage}`);

// Ids as the service makes them: prefix + 21 URL-safe characters.
const ALPHABET = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict";
const newId = (prefix) => `${prefix}_${[...randomBytes(21)].map((b) => ALPHABET[b & 63]).join("")}`;

// Every value is validated above against a fixed list or a quote-free pattern; quotes are doubled anyway.
const q = (s) => `'${String(s).replaceAll("'", "''")}'`;
const now = Date.now();
const live = `email = ${q(email)} AND deleted_at IS NULL`;
const details = `json_object(${[args.role && `'role', ${q(args.role)}`, args.plan && `'plan', ${q(args.plan)}`].filter(Boolean).join(", ")})`;
const statements = [
  // History first: these read the plan as it was before the UPDATE below.
  args.plan &&
    `INSERT INTO plan_changes (id, user_id, from_plan, to_plan, provider, status, decided_at, created_at)
     SELECT ${q(newId("pch"))}, id, plan, ${q(args.plan)}, 'cli', 'applied', ${now}, ${now} FROM users WHERE ${live} AND plan <> ${q(args.plan)}`,
  `INSERT INTO audit_log (id, actor_id, action, target_type, target_id, details, created_at)
   SELECT ${q(newId("aud"))}, NULL, 'cli.user_update', 'user', id, ${details}, ${now} FROM users WHERE ${live}`,
  `UPDATE users SET ${[args.role && `role = ${q(args.role)}`, args.plan && `plan = ${q(args.plan)}`, `updated_at = ${now}`].filter(Boolean).join(", ")} WHERE ${live}`,
  `SELECT id, email, role, plan FROM users WHERE ${live}`,
].filter(Boolean);

// wrangler needs Node 22: the project's own node (devDependency) comes first on PATH.
const bin = path.join(root, "node_modules", ".bin");
// WRANGLER_LOG must be "log" (not the scripts' usual "warn"): wrangler prints the --json result at log level.
const env = offlineEnv({ PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, WRANGLER_LOG: "log" });
const result = spawnSync("wrangler", ["d1", "execute", "DB", "--local", "--json", "--command", statements.join(";\n")], {
  cwd: root,
  env,
  encoding: "utf8",
});
if (result.error) fail(result.error.message);
if (result.status !== 0) {
  console.error(result.stderr || result.stdout);
  fail("wrangler d1 execute failed (has `npm run db:migrate:local` or `npm run dev` created the local database?)");
}
let rows = [];
try {
  const out = JSON.parse(result.stdout);
  rows = out[out.length - 1]?.results ?? [];
} catch {
  fail(`unexpected output from wrangler:\n${result.stdout}`);
}
if (rows.length === 0) fail(`No live local account with e-mail ${email}. Sign up first (npm run dev, POST /api/v1/auth/signup).`);
console.log(`Updated ${rows[0].email} (${rows[0].id}): role=${rows[0].role}, plan=${rows[0].plan}`);
