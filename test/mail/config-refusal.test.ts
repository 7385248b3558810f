// Production cannot do without mail: with ENVIRONMENT production and no EMAIL binding, or no MAIL_FROM (a name and
// an address), the worker refuses every request, queue batch and cron run and says why, as it refuses
// OUTBOUND_ALLOW_HOSTS (test/webhooks/config-refusal.test.ts).
import { env } from "cloudflare:workers";
import { createExecutionContext, createScheduledController } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { parseMailFrom } from "../../src/config/env-schema";
import { fetchWithEnv, queueWithEnv, quietly } from "../support/startup";

const { EMAIL: _, ...withoutBinding } = env;
const production = (overrides: Record<string, unknown>) => ({ ...env, ENVIRONMENT: "production", ...overrides }) as Env;

const answer = (e: Env) => fetchWithEnv(e, "/api/v1/openapi.json");

describe("production without mail", () => {
  it.each([
    ["no EMAIL binding", { ...withoutBinding, ENVIRONMENT: "production" } as unknown as Env, /EMAIL binding.*production/],
    ["no MAIL_FROM", production({ MAIL_FROM: "" }), /MAIL_FROM.*production/],
    ["a MAIL_FROM without a name", production({ MAIL_FROM: "noreply@example.com" }), /MAIL_FROM.*production/],
    ["a MAIL_FROM without an address", production({ MAIL_FROM: "imghost <noreply>" }), /MAIL_FROM.*production/],
  ])("%s: every request is 503 with the reason, logged; queue batches and crons fail", async (_, misconfigured, reason) => {
    await quietly(async (logged) => {
      const res = await answer(misconfigured);
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(reason);
      expect(logged()).toMatch(reason);
      await expect(queueWithEnv(misconfigured)).rejects.toThrow(reason);
      await expect(worker.scheduled(createScheduledController(), misconfigured, createExecutionContext())).rejects.toThrow(reason);
    });
  });

  it("with both, production runs; outside production neither is required", async () => {
    expect((await answer(production({}))).status).toBe(200);
    expect((await answer({ ...withoutBinding, MAIL_FROM: "" } as unknown as Env)).status).toBe(200);
  });

  it("MAIL_FROM is a name and an address", () => {
    expect(parseMailFrom("imghost <noreply@example.com>")).toEqual({ name: "imghost", email: "noreply@example.com" });
    expect(parseMailFrom("  Image Host Team  < team@mail.example.org > ")).toBeNull();
    expect(parseMailFrom("Image Host Team <team@mail.example.org>")).toEqual({ name: "Image Host Team", email: "team@mail.example.org" });
    for (const bad of ["", "noreply@example.com", "<noreply@example.com>", "imghost <noreply>", "imghost <a b@example.com>", 'a"b <x@example.com>']) {
      expect(parseMailFrom(bad), bad).toBeNull();
    }
  });
});
