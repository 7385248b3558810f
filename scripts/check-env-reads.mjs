// `npm run check:config` (CI, beside check:structure): no file of src/ reads a var or a secret around the one
// config (src/config/env.ts). Every `env.NAME` there (c.env.NAME, env?.NAME, env["NAME"], `{ NAME } = env`)
// must name a binding wrangler.toml declares; any other name is a var or a secret, read through config(env).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The binding names of wrangler.toml, at the top level and in every environment it names. */
export function wranglerBindings(configPath = path.join(root, "wrangler.toml")) {
  const { unstable_readConfig } = createRequire(import.meta.url)("wrangler");
  const top = unstable_readConfig({ config: configPath });
  const configs = [top, ...Object.keys(top.env ?? {}).map((env) => unstable_readConfig({ config: configPath, env }))];
  const names = new Set();
  for (const c of configs) {
    for (const list of [c.d1_databases, c.r2_buckets, c.kv_namespaces, c.queues?.producers, c.services, c.analytics_engine_datasets, c.vectorize, c.hyperdrive]) {
      for (const b of list ?? []) names.add(b.binding);
    }
    for (const b of c.durable_objects?.bindings ?? []) names.add(b.name);
    for (const b of c.send_email ?? []) names.add(b.name);
    for (const b of [c.images, c.assets, c.ai, c.browser]) if (b?.binding) names.add(b.binding);
  }
  return names;
}

const READS = [
  /\benv\??\.([A-Z][A-Z0-9_]*)\b/g, // env.NAME, c.env.NAME, env?.NAME
  /\benv\??\.?\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g, // env["NAME"]
];
const DESTRUCTURED = /\{([^{}]*)\}\s*=\s*(?:[\w$]+\??\.)*env\b/g; // const { NAME } = c.env

/** The env reads of a source text: { name, line } for each, bindings and vars alike. */
export function envReads(text) {
  const lineOf = (index) => text.slice(0, index).split("\n").length;
  const out = [];
  for (const pattern of READS) for (const m of text.matchAll(pattern)) out.push({ name: m[1], line: lineOf(m.index) });
  for (const m of text.matchAll(DESTRUCTURED)) {
    for (const part of m[1].split(",")) {
      const name = /^\s*([A-Z][A-Z0-9_]*)\b/.exec(part)?.[1];
      if (name) out.push({ name, line: lineOf(m.index) });
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => path.join(e.parentPath ?? e.path, e.name))
    .sort();
}

/** Every read in `dir` of a name that is not a binding: "file:line NAME". */
export function strayEnvReads(dir, bindings) {
  const stray = [];
  for (const file of sourceFiles(dir)) {
    for (const { name, line } of envReads(readFileSync(file, "utf8"))) {
      if (!bindings.has(name)) stray.push(`${path.relative(root, file)}:${line} ${name}`);
    }
  }
  return stray;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = path.resolve(root, process.argv[2] ?? "src");
  const stray = strayEnvReads(dir, wranglerBindings());
  if (stray.length) {
    console.error(`A var or secret read around the config (use config(env) from src/config/env.ts):\n  ${stray.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`✔ ${path.relative(root, dir) || "."}: every env read names a binding; vars and secrets go through config(env)`);
}
