// The worker's own entry (src/index.ts) given an env of the test's choosing: how a bad config is refused at startup.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { vi } from "vitest";
import worker from "../../src/index";

/** A request through the whole entry, its waitUntil work awaited. */
export async function fetchWithEnv(env: Env, path = "/api/v1/health"): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://localhost:8787${path}`), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** An empty batch for the queue consumer. */
export const queueWithEnv = (env: Env) =>
  worker.queue({ queue: "image-jobs", messages: [], retryAll: () => {}, ackAll: () => {} } as unknown as MessageBatch<never>, env);

/** Runs `work` with console.error silenced; `logged()` is what was logged so far, joined. */
export async function quietly<T>(work: (logged: () => string) => Promise<T>): Promise<T> {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    return await work(() => spy.mock.calls.flat().join(" "));
  } finally {
    spy.mockRestore();
  }
}
