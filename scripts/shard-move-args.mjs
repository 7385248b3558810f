// `npm run shard:move` arguments. --local finds the `npm run dev` worker's port exactly as `npm run dev` does
// (devArgs: `--port N` / `--port=N` / `-p N`, else PORT, else 8787), so the admin token goes to that worker only.
import { devArgs } from "./dev-args.mjs";

export const usage =
  "usage: npm run shard:move -- <userId> <toShard> [--local [--port N] | --url https://host] [--token <admin access token>]";

/**
 * @returns {{ help: true } | { userId: string, toShard: number, base: string, token: string }}
 * Throws an Error whose message is what to print (with the usage where it helps).
 */
export function shardMoveArgs(argv, env = {}) {
  const positionals = [];
  const named = { local: false, url: undefined, token: undefined, help: false };
  const portArgs = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--local") named.local = true;
    else if (arg === "--help" || arg === "-h") named.help = true;
    else if (arg === "--url" || arg === "--token") named[arg.slice(2)] = argv[++i];
    else if (arg.startsWith("--url=") || arg.startsWith("--token=")) named[arg.slice(2, arg.indexOf("="))] = arg.slice(arg.indexOf("=") + 1);
    else if (arg === "--port" || arg === "-p") portArgs.push(arg, argv[++i]);
    else if (arg.startsWith("--port=")) portArgs.push(arg);
    else if (arg.startsWith("-")) throw new Error(`unknown option ${arg}\n${usage}`);
    else positionals.push(arg);
  }
  if (named.help) return { help: true };
  const [userId, shardArg] = positionals;
  if (!userId || shardArg === undefined || positionals.length !== 2) throw new Error(usage);
  const toShard = Number(shardArg);
  if (!Number.isInteger(toShard) || toShard < 0) throw new Error(`<toShard> must be a shard number (0, 1, ...)\n${usage}`);
  if (named.local && named.url) throw new Error("give --local or --url, not both");
  if (!named.local && !named.url) throw new Error(`say where the worker is: --local (npm run dev) or --url https://your-host\n${usage}`);
  if (named.url && portArgs.length > 0) throw new Error("--port goes with --local; put the port in --url");
  const base = named.local ? devArgs(portArgs, env).vars.SITE_URL : named.url.replace(/\/+$/, "");
  const token = named.token ?? env.SHARD_MOVE_TOKEN;
  if (!token) throw new Error("an admin's access token is needed: --token or SHARD_MOVE_TOKEN (POST /api/v1/auth/login answers it)");
  return { userId, toShard, base, token };
}
