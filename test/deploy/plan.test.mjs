// The deploy's decisions (scripts/deploy/plan.mjs, inventory.mjs) as plain code: the production config is
// wrangler's own reading of this repository's wrangler.toml, the account is the committed samples of wrangler's
// output. Given what exists, what is created, set and run.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { inventory, queueNames } from "../../scripts/deploy/inventory.mjs";
import { chooseAccount, configProblems, formatPlan, planDeploy, summary, wanted } from "../../scripts/deploy/plan.mjs";

const { unstable_readConfig } = createRequire(import.meta.url)("wrangler");
const production = unstable_readConfig({ config: fileURLToPath(new URL("../../wrangler.toml", import.meta.url)), env: "production" });
const filled = {
  ...production,
  vars: { ...production.vars, BASE_URL: "https://img.example.org/api/v1", IMAGE_URL: "https://i.example.org", CDN_URL: "https://cdn.example.org", SITE_URL: "https://img.example.org", MAIL_FROM: "imghost <no-reply@img.example.org>" },
};
const want = wanted(filled);
const sample = (name) => readFileSync(new URL(`samples/${name}`, import.meta.url), "utf8");

/** A capture that answers from the samples, the way scripts/deploy/wrangler.mjs's capture answers from wrangler. */
function sampleCapture(overrides = {}) {
  const calls = [];
  const answers = {
    "d1 list --json": sample("d1-list.json"),
    "r2 bucket list": sample("r2-bucket-list.txt"),
    "queues list --page 1": sample("queues-list-page-1.txt"),
    "queues list --page 2": sample("queues-list-page-2.txt"),
    "queues list --page 3": sample("queues-list-page-3.txt"),
    "secret list --format json --env production": sample("secret-list.json"),
    ...overrides,
  };
  const capture = (args) => {
    const key = args.join(" ");
    calls.push(key);
    const a = answers[key];
    if (a === undefined) throw new Error(`unexpected wrangler ${key}`);
    return typeof a === "string" ? { status: 0, stdout: a, stderr: "" } : a;
  };
  return { capture, calls };
}
const withArgs = (plan) => plan.steps.filter((s) => s.args).map((s) => s.args.join(" "));
const nothing = { d1: new Map(), buckets: new Set(), queues: new Set(), secrets: null };

describe("wanted: what the production config asks for", () => {
  it("each database with its chain and its location hint from SHARD_REGIONS; the queues; the secrets", () => {
    expect(want.worker).toBe("edge-image-host");
    expect(want.databases).toEqual([
      { binding: "DB", name: "image-host", id: undefined, dir: "migrations", shard: 0, location: "enam" },
      { binding: "SHARD_1", name: "image-host-shard-1", id: undefined, dir: "migrations-shard", shard: 1, location: "weur" },
    ]);
    expect(want.buckets).toEqual([{ binding: "BUCKET", name: "image-host-objects" }]);
    expect(want.queues).toEqual([
      { name: "image-jobs", producer: "JOBS" },
      { name: "image-jobs-dlq", producer: null },
    ]);
    expect(want.secrets).toEqual(["JWT_SECRET", "BILLING_WEBHOOK_SECRET", "TOTP_ENCRYPTION_SECRET", "SIGNED_URL_SECRET"]);
  });
});

