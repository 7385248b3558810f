// What the signed-link tests share: a byte view through the worker's fetch, on the uncached path (records off: D1
// on every view), the cached path (records on), and from the records alone (D1 and the Durable Objects unreachable).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../src/index";
import { unreachableBindings } from "../support/unreachable";

export type View = { status: number; bytes: Uint8Array; headers: Headers; code?: string };

/** A view; `records` turns the edge-cached access records on; `offline` makes D1 and the DOs unreachable. */
export async function view(url: string, opts: { records?: boolean; offline?: boolean; headers?: Record<string, string>; method?: string } = {}): Promise<View> {
  const ctx = createExecutionContext();
  const bindings: Partial<Env> = opts.offline ? unreachableBindings(env).bindings : {};
  const testEnv = { ...env, ACCESS_RECORD_SECONDS: opts.records ? "30" : "0", ...bindings };
  const request = new Request(url, { headers: opts.headers, method: opts.method }) as Request<unknown, IncomingRequestCfProperties>;
  const res = await worker.fetch(request, testEnv, ctx);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!opts.offline) await waitOnExecutionContext(ctx);
  let code: string | undefined;
  if (res.headers.get("content-type")?.startsWith("application/json")) code = JSON.parse(new TextDecoder().decode(bytes)).details?.code;
  return { status: res.status, bytes, headers: res.headers, code };
}

/** The same answer on the uncached path, on the cached path, and from the records alone. */
export async function expectEverywhere(url: string, check: (v: View, path: string) => void, opts: { headers?: Record<string, string>; method?: string } = {}) {
  check(await view(url, opts), "uncached");
  check(await view(url, { ...opts, records: true }), "cached (filling)");
  check(await view(url, { ...opts, records: true, offline: true }), "from the records");
}

export const refused = (status: number, code: string) => (v: View, path: string) => {
  expect(v.status, path).toBe(status);
  expect(v.code, path).toBe(code);
};

export const withParam = (url: string, name: string, value: string | null) => {
  const u = new URL(url);
  if (value === null) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return u.toString();
};

