// `npm run admin -- --email E [--role user|moderator|admin] [--plan free|pro|enterprise] [--port N]`
// Changes a LOCAL account through the running `npm run dev` worker (http://localhost:8787, or --port / PORT):
// PATCH /api/v1/dev/users runs the same code as PATCH /admin/users/:id, so the plan history (provider "cli"), the
// audit records and the account's edge-cached record (forgotten before the answer) all follow, and the very next
// request has the new role and plan. That route answers only in development, to a loopback host. Production
// accounts are changed with PATCH /admin/users/:id.
import { parseArgs } from "node:util";
import { PLANS, ROLES, adminRequest } from "./admin-request.mjs";

const usage = "usage: npm run admin -- --email <address> [--role user|moderator|admin] [--plan free|pro|enterprise] [--port N]";

function fail(message) {
  console.error(message);
  process.exit(2);
}

let args;
try {
  args = parseArgs({ options: { email: { type: "string" }, role: { type: "string" }, plan: { type: "string" }, port: { type: "string" }, help: { type: "boolean", short: "h" } } }).values;
} catch (err) {
  fail(`${err.message}\n${usage}`);
}
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const email = (args.email ?? "").trim().toLowerCase();
if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail(`--email must be an e-mail address\n${usage}`);
if (args.role !== undefined && !ROLES.includes(args.role)) fail(`--role must be one of ${ROLES.join(", ")}`);
if (args.plan !== undefined && !PLANS.includes(args.plan)) fail(`--plan must be one of ${PLANS.join(", ")}`);
if (args.role === undefined && args.plan === undefined) fail(`give --role and/or --plan\n${usage}`);
const port = Number(args.port ?? process.env.PORT ?? 8787);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`--port must be a port number\n${usage}`);

const { url, init } = adminRequest({ email, role: args.role, plan: args.plan, port });
let res;
try {
  res = await fetch(url, init);
} catch (err) {
  fail(`could not reach ${url} (${err.cause?.code ?? err.message}): start the worker first with npm run dev${port === 8787 ? "" : ` -- --port ${port}`}`);
}
const body = await res.json().catch(() => ({}));
if (res.status === 404 && body.details?.code === "user_not_found") fail(`No live local account with e-mail ${email}. Sign up first (POST /api/v1/auth/signup).`);
if (res.status !== 200) fail(`${res.status} ${body.details?.code ?? ""}: ${body.message ?? JSON.stringify(body)} (is ENVIRONMENT development in .dev.vars / wrangler.toml?)`);
const { user } = body;
console.log(`Updated ${user.email} (${user.id}): role=${user.role}, plan=${user.plan}`);