describe("planDeploy: given what exists, what to do", () => {
  it("an empty account: creates both databases with their hints and the dead-letter queue, generates every secret", () => {
    const plan = planDeploy(want, nothing);
    expect(withArgs(plan)).toEqual([
      "d1 create image-host --location enam",
      "d1 create image-host-shard-1 --location weur",
      "queues create image-jobs-dlq",
      "secret put JWT_SECRET --env production",
      "secret put BILLING_WEBHOOK_SECRET --env production",
      "secret put TOTP_ENCRYPTION_SECRET --env production",
      "secret put SIGNED_URL_SECRET --env production",
      "d1 migrations apply DB --remote --env production",
      "d1 migrations apply SHARD_1 --remote --env production",
      "deploy --env production",
    ]);
    // The bucket and the producer's queue are left to wrangler deploy's own provisioning.
    expect(plan.steps.filter((s) => s.state === "provision").map((s) => s.name)).toEqual(["image-host-objects", "image-jobs"]);
    expect(plan.newWorker).toBe(true);
    expect(summary(plan)).toBe("creates 3 (wrangler deploy provisions 2 more), generates 4 secret(s), migrates 2 database(s), deploys edge-image-host");
  });

  it("an account half-way (the samples): only what is missing, and the secrets already set are kept", () => {
    const { capture, calls } = sampleCapture();
    const plan = planDeploy(want, inventory(capture, want));
    expect(withArgs(plan)).toEqual([
      "d1 create image-host-shard-1 --location weur",
      "queues create image-jobs-dlq",
      "secret put BILLING_WEBHOOK_SECRET --env production",
      "secret put SIGNED_URL_SECRET --env production",
      "d1 migrations apply DB --remote --env production",
      "d1 migrations apply SHARD_1 --remote --env production",
      "deploy --env production",
    ]);
    const totp = plan.steps.find((s) => s.name === "TOTP_ENCRYPTION_SECRET");
    expect(totp.state).toBe("set");
    expect(totp.args).toBeUndefined();
    expect(plan.otherSecrets).toEqual(["CF_API_TOKEN"]);
    // The dead-letter queue is on no page: every page was read, up to the empty one.
    expect(calls.filter((c) => c.startsWith("queues"))).toEqual(["queues list --page 1", "queues list --page 2", "queues list --page 3"]);
  });

  it("run again after a full deploy: nothing is created or set, migrations and the deploy run again", () => {
    const all = {
      d1: new Map([["image-host", "a"], ["image-host-shard-1", "b"]]),
      buckets: new Set(["image-host-objects"]),
      queues: new Set(["image-jobs", "image-jobs-dlq"]),
      secrets: new Set(want.secrets),
    };
    expect(withArgs(planDeploy(want, all))).toEqual(["d1 migrations apply DB --remote --env production", "d1 migrations apply SHARD_1 --remote --env production", "deploy --env production"]);
  });

  it("never replaces TOTP_ENCRYPTION_SECRET once set, whatever else is missing", () => {
    for (const others of [[], ["JWT_SECRET"], ["JWT_SECRET", "SIGNED_URL_SECRET", "BILLING_WEBHOOK_SECRET"]]) {
      const plan = planDeploy(want, { ...nothing, secrets: new Set(["TOTP_ENCRYPTION_SECRET", ...others]) });
      expect(withArgs(plan).filter((a) => a.includes("TOTP_ENCRYPTION_SECRET"))).toEqual([]);
    }
  });

  it("a database without a location hint is created without --location", () => {
    const plan = planDeploy(wanted({ ...filled, vars: { ...filled.vars, SHARD_REGIONS: "" } }), nothing);
    expect(withArgs(plan).slice(0, 2)).toEqual(["d1 create image-host", "d1 create image-host-shard-1"]);
  });

  it("prints what exists, what it creates and how", () => {
    const text = formatPlan(planDeploy(want, inventory(sampleCapture().capture, want)));
    expect(text).toContain("D1      DB (image-host): exists, 5c1a7e9e-3d2b-4f0a-9a51-2b7f0c6d8e40");
    expect(text).toContain("D1      SHARD_1 (image-host-shard-1): create, location hint weur  $ wrangler d1 create image-host-shard-1 --location weur");
    expect(text).toContain("Secret  TOTP_ENCRYPTION_SECRET: set, kept: never replaced");
    expect(text).toContain("Queue   image-jobs-dlq: create, no binding names it, so wrangler deploy would not  $ wrangler queues create image-jobs-dlq");
  });
});

