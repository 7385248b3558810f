// OUTBOUND_ALLOW_HOSTS is for local tests: with ENVIRONMENT production the worker refuses to run and says why
// (extensions.md § 2 "Development").
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";

const misconfigured = { ...env, ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" } as Env;

describe("OUTBOUND_ALLOW_HOSTS in production", () => {
  it("every request is answered 503 with the reason, and the reason is logged", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request("http://localhost:8787/api/v1/health"), misconfigured, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/OUTBOUND_ALLOW_HOSTS.*production/);
      expect(logged.mock.calls.flat().join(" ")).toMatch(/OUTBOUND_ALLOW_HOSTS/);
    } finally {
      logged.mockRestore();
    }
  });

  it("the queue consumer refuses its batch (retried later, once the setting is fixed)", async () => {
    const batch = { queue: "image-jobs", messages: [], retryAll: () => {}, ackAll: () => {} } as unknown as MessageBatch<never>;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await expect(worker.queue(batch, misconfigured)).rejects.toThrow(/OUTBOUND_ALLOW_HOSTS/);
    } finally {
      logged.mockRestore();
    }
  });

  it("outside production the setting is accepted", async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request("http://localhost:8787/api/v1/openapi.json"), { ...env, OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" } as Env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
  });
});
