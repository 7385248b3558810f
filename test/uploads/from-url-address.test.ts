// POST /upload/url: what may be fetched (the outbound address rules, src/platform/outbound/outbound-address.ts) and
// redirects followed by hand, each hop checked again. A refused URL is never fetched.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { signup } from "../support/api";
import { SMALL_PNG, storage } from "./helpers";
import { fakeRemote, image, uploadUrl, type Remote } from "./remote";

let remote: Remote | null = null;
afterEach(() => {
  remote?.restore();
  remote = null;
});

const redirect = (to: string, status = 302) => new Response(null, { status, headers: { location: to } });

describe("URLs that may not be fetched: 400 invalid_url", () => {
  it.each([
    ["ftp://example.com/a.png", /http/],
    ["https://user:secret@example.com/a.png", /credentials/],
    ["http://localhost/a.png", /localhost/],
    ["http://img.localhost/a.png", /localhost/],
    ["http://127.0.0.1/a.png", /internal/],
    ["http://2130706433/a.png", /internal/], // 127.0.0.1 written as one number
    ["http://10.1.2.3/a.png", /internal/],
    ["http://192.168.0.10/a.png", /internal/],
    ["http://169.254.169.254/latest/meta-data", /internal/],
    ["http://100.64.0.1/a.png", /internal/],
    ["http://[::1]/a.png", /internal/],
    ["http://[::ffff:10.0.0.1]/a.png", /internal/],
    ["https://example.com:8443/a.png", /port/],
    ["not a url", /absolute URL/],
    ["/relative/a.png", /absolute URL/],
  ])("%s", async (url, reason) => {
    remote = fakeRemote(() => image(SMALL_PNG));
    const user = await signup();
    const res = await uploadUrl({ url }, user.access);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ error: "Bad Request", details: { code: "invalid_url", field: "url" } });
    expect(res.body.message).toMatch(reason);
    expect(remote.fetched).toEqual([]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("http is allowed, in production too (webhooks keep https only there)", async () => {
    const { checkOutboundUrl, outboundRules } = await import("../../src/platform/outbound/outbound-address");
    const production = { ...env, ENVIRONMENT: "production" };
    expect(checkOutboundUrl("http://example.com/a.png", outboundRules(production, { httpInProduction: true })).ok).toBe(true);
    expect(checkOutboundUrl("http://example.com/a.png", outboundRules(production)).ok).toBe(false);
    expect(checkOutboundUrl("http://127.0.0.1/a.png", outboundRules(production, { httpInProduction: true })).ok).toBe(false);
    remote = fakeRemote(() => image(SMALL_PNG));
    expect((await uploadUrl({ url: "http://example.com/a.png" })).status).toBe(201);
  });

  it("OUTBOUND_ALLOW_HOSTS lets a listed host:port through (development)", async () => {
    const saved = env.OUTBOUND_ALLOW_HOSTS;
    (env as { OUTBOUND_ALLOW_HOSTS: string }).OUTBOUND_ALLOW_HOSTS = "img.example.com:8080";
    try {
      remote = fakeRemote(() => image(SMALL_PNG));
      expect((await uploadUrl({ url: "http://img.example.com:8080/a.png" })).status).toBe(201);
      expect((await uploadUrl({ url: "http://img.example.com:8081/a.png" })).status).toBe(400);
      expect(remote.fetched).toEqual(["http://img.example.com:8080/a.png"]);
    } finally {
      (env as { OUTBOUND_ALLOW_HOSTS: string }).OUTBOUND_ALLOW_HOSTS = saved;
    }
  });
});

describe("redirects", () => {
  it("up to three hops are followed by hand, relative locations included", async () => {
    remote = fakeRemote((url) => {
      if (url.pathname === "/one") return redirect("https://cdn.example.com/two", 301);
      if (url.pathname === "/two") return redirect("/three", 307);
      if (url.pathname === "/three") return redirect("https://media.example.com/final.png", 308);
      return image(SMALL_PNG);
    });
    const res = await uploadUrl({ url: "https://example.com/one" });
    expect(res.status, res.text).toBe(201);
    expect(remote.fetched).toEqual(["https://example.com/one", "https://cdn.example.com/two", "https://cdn.example.com/three", "https://media.example.com/final.png"]);
  });

  it("a hop to a private address is 400 invalid_url and is never fetched", async () => {
    for (const to of ["http://127.0.0.1/a.png", "http://169.254.169.254/latest/meta-data", "http://[::1]:80/", "ftp://example.com/a.png"]) {
      remote = fakeRemote((url) => (url.pathname === "/start" ? redirect(to) : image(SMALL_PNG)));
      const user = await signup();
      const res = await uploadUrl({ url: "https://example.com/start" }, user.access);
      expect(res.status, `${to}: ${res.text}`).toBe(400);
      expect(res.body.details.code).toBe("invalid_url");
      expect(res.body.message).toMatch(/redirect/);
      expect(remote.fetched).toEqual(["https://example.com/start"]);
      expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
      remote.restore();
    }
    remote = null;
  });

  it("a fourth redirect is 422 url_fetch_failed with the remote status", async () => {
    let n = 0;
    remote = fakeRemote(() => redirect(`https://example.com/hop${++n}`));
    const res = await uploadUrl({ url: "https://example.com/start" });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ error: "Unprocessable Entity", details: { code: "url_fetch_failed", status: 302, redirects: 3 } });
    expect(remote.fetched).toHaveLength(4);
  });
});