describe("inventory: a failed or unreadable answer stops the deploy", () => {
  it("a worker not deployed yet has no secrets (every one is generated)", () => {
    const notFound = { status: 1, stdout: "", stderr: sample("secret-list-no-worker.stderr.txt") };
    const found = inventory(sampleCapture({ "secret list --format json --env production": notFound }).capture, want);
    expect(found.secrets).toBeNull();
  });

  it("any other failure of secret list throws: never taken for 'no secret set'", () => {
    const denied = { status: 1, stdout: "", stderr: "✘ [ERROR] A request to the Cloudflare API failed.\n  Authentication error [code: 10000]" };
    expect(() => inventory(sampleCapture({ "secret list --format json --env production": denied }).capture, want)).toThrow(/secret list --format json --env production failed \(exit 1\):\n.*Authentication error/s);
  });

  it("a failed d1 list throws", () => {
    const down = { status: 1, stdout: "", stderr: "✘ [ERROR] fetch failed" };
    expect(() => inventory(sampleCapture({ "d1 list --json": down }).capture, want)).toThrow(/d1 list --json failed/);
  });

  it("queues are paged only until every wanted one is seen", () => {
    const { capture, calls } = sampleCapture();
    expect(queueNames(capture, ["image-jobs"])).toEqual(new Set(["image-jobs"]));
    expect(calls).toEqual(["queues list --page 1"]);
  });
});

describe("configProblems: what stops a deploy before anything changes", () => {
  it("the committed config: the four addresses and MAIL_FROM are the operator's to set", () => {
    expect(configProblems(production)).toEqual([
      "BASE_URL is empty: set it in [env.production.vars] (an https:// address of the service)",
      "IMAGE_URL is empty: set it in [env.production.vars] (an https:// address of the service)",
      "CDN_URL is empty: set it in [env.production.vars] (an https:// address of the service)",
      "SITE_URL is empty: set it in [env.production.vars] (an https:// address of the service)",
      'MAIL_FROM is empty: set it in [env.production.vars] (a name and an address on the onboarded mail domain: "imghost <no-reply@img.example.org>")',
    ]);
    expect(configProblems(filled)).toEqual([]);
  });

  it("refuses development settings, plain http, loopback hosts, a bad hint, a placeholder id, no mail binding", () => {
    const bad = {
      ...filled,
      vars: { ...filled.vars, ENVIRONMENT: "development", SITE_URL: "http://img.example.org", CDN_URL: "https://localhost/cdn", SHARD_REGIONS: "0:mars,4:weur", OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" },
      d1_databases: [{ binding: "DB", database_name: "image-host", database_id: "00000000-0000-0000-0000-000000000000", migrations_dir: "migrations" }],
      send_email: [],
    };
    const problems = configProblems(bad).join("\n");
    for (const expected of [/ENVIRONMENT must be "production"/, /SITE_URL must be a public https/, /CDN_URL must be a public https/, /EMAIL/, /OUTBOUND_ALLOW_HOSTS must be empty/, /placeholder id/, /"mars", not a D1 location hint/, /names shard 4, which has no D1 binding/]) {
      expect(problems).toMatch(expected);
    }
  });
});

describe("chooseAccount", () => {
  const one = { loggedIn: true, accounts: [{ id: "a1", name: "One" }] };
  const two = { loggedIn: true, accounts: [{ id: "a1", name: "One" }, { id: "a2", name: "Two" }] };
  it("stops when logged out, says how to log in", () => {
    expect(chooseAccount({ loggedIn: false, accounts: [] }).problem).toMatch(/not logged in: run `npx wrangler login`/);
  });
  it("takes the only account, or the one CLOUDFLARE_ACCOUNT_ID names; refuses to guess among several", () => {
    expect(chooseAccount(one).account).toEqual({ id: "a1", name: "One" });
    expect(chooseAccount(two, "a2").account).toEqual({ id: "a2", name: "Two" });
    expect(chooseAccount(two).problem).toMatch(/2 accounts .*set CLOUDFLARE_ACCOUNT_ID/);
  });
});
