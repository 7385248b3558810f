// BENCHMARK-ONLY: what a request waits for. A request sent with `x-bench-tally: 1` runs with its bindings
// wrapped so every call is counted by kind; the response carries the counts made before it was returned
// (`x-bench-tally: {"d1Primary":1,...}`). With `x-bench-rtt-ms: N`, every call to single-location state (a
// D1 query on the primary, a Durable Object call) first waits N ms, as it would for a viewer far from that
// place; replicas, R2 and the cache stay local. The latency with and without it says how many of those round
// trips the response waited for in sequence. One request at a time (the tally is per isolate).
type Kind = "d1Primary" | "d1Replica" | "durableObject" | "r2" | "cacheRead";
export type Tally = Record<Kind, number>;

const emptyTally = (): Tally => ({ d1Primary: 0, d1Replica: 0, durableObject: 0, r2: 0, cacheRead: 0 });

let current: { tally: Tally; rttMs: number } | null = null;

const wait = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** Counts the call, then (for single-location state) waits the injected RTT before making it. */
async function roundTrip<T>(kind: Kind, call: () => Promise<T>): Promise<T> {
  const run = current;
  if (run) run.tally[kind]++;
  if (run && (kind === "d1Primary" || kind === "durableObject")) await wait(run.rttMs);
  return call();
}

const STATEMENT_CALLS = new Set(["first", "all", "run", "raw"]);

function statement(stmt: D1PreparedStatement, kind: Kind): D1PreparedStatement {
  return new Proxy(stmt, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "bind") return (...args: unknown[]) => statement((value as Function).apply(target, args), kind);
      if (STATEMENT_CALLS.has(String(prop))) return (...args: unknown[]) => roundTrip(kind, () => (value as Function).apply(target, args));
      return (value as Function).bind(target);
    },
  });
}

/** A D1 handle (database or session) whose statements and batches are counted as `kind`. */
function database<T extends D1Database | D1DatabaseSession>(db: T, kind: Kind): T {
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "prepare") return (sql: string) => statement((value as Function).call(target, sql), kind);
      if (prop === "batch" || prop === "exec") return (...args: unknown[]) => roundTrip(kind, () => (value as Function).apply(target, args));
      if (prop === "withSession") {
        // Unconstrained and bookmark sessions read the nearest replica in production; "first-primary" starts there.
        return (constraint?: string) => database((value as Function).call(target, constraint), constraint === "first-primary" ? "d1Primary" : "d1Replica");
      }
      return (value as Function).bind(target);
    },
  }) as T;
}

function stub(real: DurableObjectStub): DurableObjectStub {
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (prop === "then" || typeof value !== "function") return value;
      return (...args: unknown[]) => roundTrip("durableObject", () => (value as Function).apply(target, args));
    },
  });
}

function namespace<T extends object>(ns: T): T {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") return (...args: unknown[]) => stub((value as Function).apply(target, args));
      return (value as Function).bind(target);
    },
  });
}

function bucket(r2: R2Bucket): R2Bucket {
  return new Proxy(r2, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = (value as Function).apply(target, args);
        if (current && result instanceof Promise) current.tally.r2++;
        return result;
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
    if (current) current.tally.cacheRead++;
    return match(...args);
  };
}

/** Runs `handle` with counted bindings when the request asks for it; otherwise as is. */
export async function withTally(request: Request, env: Env, handle: (env: Env) => Promise<Response>): Promise<Response> {
  if (request.headers.get("x-bench-tally") !== "1") return handle(env);
  countCacheReads();
  const rttMs = Math.min(Number(request.headers.get("x-bench-rtt-ms") ?? 0) || 0, 2000);
  const run = { tally: emptyTally(), rttMs };
  current = run;
  const counted: Env = {
    ...env,
    DB: database(env.DB, "d1Primary"),
    BUCKET: bucket(env.BUCKET),
    RATE_LIMITER: namespace(env.RATE_LIMITER),
    VIEW_COUNTER: namespace(env.VIEW_COUNTER),
  };
  let response: Response;
  try {
    response = await handle(counted);
  } finally {
    // Calls made after this point (waitUntil work: view counts, cache fills) are not what the response waited for.
    current = null;
  }
  const out = new Response(response.body, response);
  out.headers.set("x-bench-tally", JSON.stringify(run.tally));
  return out;
}
