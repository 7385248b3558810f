// Records the samples beside this file: the installed wrangler's real stdout for each command `npm run deploy`
// reads, against test/deploy/fake-cloudflare-api.mjs (made-up account contents; nothing reaches Cloudflare).
// Run `node test/deploy/samples/record.mjs` after a wrangler upgrade; test/deploy/*.test.mjs read the files.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fakeApiEnv, spawnFakeApi } from "../fake-cloudflare-api.mjs";
import { capture, wranglerEnv } from "../../../scripts/deploy/wrangler.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// An account mid-way: an earlier run made the directory database, the bucket and the main queue, and the worker
// has two of its four secrets (plus an unrelated database, bucket and queue of another project).
const api = await spawnFakeApi({
  d1: ["image-host", "notes-app"],
  buckets: ["image-host-objects", "notes-attachments"],
  queues: ["image-jobs", "notes-events"],
  secrets: { "edge-image-host": ["JWT_SECRET", "TOTP_ENCRYPTION_SECRET", "CF_API_TOKEN"] },
});
const env = wranglerEnv(fakeApiEnv(api, { CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef" }));
const samples = {
  "whoami.json": ["whoami", "--json"],
  "d1-list.json": ["d1", "list", "--json"],
  "r2-bucket-list.txt": ["r2", "bucket", "list"],
  "queues-list-page-1.txt": ["queues", "list", "--page", "1"],
  "queues-list-page-2.txt": ["queues", "list", "--page", "2"],
  "queues-list-page-3.txt": ["queues", "list", "--page", "3"],
  "secret-list.json": ["secret", "list", "--format", "json", "--env", "production"],
};
for (const [file, args] of Object.entries(samples)) {
  const r = capture(args, env);
  if (r.status !== 0) throw new Error(`wrangler ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  writeFileSync(path.join(here, file), r.stdout);
}
// A worker that does not exist yet: the error text (stderr) that means "no secret is set".
const fresh = await spawnFakeApi({});
const r = capture(["secret", "list", "--format", "json", "--env", "production"], wranglerEnv(fakeApiEnv(fresh, { CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef" })));
writeFileSync(path.join(here, "secret-list-no-worker.stderr.txt"), r.stderr.replace(/^.*Logs were written to.*\n?/m, ""));
// Logged out: no token, and a HOME without wrangler's stored login.
const loggedOut = wranglerEnv({ HOME: mkdtempSync(path.join(tmpdir(), "wrangler-home-")), XDG_CONFIG_HOME: "", CLOUDFLARE_API_BASE_URL: "http://127.0.0.1:9/client/v4" });
for (const k of ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY", "CLOUDFLARE_EMAIL"]) delete loggedOut[k];
writeFileSync(path.join(here, "whoami-logged-out.json"), capture(["whoami", "--json"], loggedOut).stdout);
const version = spawnSync(process.execPath, [path.join(here, "../../../node_modules/wrangler/bin/wrangler.js"), "--version"], { encoding: "utf8" }).stdout.trim();
console.log(`recorded ${Object.keys(samples).length + 2} samples with wrangler ${version}`);
await api.close();
await fresh.close();
