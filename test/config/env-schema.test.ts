// The one config (src/config/env-schema.ts, src/config/env.ts): every var's default, every bad value refused
// with its name, production's refusals, and the single slot that parses once per env (and again when a test
// changes the shared env in place).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv, queueWithEnv, quietly } from "../support/startup";
import { config, configAtEntry, ConfigError } from "../../src/config/env";
import { CONFIG_NAMES, parseConfig, REQUIRED_SECRETS, VAR_DEFAULTS } from "../../src/config/env-schema";

const problemOf = (vars: Record<string, unknown>): string | null => {
  const parsed = parseConfig({ ...env, ...vars });
  return parsed.ok ? null : parsed.problem;
};

describe("defaults", () => {
  it("every var with a default takes it when unset, parsed as wrangler.toml's value would be", () => {
    const unset = Object.fromEntries(Object.keys(VAR_DEFAULTS).map((name) => [name, undefined]));
    const parsed = parseConfig({ ...env, ...unset });
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.config).toMatchObject({
      environment: "production",
      adminEmails: [],
      nsfwThreshold: 0.8,
      phashDistance: 8,
      rateLimitMultiplier: 1,
      finalizeWaitMs: 10_000,
      accessRecordSeconds: 30,
      viewCoalesceMs: 1000,
      shardsOpen: [],
      queueRetryBaseSeconds: 5,
      globalPurge: null,
    });
    expect(parsed.config.shardRegions.size).toBe(0);
    expect(parsed.config.outboundAllowHosts.size).toBe(0);
  });

  it("names every var and secret once; the required secrets are among them", () => {
    expect(new Set(CONFIG_NAMES).size).toBe(CONFIG_NAMES.length);
    for (const name of [...Object.keys(VAR_DEFAULTS), ...REQUIRED_SECRETS, "BASE_URL", "MAIL_FROM", "CF_API_TOKEN"]) expect(CONFIG_NAMES).toContain(name);
  });
});

describe("a bad value is refused, naming the var", () => {
  it.each([
    ["ENVIRONMENT", "staging"],
    ["BASE_URL", "api.example.com"],
    ["IMAGE_URL", ""],
    ["CDN_URL", "ftp://cdn.example.com"],
    ["SITE_URL", undefined],
    ["MAIL_FROM", "noreply@example.com"],
    ["ADMIN_EMAILS", "root@example.com, nobody"],
    ["NSFW_THRESHOLD", "high"],
    ["NSFW_THRESHOLD", "1.5"],
    ["PHASH_DISTANCE", "8.5"],
    ["PHASH_DISTANCE", "33"],
    ["RATE_LIMIT_MULTIPLIER", "0"],
    ["RATE_LIMIT_MULTIPLIER", "lots"],
    ["FINALIZE_WAIT_MS", "-1"],
    ["FINALIZE_WAIT_MS", "60001"],
    ["ACCESS_RECORD_SECONDS", "soon"],
    ["VIEW_COALESCE_MS", "10001"],
    ["SHARDS_OPEN", "0,one"],
    ["SHARD_REGIONS", "0=weur"],
    ["OUTBOUND_ALLOW_HOSTS", "127.0.0.1"],
    ["QUEUE_RETRY_BASE_SECONDS", "five"],
    ["JWT_SECRET", "short"],
    ["JWT_SECRET", undefined],
    ["BILLING_WEBHOOK_SECRET", ""],
    ["TOTP_ENCRYPTION_SECRET", "x".repeat(31)],
    ["SIGNED_URL_SECRET", undefined],
  ])("%s = %j", (name, value) => {
    expect(problemOf({ [name]: value })).toMatch(new RegExp(`^${name}: `));
  });

  it("several bad values are all named", () => {
    expect(problemOf({ NSFW_THRESHOLD: "x", PHASH_DISTANCE: "y" })).toMatch(/NSFW_THRESHOLD: .*; PHASH_DISTANCE: /);
  });

  it("good values parse: numbers written unquoted, lists with spaces, off", () => {
    const parsed = parseConfig({
      ...env,
      NSFW_THRESHOLD: 0.5,
      RATE_LIMIT_MULTIPLIER: " OFF ",
      ADMIN_EMAILS: " Root@Example.com ,b@example.com,",
      SHARD_REGIONS: "0:weur, 1 : enam",
      OUTBOUND_ALLOW_HOSTS: "Localhost:8080, [::1]:9000",
      CF_ZONE_ID: "zone",
      CF_API_TOKEN: "token",
    });
    if (!parsed.ok) throw new Error(parsed.problem);
    const c = parsed.config;
    expect(c.nsfwThreshold).toBe(0.5);
    expect(c.rateLimitMultiplier).toBe("off");
    expect(c.adminEmails).toEqual(["root@example.com", "b@example.com"]);
    expect([...c.shardRegions]).toEqual([[0, "weur"], [1, "enam"]]);
    expect([...c.outboundAllowHosts]).toEqual(["localhost:8080", "[::1]:9000"]);
    expect(c.globalPurge).toEqual({ zoneId: "zone", apiToken: "token" });
  });
});

describe("production", () => {
  it("refuses OUTBOUND_ALLOW_HOSTS and a missing MAIL_FROM, saying why", () => {
    expect(problemOf({ ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" })).toMatch(/^OUTBOUND_ALLOW_HOSTS: .*production/);
    expect(problemOf({ ENVIRONMENT: "production", MAIL_FROM: "" })).toMatch(/^MAIL_FROM: .*production/);
    expect(problemOf({ ENVIRONMENT: "test", MAIL_FROM: "" })).toBeNull();
    expect(problemOf({ ENVIRONMENT: "production" })).toBeNull();
  });
});

describe("config(env): parsed once, frozen", () => {
  it("the same env gives the same object; a copy with the same values too; other values another", () => {
    const first = config(env);
    expect(config(env)).toBe(first);
    expect(config({ ...env })).toBe(first);
    const other = config({ ...env, PHASH_DISTANCE: "3" });
    expect(other).not.toBe(first);
    expect(other.phashDistance).toBe(3);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.adminEmails)).toBe(true);
    expect(Object.isFrozen(first.jwt)).toBe(true);
  });

  it("throws a ConfigError naming the var; configAtEntry answers the problem instead", () => {
    const bad = { ...env, VIEW_COALESCE_MS: "often" };
    expect(() => config(bad)).toThrow(ConfigError);
    expect(() => config(bad)).toThrow(/^VIEW_COALESCE_MS: /);
    expect(configAtEntry(bad)).toEqual({ ok: false, problem: expect.stringMatching(/^VIEW_COALESCE_MS: /) });
  });

  it("an env changed in place is seen at the next entry", () => {
    const shared = { ...env };
    expect(configAtEntry(shared)).toMatchObject({ ok: true, config: { queueRetryBaseSeconds: 5 } });
    shared.QUEUE_RETRY_BASE_SECONDS = "0";
    expect(configAtEntry(shared)).toMatchObject({ ok: true, config: { queueRetryBaseSeconds: 0 } });
    expect(config(shared).queueRetryBaseSeconds).toBe(0);
  });
});

describe("at startup", () => {
  it("a bad var: every request 503 naming it, logged; queue batches refused", async () => {
    const bad = { ...env, PHASH_DISTANCE: "near" } as Env;
    await quietly(async (logged) => {
      const res = await fetchWithEnv(bad);
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/^Service misconfigured: PHASH_DISTANCE: expected a whole number/);
      expect(logged()).toMatch(/refusing to run: PHASH_DISTANCE/);
      await expect(queueWithEnv(bad)).rejects.toThrow(/PHASH_DISTANCE/);
    });
  });

});
