// A stand-in for the few Cloudflare API routes `npm run deploy` reaches before `wrangler deploy` itself, on
// 127.0.0.1, so that the installed wrangler can be run for real against it (CLOUDFLARE_API_BASE_URL). It answers
// in the API's envelope with the fields wrangler reads (from wrangler's source); it is not Cloudflare, and what
// it shows is wrangler's side only: the commands, their flags, what wrangler prints and sends.
// It runs in a process of its own (spawnFakeApi): the deploy runs wrangler synchronously, which would block a
// server in the same process.
import { spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";

const ok = (result, extra = {}) => ({ success: true, errors: [], messages: [], result, ...extra });
const fail = (status, code, message) => ({ status, body: { success: false, errors: [{ code, message }], messages: [], result: null } });

/**
 * @param {{ accounts?: {id: string, name: string}[], d1?: string[], buckets?: string[], queues?: string[],
 *   secrets?: Record<string, string[]> }} state  what the account has (secrets: per worker; no key: no worker)
 */
export async function startFakeApi(state) {
  const accounts = state.accounts ?? [{ id: "0123456789abcdef0123456789abcdef", name: "Example Co" }];
  const d1 = new Map((state.d1 ?? []).map((name, i) => [name, { uuid: `5c1a7e9e-3d2b-4f0a-9a51-2b7f0c6d8e4${i}`, name, location: undefined }]));
  const buckets = new Set(state.buckets ?? []);
  const queues = new Set(state.queues ?? []);
  const secrets = new Map(Object.entries(state.secrets ?? {}).map(([w, names]) => [w, new Map(names.map((n) => [n, "(set before)"]))]));
  const requests = [];

  const route = (method, path, query, body) => {
    const acct = /^\/client\/v4\/accounts\/(\w+)(\/.*)?$/.exec(path);
    if (path === "/client/v4/user/tokens/verify") return { body: ok({ id: "token", status: "active" }) };
    if (path === "/client/v4/user") return { body: ok({ email: "ops@example.com" }) };
    if (path === "/client/v4/accounts" && method === "GET") return { body: ok(accounts, { result_info: { page: 1, per_page: 50, count: accounts.length, total_count: accounts.length } }) };
    if (path === "/client/v4/memberships") return { body: ok(accounts.map((a) => ({ id: `m-${a.id}`, account: a, status: "accepted" }))) };
    if (path === "/__state") return { body: { requests, d1: [...d1.values()], queues: [...queues], secrets: Object.fromEntries([...secrets].map(([w, m]) => [w, Object.fromEntries(m)])) } };
    if (!acct) return fail(404, 7003, `no route ${path}`);
    const rest = acct[2] ?? "";
    if (rest === "/d1/database" && method === "GET") {
      const page = Number(query.get("page") ?? 1), per = Number(query.get("per_page") ?? 10);
      const all = [...d1.values()].map((d) => ({ uuid: d.uuid, name: d.name, created_at: "2026-03-02T10:14:07.118Z", version: "production", num_tables: 31, file_size: 4583424, jurisdiction: null }));
      return { body: ok(all.slice((page - 1) * per, page * per)) };
    }
    if (rest === "/d1/database" && method === "POST") {
      if (d1.has(body.name)) return fail(400, 7502, "A database with that name already exists");
      const db = { uuid: `9b0e4c7a-1f3d-4a2b-8c6e-5d4f3a2b1c0${d1.size}`, name: body.name, location: body.primary_location_hint };
      d1.set(body.name, db);
      return { body: ok({ uuid: db.uuid, name: db.name, created_on: "2026-11-28T09:00:00.000Z", created_in_region: db.location?.toUpperCase() }) };
    }
    const dbByName = /^\/d1\/database\/([^/]+)$/.exec(rest);
    if (dbByName && method === "GET") {
      const db = [...d1.values()].find((d) => d.name === decodeURIComponent(dbByName[1]) || d.uuid === dbByName[1]);
      return db ? { body: ok({ uuid: db.uuid, name: db.name }) } : fail(404, 7404, "The database could not be found");
    }
    if (/^\/d1\/database\/[^/]+\/query$/.test(rest)) return { body: ok([{ results: [], success: true, meta: { served_by: "fake", duration: 0.1, changes: 0, last_row_id: 0, changed_db: false, size_after: 8192, rows_read: 0, rows_written: 0 } }]) };
    if (rest === "/r2/buckets" && method === "GET") return { body: ok({ buckets: [...buckets].map((name) => ({ name, creation_date: "2026-03-02T10:15:41.204Z", location: "WEUR", storage_class: "Standard" })) }) };
    if (rest === "/queues" && method === "GET") {
      // One queue per page, so paging is exercised.
      const page = Number(query.get("page") ?? 1);
      const all = [...queues].map((name, i) => ({ queue_id: `7f3e2c1b0a9d4e8f9a6b5c4d3e2f1a0${i}`, queue_name: name, created_on: "2026-03-02T10:16:03.551193Z", modified_on: "2026-03-02T10:16:03.551193Z", producers_total_count: 1, consumers_total_count: 1, producers: [], consumers: [] }));
      return { body: ok(all.slice(page - 1, page)) };
    }
    if (rest === "/queues" && method === "POST") {
      queues.add(body.queue_name);
      return { body: ok({ queue_id: "new", queue_name: body.queue_name, created_on: "2026-11-28T09:00:00Z", modified_on: "2026-11-28T09:00:00Z" }) };
    }
    const script = /^\/workers\/scripts\/([^/]+)(\/secrets)?$/.exec(rest);
    if (script && script[2]) {
      const worker = secrets.get(script[1]);
      if (!worker) return fail(404, 10007, "This Worker does not exist on your account.");
      if (method === "GET") return { body: ok([...worker.keys()].map((name) => ({ name, type: "secret_text" }))) };
      worker.set(body.name, body.text);
      return { body: ok({ name: body.name, type: "secret_text" }) };
    }
    if (script && method === "PUT") {
      // wrangler secret put's draft worker, when the worker does not exist yet.
      secrets.set(script[1], secrets.get(script[1]) ?? new Map());
      return { body: ok({ id: script[1] }) };
    }
    return fail(404, 7003, `no route ${method} ${path}`);
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url, "http://fake");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = {};
      // JSON bodies, with or without a content-type (wrangler's queue creation sends none); uploads are not read.
      if (/^\s*[[{]/.test(raw)) body = JSON.parse(raw);
      requests.push({ method: req.method, path: url.pathname, body });
      const r = route(req.method, url.pathname, url.searchParams, body);
      res.writeHead(r.status ?? 200, { "content-type": "application/json" });
      res.end(JSON.stringify(r.body));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { port, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Starts the stand-in in a child process. `state()` answers what it received and holds now (secrets' values
 * included, to check what wrangler sent); `close()` ends it.
 */
export async function spawnFakeApi(state) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(state)], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`fake API exited (${code})`)));
    child.stdout.once("data", (d) => resolve(Number(/listening (\d+)/.exec(String(d))?.[1])));
  });
  const baseUrl = `http://127.0.0.1:${port}/client/v4`;
  return {
    baseUrl,
    state: async () => (await fetch(`http://127.0.0.1:${port}/__state`)).json(),
    close: () => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once("exit", resolve), child.kill()))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { port } = await startFakeApi(JSON.parse(process.argv[2] ?? "{}"));
  console.log(`listening ${port}`);
}

/** The environment that points the project's wrangler at the stand-in (an API token: no login files read). */
export function fakeApiEnv(api, extra = {}) {
  return { CLOUDFLARE_API_BASE_URL: api.baseUrl, CLOUDFLARE_API_TOKEN: "fake-token-for-the-stand-in", WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true", ...extra };
}
