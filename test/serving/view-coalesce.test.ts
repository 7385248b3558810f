// Hits gathered in the isolate (VIEW_COALESCE_MS): many views of a file in one window reach its counter
// shard as one add(kind, id, n), and none is lost. (The suite runs with 0: one RPC per hit.)
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { signup } from "../support/api";
import { IMAGE, pendingFor, seedFile } from "../support/files";

const gathering = { ...env, VIEW_COALESCE_MS: "25" };

/** The real counter namespace, with every stub call recorded as [method, ...args]. */
function recording(ns: Env["VIEW_COUNTER"], calls: unknown[][]): Env["VIEW_COUNTER"] {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (prop !== "getByName" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
      return (name: string) => {
        const stub = (value as (n: string) => DurableObjectStub).call(target, name);
        return new Proxy(stub, {
          get(s, method) {
            const fn = Reflect.get(s, method) as unknown;
            if (method === "then" || typeof fn !== "function") return fn;
            return (...args: unknown[]) => {
              calls.push([method, ...args]);
              return Reflect.apply(fn as Function, s, args);
            };
          },
        });
      };
    },
  });
}

async function get(url: string, bindings: Partial<Env> = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url) as Request<unknown, IncomingRequestCfProperties>, { ...gathering, ...bindings }, ctx);
  await res.arrayBuffer();
  return { res, ctx };
}

describe("view hits gathered in the isolate", () => {
  it("30 views of two files in one window: every hit counted, one counter call per file", async () => {
    const owner = await signup();
    const [a, b] = [await seedFile(owner.id), await seedFile(owner.id)];
    const calls: unknown[][] = [];
    const VIEW_COUNTER = recording(env.VIEW_COUNTER, calls);
    const views = await Promise.all([
      ...Array.from({ length: 20 }, () => get(`${IMAGE}/${a.id}`, { VIEW_COUNTER })),
      ...Array.from({ length: 10 }, () => get(`${IMAGE}/${b.id}`, { VIEW_COUNTER })),
    ]);
    expect(views.every((v) => v.res.status === 200)).toBe(true);
    expect(calls).toEqual([]); // nothing sent before the window closes
    await Promise.all(views.map((v) => waitOnExecutionContext(v.ctx)));
    expect(calls.sort()).toEqual([["add", "file_view", a.id, 20], ["add", "file_view", b.id, 10]].sort());
  });

  it("only the request that opened the window waits for it: the others end at once, their hits go with it", async () => {
    // A request that waited on a promise another request's timer settles would be cancelled by workerd as
    // hung (and logged as an error) once it had nothing of its own left to wait for.
    const owner = await signup();
    const file = await seedFile(owner.id);
    const calls: unknown[][] = [];
    const VIEW_COUNTER = recording(env.VIEW_COUNTER, calls);
    const opener = await get(`${IMAGE}/${file.id}`, { VIEW_COUNTER });
    const later = await get(`${IMAGE}/${file.id}`, { VIEW_COUNTER });
    await waitOnExecutionContext(later.ctx);
    expect(calls).toEqual([]);
    await waitOnExecutionContext(opener.ctx);
    expect(calls).toEqual([["add", "file_view", file.id, 2]]);
  });

  it("the counts arrive in the shards exactly, sent by the request that opened the window (waitUntil)", async () => {
    const owner = await signup();
    const [a, b] = [await seedFile(owner.id), await seedFile(owner.id)];
    const views = await Promise.all([
      ...Array.from({ length: 12 }, () => get(`${IMAGE}/${a.id}`)),
      ...Array.from({ length: 5 }, () => get(`${IMAGE}/${b.id}`)),
    ]);
    await Promise.all(views.map((v) => waitOnExecutionContext(v.ctx)));
    expect(await pendingFor("file_view", a.id)).toBe(12);
    expect(await pendingFor("file_view", b.id)).toBe(5);
    // A later window starts afresh.
    await waitOnExecutionContext((await get(`${IMAGE}/${a.id}`)).ctx);
    expect(await pendingFor("file_view", a.id)).toBe(13);
  });
});
