// wrangler.toml as wrangler reads it: production lists every binding and var (environments inherit none of
// them), a plain `wrangler deploy` of the top level is not in development mode, and no placeholder id is left.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const { unstable_readConfig } = createRequire(import.meta.url)("wrangler");
const file = fileURLToPath(new URL("../../wrangler.toml", import.meta.url));
const top = unstable_readConfig({ config: file });
const production = unstable_readConfig({ config: file, env: "production" });

/** Every binding a config declares, as "kind:name", for the kinds this worker uses or may use. */
function bindings(c) {
  return [
    ...c.d1_databases.map((d) => `d1:${d.binding}=${d.database_name}:${d.migrations_dir}`),
    ...c.r2_buckets.map((b) => `r2:${b.binding}=${b.bucket_name}`),
    ...c.kv_namespaces.map((k) => `kv:${k.binding}`),
    ...c.durable_objects.bindings.map((d) => `do:${d.name}=${d.class_name}`),
    ...(c.queues.producers ?? []).map((q) => `queue-producer:${q.binding}=${q.queue}`),
    ...(c.queues.consumers ?? []).map((q) => `queue-consumer:${JSON.stringify(q)}`),
    ...c.send_email.map((s) => `send_email:${s.name}`),
    ...c.services.map((s) => `service:${s.binding}`),
    ...(c.images ? [`images:${c.images.binding}`] : []),
    ...(c.assets ? [`assets:${c.assets.binding}=${c.assets.directory}`] : []),
    ...(c.secrets?.required ?? []).map((s) => `secret:${s}`),
  ];
}

describe("wrangler.toml", () => {
  it("has no placeholder database id anywhere", () => {
    expect(readFileSync(file, "utf8")).not.toMatch(/0{8}-0{4}-0{4}-0{4}-0{12}|0{8}-0{4}-0{4}-0{4}-0{11}1/);
    for (const d of [...top.d1_databases, ...production.d1_databases]) expect(d.database_id).toBeUndefined();
  });

  it("production declares every binding, required secret and var the top level has", () => {
    const missing = bindings(top).filter((b) => !bindings(production).includes(b));
    expect(missing).toEqual([]);
    expect(Object.keys(top.vars).filter((v) => !(v in production.vars))).toEqual([]);
  });

  it("production has the mail binding and the production settings", () => {
    expect(bindings(production)).toContain("send_email:EMAIL");
    expect(production.vars).toMatchObject({ ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "" });
    expect(production.vars).toHaveProperty("MAIL_FROM");
    // The same worker as before environments: its secrets and Durable Objects stay.
    expect(production.name).toBe("edge-image-host");
    expect(production.triggers.crons).toEqual(top.triggers.crons);
    expect(production.migrations).toEqual(top.migrations);
  });

  it("a plain `wrangler deploy` (the top level) never runs in development mode", () => {
    // src/platform/http/env.ts isDevEnvironment: "development" and "test" turn on dev-only behaviour.
    expect(["development", "test"]).not.toContain(top.vars.ENVIRONMENT);
  });
});
