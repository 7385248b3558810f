// OUTBOUND_ALLOW_HOSTS is for local tests: with ENVIRONMENT production the worker refuses to run and says why
// (extensions.md § 2 "Development").
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv, queueWithEnv, quietly } from "../support/startup";

const misconfigured = { ...env, ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" } as Env;

describe("OUTBOUND_ALLOW_HOSTS in production", () => {
  it("every request is answered 503 with the reason, and the reason is logged", async () => {
    await quietly(async (logged) => {
      const res = await fetchWithEnv(misconfigured);
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/OUTBOUND_ALLOW_HOSTS.*production/);
      expect(logged()).toMatch(/OUTBOUND_ALLOW_HOSTS/);
    });
  });

  it("the queue consumer refuses its batch (retried later, once the setting is fixed)", async () => {
    await quietly(() => expect(queueWithEnv(misconfigured)).rejects.toThrow(/OUTBOUND_ALLOW_HOSTS/));
  });

  it("outside production the setting is accepted", async () => {
    const res = await fetchWithEnv({ ...env, OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" } as Env, "/api/v1/openapi.json");
    expect(res.status).toBe(200);
  });
});
