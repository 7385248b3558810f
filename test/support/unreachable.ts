// Bindings that prove what a response does not wait for: D1 throws on any query, and a Durable Object
// never answers a call. A request that still gets its answer needed neither. Every attempt is recorded
// as "BINDING.method". (The real bindings are untouched; these replace them for one request.)
const never = () => new Promise<never>(() => {});

function recorder(name: string, calls: string[], answer: (label: string) => unknown) {
  return new Proxy(
    {},
    {
      get(_target, prop) {
        if (prop === "then" || typeof prop === "symbol") return undefined; // not a thenable
        return () => {
          const label = `${name}.${String(prop)}`;
          calls.push(label);
          return answer(label);
        };
      },
    },
  );
}

export function unreachableBindings(env: Env): { bindings: Partial<Env>; calls: string[] } {
  const calls: string[] = [];
  const failing = (label: string) => {
    throw new Error(`${label}: D1 is unreachable in this test`);
  };
  // Opening a session and reading its bookmark are local (no round trip); its queries are not.
  // Every D1 database: DB (the directory and shard 0) and each further shard.
  const database = (label: string) => {
    const session = new Proxy(recorder(label, calls, failing), {
      get: (target, prop, receiver) => (prop === "getBookmark" ? () => null : Reflect.get(target, prop, receiver)),
    });
    return new Proxy(recorder(label, calls, failing), {
      get: (target, prop, receiver) => (prop === "withSession" ? () => session : Reflect.get(target, prop, receiver)),
    }) as unknown as D1Database;
  };
  const DB = database("DB");
  const heldNamespace = (name: string, real: DurableObjectNamespace) =>
    new Proxy(real, {
      get(target, prop) {
        // Ids are computed locally; a stub's calls are the round trips.
        if (prop === "get" || prop === "getByName") return () => recorder(name, calls, never);
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return {
    calls,
    bindings: {
      DB,
      SHARD_1: database("SHARD_1"),
      VIEW_COUNTER: heldNamespace("VIEW_COUNTER", env.VIEW_COUNTER as unknown as DurableObjectNamespace) as unknown as Env["VIEW_COUNTER"],
      RATE_LIMITER: heldNamespace("RATE_LIMITER", env.RATE_LIMITER as unknown as DurableObjectNamespace) as unknown as Env["RATE_LIMITER"],
    },
  };
}

/** A recorded call to any D1 database (DB or a shard). */
export const isD1Call = (call: string) => /^(DB|SHARD_\d+)\./.test(call);
