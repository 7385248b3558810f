// Requests with the edge-cached access records on (the suite runs with ACCESS_RECORD_SECONDS=0), and the
// same request again with D1 throwing and Durable Objects never answering: what the records alone decide.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../src/index";
import { unreachableBindings } from "./unreachable";

export const recordsOn = { ...env, ACCESS_RECORD_SECONDS: "30" };

export type View = { status: number; bytes: Uint8Array; headers: Headers };

/** A request with the records on; `offline` makes D1 throw and Durable Objects never answer. */
export async function view(url: string, init: RequestInit = {}, offline = false): Promise<View> {
  const ctx = createExecutionContext();
  const bindings = offline ? unreachableBindings(env).bindings : {};
  const request = new Request(url, init) as Request<unknown, IncomingRequestCfProperties>;
  const res = await worker.fetch(request, { ...recordsOn, ...bindings }, ctx);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!offline) await waitOnExecutionContext(ctx); // the records are written after the response
  return { status: res.status, bytes, headers: res.headers };
}

/** The answer, then the same answer decided from the records alone (D1 and Durable Objects unreachable). */
export async function expectCached(url: string, status: number, init: RequestInit = {}) {
  expect((await view(url, init)).status, `${url} (filling)`).toBe(status);
  expect((await view(url, init, true)).status, `${url} (from the records)`).toBe(status);
}
