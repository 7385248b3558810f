// scripts/check-env-reads.mjs (`npm run check:config`): it finds a var read planted in any of its forms, lets
// bindings through, and finds none in src/.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { envReads, strayEnvReads, wranglerBindings } from "../../scripts/check-env-reads.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bindings = wranglerBindings();
const planted = mkdtempSync(path.join(tmpdir(), "env-reads-"));
afterAll(() => rmSync(planted, { recursive: true, force: true }));

describe("check-env-reads", () => {
  it("knows wrangler.toml's bindings", () => {
    for (const name of ["DB", "SHARD_1", "BUCKET", "IMAGES", "EMAIL", "JOBS", "RATE_LIMITER", "VIEW_COUNTER", "TUS_UPLOADS", "ASSETS"]) expect(bindings).toContain(name);
    for (const name of ["SITE_URL", "JWT_SECRET", "ENVIRONMENT"]) expect(bindings).not.toContain(name);
  });

  it("reads every form: env.X, c.env.X, env?.X, env['X'], a destructured { X } = c.env", () => {
    const text = [
      "const a = env.SITE_URL;",
      "const b = c.env.JWT_SECRET + env.DB;",
      "const d = env?.CDN_URL;",
      'const e = env["MAIL_FROM"];',
      "const { BUCKET, ADMIN_EMAILS: admins } = c.env;",
      "const f = config(env).siteUrl;",
    ].join("\n");
    expect(envReads(text).map((r) => `${r.line} ${r.name}`)).toEqual(["1 SITE_URL", "2 JWT_SECRET", "2 DB", "3 CDN_URL", "4 MAIL_FROM", "5 BUCKET", "5 ADMIN_EMAILS"]);
  });

  it("fails on a planted env.SITE_URL, naming the file and line; passes on src/", () => {
    mkdirSync(path.join(planted, "feature"), { recursive: true });
    writeFileSync(path.join(planted, "feature", "page.ts"), "// a page\nexport const home = (env: Env) => `${env.SITE_URL}/` + env.DB;\n");
    expect(strayEnvReads(planted, bindings).map((s) => s.replace(/^.*feature/, "feature"))).toEqual(["feature/page.ts:2 SITE_URL"]);
    const run = spawnSync(process.execPath, ["scripts/check-env-reads.mjs", planted], { cwd: root, encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/page\.ts:2 SITE_URL/);
    expect(strayEnvReads(path.join(root, "src"), bindings)).toEqual([]);
  });
});
