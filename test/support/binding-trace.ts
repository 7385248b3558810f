// The real bindings, watched: an env whose bindings write to a trace each call the worker makes on them (a D1
// statement's SQL, a Durable Object's method, a queue message's type), then pass it on unchanged. Nothing is
// replaced: the trace only says which code path a request took, e.g. up to the moment its answer was handed back.

type Traced = Record<string, unknown>;

/** Calls on a Durable Object stub, named by its namespace; the stub still answers. */
function stubTrace(stub: Traced, name: string, trace: string[]): Traced {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof prop !== "string" || typeof value !== "function" || prop === "then") return value;
      return (...args: unknown[]) => {
        trace.push(`${name}.${prop}`);
        return Reflect.apply(value, target, args); // not value.apply: on an RPC stub that is a remote method
      };
    },
  });
}

function bindingTrace(binding: Traced, name: string, trace: string[]): Traced {
  return new Proxy(binding, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof prop !== "string" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = Reflect.apply(value, target, args);
        if (prop === "prepare") trace.push(`${name}: ${String(args[0])}`);
        else if (prop === "withSession") return bindingTrace(result as Traced, name, trace);
        else if (prop === "send") trace.push(`${name}.send ${String((args[0] as { type?: unknown })?.type)}`);
        else if ((prop === "get" || prop === "getByName") && !(result instanceof Promise)) return stubTrace(result as Traced, name, trace);
        else trace.push(`${name}.${prop}`);
        return result;
      };
    },
  });
}

/** `env` with every object binding traced into `trace`; strings (vars, secrets) as they are. */
export function tracedEnv(env: Env, trace: string[]): Env {
  const wrapped: Traced = {};
  for (const [name, value] of Object.entries(env)) {
    wrapped[name] = value !== null && typeof value === "object" ? bindingTrace(value as Traced, name, trace) : value;
  }
  return wrapped as unknown as Env;
}
