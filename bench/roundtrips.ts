// BENCHMARK-ONLY: what a request waits for. A request sent with `x-bench-tally: 1` runs with its bindings
// wrapped so every call is counted by kind. A call counts as waited for when it settles before the response
// is returned; calls still under way then (view counts, lease refills, cache fills started for waitUntil) are
// counted apart as background. The response carries `x-bench-tally: {"d1Primary":1,...,"background":{...}}`
// and `x-bench-calls`, a short list of what was called. With `x-bench-rtt-ms: N`, every call to
// single-location state (a D1 query on the primary, a Durable Object call) first waits N ms, as it would for a
// viewer far from that place; replicas, R2 and the cache stay local. Compare the latency with and without it,
// and read the tally of the run with RTT: a background call cannot settle within it. One request at a time
// (the tally is per isolate).
// d1Primary/d1Replica: database DB, the directory (and shard 0); shardPrimary/shardReplica: SHARD_1, where the
// bench's owner lives (roundtrips.bench.mjs opens only shard 1 to new owners), so the two are told apart.
type Kind = "d1Primary" | "d1Replica" | "shardPrimary" | "shardReplica" | "durableObject" | "r2" | "cacheRead";
export type Tally = Record<Kind, number>;

const emptyTally = (): Tally => ({ d1Primary: 0, d1Replica: 0, shardPrimary: 0, shardReplica: 0, durableObject: 0, r2: 0, cacheRead: 0 });
const SINGLE_LOCATION = new Set<Kind>(["d1Primary", "shardPrimary", "durableObject"]);

type Run = { tally: Tally; started: Tally; calls: string[]; rttMs: number; returned: boolean };
let current: Run | null = null;

const wait = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** Counts the call (waited for if it settles before the response), after the injected RTT for single-location state. */
async function roundTrip<T>(kind: Kind, what: string, call: () => Promise<T>): Promise<T> {
  const run = current;
  if (!run) return call();
  run.started[kind]++;
  run.calls.push(`${kind}: ${what.replace(/\s+/g, " ").slice(0, 90)}`);
  try {
    if (SINGLE_LOCATION.has(kind)) await wait(run.rttMs);
    return await call();
  } finally {
    if (!run.returned) run.tally[kind]++;
  }
}

const STATEMENT_CALLS = new Set(["first", "all", "run", "raw"]);

// batch() takes the binding's own statements, not proxies: each proxy remembers its statement.
const unwrapped = new WeakMap<object, D1PreparedStatement>();
const unwrap = (stmts: D1PreparedStatement[]) => stmts.map((s) => unwrapped.get(s) ?? s);

function statement(stmt: D1PreparedStatement, kind: Kind, sql: string): D1PreparedStatement {
  const proxy = new Proxy(stmt, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "bind") return (...args: unknown[]) => statement((value as Function).apply(target, args), kind, sql);
      if (STATEMENT_CALLS.has(String(prop))) return (...args: unknown[]) => roundTrip(kind, sql, () => (value as Function).apply(target, args));
      return (value as Function).bind(target);
    },
  });
  unwrapped.set(proxy, stmt);
  return proxy;
}

/** A D1 handle (database or session) whose statements and batches are counted as `kind`. */
function database<T extends D1Database | D1DatabaseSession>(db: T, kind: Kind): T {
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "prepare") return (sql: string) => statement((value as Function).call(target, sql), kind, sql);
      if (prop === "batch") return (stmts: D1PreparedStatement[]) => roundTrip(kind, `batch of ${stmts.length}`, () => (value as Function).call(target, unwrap(stmts)));
      if (prop === "exec") return (...args: unknown[]) => roundTrip(kind, "exec", () => (value as Function).apply(target, args));
      if (prop === "withSession") {
        // Unconstrained and bookmark sessions read the nearest replica in production; "first-primary" starts there.
        const shard = kind === "shardPrimary" || kind === "shardReplica";
        const primary = shard ? "shardPrimary" : "d1Primary";
        const replica = shard ? "shardReplica" : "d1Replica";
        return (constraint?: string) => database((value as Function).call(target, constraint), constraint === "first-primary" ? primary : replica);
      }
      return (value as Function).bind(target);
    },
  }) as T;
}

function stub(real: DurableObjectStub, name: string): DurableObjectStub {
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (prop === "then" || typeof value !== "function") return value;
      // Reflect.apply: an RPC method stub answers any property (even `apply`) as a remote method.
      return (...args: unknown[]) => roundTrip("durableObject", `${name}.${String(prop)}`, () => Reflect.apply(value as Function, target, args));
    },
  });
}

function namespace<T extends object>(ns: T, name: string): T {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") return (...args: unknown[]) => stub((value as Function).apply(target, args), name);
      return (value as Function).bind(target);
    },
  });
}

function bucket(r2: R2Bucket): R2Bucket {
  return new Proxy(r2, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      // Every R2 method but the multipart handles returns a promise.
      return (...args: unknown[]) => {
        if (prop === "createMultipartUpload" || prop === "resumeMultipartUpload") return (value as Function).apply(target, args);
        return roundTrip("r2", `${String(prop)} ${String(args[0]).slice(0, 60)}`, () => (value as Function).apply(target, args));
      };
    },
  });
}

let cachePatched = false;
/** caches.default is a global, not a binding: its reads are counted in place (bench worker only). */
function countCacheReads() {
  if (cachePatched || typeof caches === "undefined") return;
  cachePatched = true;
  const cache = (caches as unknown as { default: Cache }).default;
  const match = cache.match.bind(cache);
  cache.match = (...args: Parameters<Cache["match"]>) => {
    const key = typeof args[0] === "string" ? args[0] : args[0] instanceof URL ? args[0].href : args[0].url;
    return roundTrip("cacheRead", new URL(key).pathname, () => match(...args));
  };
}

/** Runs `handle` with counted bindings when the request asks for it; otherwise as is. */
export async function withTally(request: Request, env: Env, handle: (env: Env) => Promise<Response>): Promise<Response> {
  if (request.headers.get("x-bench-tally") !== "1") return handle(env);
  countCacheReads();
  const rttMs = Math.min(Number(request.headers.get("x-bench-rtt-ms") ?? 0) || 0, 2000);
  const run: Run = { tally: emptyTally(), started: emptyTally(), calls: [], rttMs, returned: false };
  current = run;
  const counted: Env = {
    ...env,
    DB: database(env.DB, "d1Primary"),
    SHARD_1: database(env.SHARD_1, "shardPrimary"),
    BUCKET: bucket(env.BUCKET),
    RATE_LIMITER: namespace(env.RATE_LIMITER, "RateLimiter"),
    VIEW_COUNTER: namespace(env.VIEW_COUNTER, "ViewCounter"),
    TUS_UPLOADS: namespace(env.TUS_UPLOADS, "TusUploadState"),
  };
  let response: Response;
  try {
    response = await handle(counted);
  } finally {
    // Calls made after this point (waitUntil work: view counts, cache fills) are not what the response waited for.
    current = null;
    run.returned = true;
  }
  const background = Object.fromEntries(Object.entries(run.started).map(([k, n]) => [k, n - run.tally[k as Kind]]));
  const out = new Response(response.body, response);
  out.headers.set("x-bench-tally", JSON.stringify({ ...run.tally, background }));
  out.headers.set("x-bench-calls", JSON.stringify(run.calls));
  return out;
}
