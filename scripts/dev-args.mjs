// `npm run dev` arguments: the port comes from `--port N` / `--port=N`, else the PORT variable, else 8787, and
// the four public addresses follow it (wrangler.toml's [vars] name :8787). Everything else goes to wrangler.
// ENVIRONMENT is "development" here only: wrangler.toml's top level says "production", so that a plain
// `wrangler deploy` never ships dev-only behaviour.

/** @returns {{ port: number, rest: string[], vars: Record<string, string> }} */
export function devArgs(argv, env = {}) {
  let port = env.PORT;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--port" || arg === "-p") port = argv[++i];
    else if (arg.startsWith("--port=")) port = arg.slice("--port=".length);
    else rest.push(arg);
  }
  const n = port === undefined || port === "" ? 8787 : Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`invalid port: ${port}`);
  const origin = `http://localhost:${n}`;
  return {
    port: n,
    rest,
    vars: { ENVIRONMENT: "development", BASE_URL: `${origin}/api/v1`, IMAGE_URL: `${origin}/i`, CDN_URL: `${origin}/cdn`, SITE_URL: origin },
  };
}
