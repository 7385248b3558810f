// A byte link (or any request) on each path that decides it: uncached (records off: D1 on every view), cached
// (records on, filling them), and from the records alone (D1 and the Durable Objects unreachable). `vars`
// replaces the worker's vars for the request (another {image_url} host, say).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../src/index";
import { unreachableBindings } from "./unreachable";

export type PathView = { status: number; bytes: Uint8Array; headers: Headers; code?: string };
export type PathOptions = { headers?: Record<string, string>; method?: string; vars?: Partial<Env> };

export async function viewOn(url: string, opts: PathOptions & { records?: boolean; offline?: boolean } = {}): Promise<PathView> {
  const ctx = createExecutionContext();
  const bindings: Partial<Env> = opts.offline ? unreachableBindings(env).bindings : {};
  const testEnv = { ...env, ...opts.vars, ACCESS_RECORD_SECONDS: opts.records ? "30" : "0", ...bindings };
  const request = new Request(url, { headers: opts.headers, method: opts.method, redirect: "manual" }) as Request<unknown, IncomingRequestCfProperties>;
  const res = await worker.fetch(request, testEnv, ctx);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!opts.offline) await waitOnExecutionContext(ctx); // records and entries are written after the response
  let code: string | undefined;
  if (res.headers.get("content-type")?.startsWith("application/json")) code = JSON.parse(new TextDecoder().decode(bytes)).details?.code;
  return { status: res.status, bytes, headers: res.headers, code };
}

export const PATHS = ["uncached", "cached (filling)", "from the records"] as const;

/** The same answer on the uncached path, on the cached path, and from the records alone. */
export async function everyPath(url: string, check: (v: PathView, path: string) => void, opts: PathOptions = {}) {
  check(await viewOn(url, opts), `${url} ${PATHS[0]}`);
  check(await viewOn(url, { ...opts, records: true }), `${url} ${PATHS[1]}`);
  check(await viewOn(url, { ...opts, records: true, offline: true }), `${url} ${PATHS[2]}`);
}

export const refusedWith = (status: number, code: string) => (v: PathView, path: string) => {
  expect(v.status, path).toBe(status);
  expect(v.code, path).toBe(code);
};
