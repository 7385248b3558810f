// `npm run shard:move -- <userId> <toShard> [--local [--port N] | --url https://host] [--token T]`
// Moves one owner's data to another shard (docs/sharding.md § Moving an owner) by calling the worker's admin
// route, POST /api/v1/admin/shards/move, until it answers step "done". The worker runs the steps (the same code
// the tests drive in workerd), a bounded number of pages per call, and records each step in the directory: stop
// this script at any point (Ctrl-C, a lost connection) and run it again, and the move goes on where it was.
// --local: the `npm run dev` worker, on the port `npm run dev` takes (--port, else PORT, else 8787). --url: a
// deployed one. The token is an admin's
// session access token (POST /auth/login answers it as session.access_token; API keys are refused for /admin),
// from --token or the SHARD_MOVE_TOKEN environment variable.
import { shardMoveArgs, usage } from "./shard-move-args.mjs";

function fail(message) {
  console.error(message);
  process.exit(2);
}

let parsed;
try {
  parsed = shardMoveArgs(process.argv.slice(2), process.env);
} catch (err) {
  fail(err.message);
}
if (parsed.help) {
  console.log(usage);
  process.exit(0);
}
const { userId, toShard, base, token } = parsed;

// Waiting for the owner's uploads in flight (they end or expire within the upload expiry), and between calls.
const WAIT_MS = 15_000;
const MAX_CALLS = 10_000;

for (let call = 1; call <= MAX_CALLS; call++) {
  let res;
  try {
    res = await fetch(`${base}/api/v1/admin/shards/move`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ userId, toShard }),
    });
  } catch (err) {
    fail(`could not reach ${base}: ${err.message} (run it again: the move goes on where it stopped)`);
  }
  const body = await res.json().catch(() => ({}));
  if (res.status !== 200) fail(`${res.status} ${body.details?.code ?? ""}: ${body.message ?? JSON.stringify(body)}`);
  console.log(`${new Date().toISOString()} ${userId}: shard ${body.fromShard} -> ${body.toShard}, step ${body.step}${body.waitingFor ? ` (waiting for ${body.waitingFor})` : ""}`);
  if (body.step === "done") process.exit(0);
  if (body.waitingFor) await new Promise((r) => setTimeout(r, WAIT_MS));
}
fail(`not done after ${MAX_CALLS} calls: run it again to go on`);
