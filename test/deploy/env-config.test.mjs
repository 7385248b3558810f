// The vars and secrets are said in three places that must agree: the config's schema (src/config/env-schema.ts,
// the defaults), wrangler.toml (the local values at the top level, production's below) and the README's
// configuration table. Same names everywhere; the README's local value is wrangler.toml's, and a var's default
// is that value too.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CONFIG_NAMES, OPTIONAL_SECRETS, REQUIRED_SECRETS, VAR_DEFAULTS } from "../../src/config/env-schema.ts";

const { unstable_readConfig } = createRequire(import.meta.url)("wrangler");
const file = fileURLToPath(new URL("../../wrangler.toml", import.meta.url));
const top = unstable_readConfig({ config: file });
const production = unstable_readConfig({ config: file, env: "production" });

/** The README's § Configuration rows: name, kind and local value ("empty" is ""; else the first `code`). */
function readmeRows() {
  const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8");
  const section = readme.slice(readme.indexOf("\n## Configuration"), readme.indexOf("\n### Addresses"));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.slice(2, -2).split(" | ");
      const value = cells[3].startsWith("empty") ? "" : (/`([^`]*)`/.exec(cells[3])?.[1] ?? null);
      return { name: /^`([A-Z_0-9]+)`/.exec(cells[0])?.[1], kind: cells[1], value };
    });
}

const SECRETS = [...REQUIRED_SECRETS, ...OPTIONAL_SECRETS];
const schemaVars = CONFIG_NAMES.filter((n) => !SECRETS.includes(n));
const readme = readmeRows();
const readmeVars = readme.filter((r) => r.kind === "var");
const sorted = (list) => [...list].sort();

describe("vars and secrets: the schema, wrangler.toml and the README agree", () => {
  it("the same vars in the schema, wrangler.toml (both levels) and the README", () => {
    expect(sorted(Object.keys(top.vars))).toEqual(sorted(schemaVars));
    expect(sorted(Object.keys(production.vars))).toEqual(sorted(schemaVars));
    expect(sorted(readmeVars.map((r) => r.name))).toEqual(sorted(schemaVars));
  });

  it("the same secrets: wrangler.toml requires the schema's required ones, the README lists them all", () => {
    expect(sorted(top.secrets.required)).toEqual(sorted(REQUIRED_SECRETS));
    expect(sorted(production.secrets.required)).toEqual(sorted(REQUIRED_SECRETS));
    expect(sorted(readme.filter((r) => r.kind === "secret").map((r) => r.name))).toEqual(sorted(REQUIRED_SECRETS));
    expect(sorted(readme.filter((r) => r.kind === "secret (optional)").map((r) => r.name))).toEqual(sorted(OPTIONAL_SECRETS));
  });

  it("npm run dev and the tests generate every required secret into .dev.vars (scripts/lib.mjs)", () => {
    const lib = readFileSync(fileURLToPath(new URL("../../scripts/lib.mjs", import.meta.url)), "utf8");
    const generated = JSON.parse(/const LOCAL_SECRETS = (\[[^\]]*\]);/.exec(lib)[1]);
    expect(sorted(generated)).toEqual(sorted(REQUIRED_SECRETS));
  });

  it("the README's local value is wrangler.toml's, and the schema's default where the var has one", () => {
    for (const { name, value } of readmeVars) expect(value, name).toBe(top.vars[name]);
    for (const [name, value] of Object.entries(VAR_DEFAULTS)) expect(top.vars[name], name).toBe(value);
  });

  it("production keeps every default but the ones a deployment sets (addresses, MAIL_FROM, shard regions)", () => {
    const differing = Object.entries(VAR_DEFAULTS).filter(([name, value]) => production.vars[name] !== value).map(([name]) => name);
    expect(differing).toEqual(["SHARD_REGIONS"]);
  });
});
