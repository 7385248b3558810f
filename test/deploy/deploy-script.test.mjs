// `npm run deploy` end to end with the installed wrangler, against test/deploy/fake-cloudflare-api.mjs (a local
// stand-in: it proves wrangler's side, the commands, flags, requests and output, not Cloudflare's). Not covered:
// the final `wrangler deploy` (upload, provisioning), whose API is too large to stand in for.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeApiEnv, spawnFakeApi } from "./fake-cloudflare-api.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const ACCOUNT = "0123456789abcdef0123456789abcdef";
const node = (args, env) => spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8", timeout: 110_000 });
/** Runs plan steps the way scripts/deploy.mjs does (runStep), in a process whose output the test reads. */
const runSteps = (steps, env) =>
  node(["--input-type=module", "-e", `import { runStep } from ${JSON.stringify(path.join(root, "scripts/deploy/wrangler.mjs"))}; for (const s of ${JSON.stringify(steps)}) if (runStep(s, process.env) !== 0) process.exit(1);`], env);

describe("npm run deploy --dry-run", () => {
  it("logged out: shows the config's plan and stops at the login", () => {
    // No credentials, a HOME without a stored login, and an API address nothing answers on.
    const env = { ...process.env, HOME: mkdtempSync(path.join(tmpdir(), "deploy-home-")), XDG_CONFIG_HOME: "", CLOUDFLARE_API_BASE_URL: "http://127.0.0.1:9/client/v4" };
    for (const k of ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY", "CLOUDFLARE_EMAIL", "CLOUDFLARE_ACCOUNT_ID"]) delete env[k];
    const r = node(["scripts/deploy.mjs", "--dry-run"], env);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("D1      SHARD_1 = image-host-shard-1 (migrations-shard/, location hint weur)");
    expect(r.stdout).toContain("BASE_URL is empty: set it in [env.production.vars]");
    expect(r.stderr).toContain("Stopped at the login: not logged in: run `npx wrangler login`");
  });

  describe("logged in, on an account half-way", () => {
    let api;
    beforeAll(async () => {
      api = await spawnFakeApi({ d1: ["image-host"], buckets: ["image-host-objects"], queues: ["image-jobs"], secrets: { "edge-image-host": ["JWT_SECRET", "TOTP_ENCRYPTION_SECRET"] } });
    });
    afterAll(() => api?.close());

    it("prints what exists and what it would create and set, and changes nothing", async () => {
      const r = node(["scripts/deploy.mjs", "--dry-run"], { ...process.env, ...fakeApiEnv(api), CLOUDFLARE_ACCOUNT_ID: ACCOUNT });
      // Exit 1: the committed config still lacks the operator's addresses and MAIL_FROM; the plan is printed anyway.
      expect(r.status).toBe(1);
      for (const line of [
        "ops@example.com, account Example Co (0123456789abcdef0123456789abcdef)",
        "D1      DB (image-host): exists, 5c1a7e9e-3d2b-4f0a-9a51-2b7f0c6d8e40",
        "D1      SHARD_1 (image-host-shard-1): create, location hint weur  $ wrangler d1 create image-host-shard-1 --location weur",
        "R2      BUCKET (image-host-objects): exists",
        "Queue   image-jobs: exists",
        "Queue   image-jobs-dlq: create",
        "Secret  TOTP_ENCRYPTION_SECRET: set, kept: never replaced",
        "Secret  SIGNED_URL_SECRET: generate, 32 random bytes, through stdin, never printed  $ wrangler secret put SIGNED_URL_SECRET --env production",
        "Deploy  edge-image-host: deploy  $ wrangler deploy --env production",
      ]) {
        expect(r.stdout).toContain(line);
      }
      const { requests } = await api.state();
      expect(requests.filter((q) => q.method !== "GET")).toEqual([]);
    });
  });
});

describe("the steps, as the deploy runs them", () => {
  let api;
  beforeAll(async () => {
    api = await spawnFakeApi({ d1: ["image-host"], secrets: { "edge-image-host": ["TOTP_ENCRYPTION_SECRET"] } });
  });
  afterAll(() => api?.close());

  it("creates a database with its location hint and the dead-letter queue; sets a secret through stdin only", async () => {
    const env = { ...process.env, ...fakeApiEnv(api), CLOUDFLARE_ACCOUNT_ID: ACCOUNT, WRANGLER_LOG: "log" };
    const r = runSteps(
      [
        { kind: "d1", args: ["d1", "create", "image-host-shard-1", "--location", "weur"] },
        { kind: "queue", args: ["queues", "create", "image-jobs-dlq"] },
        { kind: "secret", name: "SIGNED_URL_SECRET", args: ["secret", "put", "SIGNED_URL_SECRET", "--env", "production"] },
      ],
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    const state = await api.state();
    const created = state.requests.find((q) => q.method === "POST" && q.path.endsWith("/d1/database"));
    expect(created.body).toEqual({ name: "image-host-shard-1", primary_location_hint: "weur" });
    expect(state.queues).toContain("image-jobs-dlq");
    const value = state.secrets["edge-image-host"].SIGNED_URL_SECRET;
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.stdout + r.stderr).not.toContain(value);
    // The secret that was there is untouched.
    expect(state.secrets["edge-image-host"].TOTP_ENCRYPTION_SECRET).toBe("(set before)");
  });

  it("migrates a database found by its name (no database_id in wrangler.toml)", async () => {
    const env = { ...process.env, ...fakeApiEnv(api), CLOUDFLARE_ACCOUNT_ID: ACCOUNT, WRANGLER_LOG: "log" };
    const r = runSteps([{ kind: "migrate", args: ["d1", "migrations", "apply", "DB", "--remote", "--env", "production"] }], env);
    expect(r.status, r.stderr).toBe(0);
    const { requests } = await api.state();
    expect(requests.some((q) => q.method === "GET" && q.path.endsWith("/d1/database/image-host"))).toBe(true);
    const queries = requests.filter((q) => q.path.endsWith("/query")).map((q) => q.body.sql ?? "");
    expect(queries.some((sql) => sql.includes("0000_"))).toBe(true);
  });
});
