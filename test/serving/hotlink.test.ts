// Hotlink policy on byte links: allow / whitelist / block, judged by the Referer.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { signup, type TestUser } from "../support/api";
import { IMAGE, fetchRaw, seedFile } from "../support/files";
import { cdnUrl } from "../../src/platform/http/urls";
import { hotlinkAllowed, ownHosts } from "../../src/serving/byte-path";

let owner: TestUser;
beforeAll(async () => {
  owner = await signup();
});

const status = async (url: string, referer?: string) =>
  (await fetchRaw(url, { headers: referer === undefined ? {} : { referer } })).status;

describe("hotlink policy", () => {
  it("allow: any referer", async () => {
    const f = await seedFile(owner.id, { hotlinkPolicy: "allow" });
    expect(await status(`${IMAGE}/${f.id}`, "https://forum.example.net/thread/1")).toBe(200);
    expect(await status(`${IMAGE}/${f.id}`)).toBe(200);
  });

  it("block: no referer, an empty one and our own site pass; a foreign one gets 403", async () => {
    const f = await seedFile(owner.id, { hotlinkPolicy: "block" });
    expect(await status(`${IMAGE}/${f.id}`)).toBe(200);
    expect(await status(`${IMAGE}/${f.id}`, "")).toBe(200);
    expect(await status(`${IMAGE}/${f.id}`, `${env.SITE_URL}/f/${f.id}`)).toBe(200);
    const refused = await fetchRaw(`${IMAGE}/${f.id}`, { headers: { referer: "https://evil.example/page" } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: "Forbidden", details: { code: "hotlink_refused" } });
    expect(await status(cdnUrl(env, f.storeKey), "https://evil.example/")).toBe(403);
    expect(await status(`${IMAGE}/${f.id}/thumb`, "https://evil.example/")).toBe(403);
    // An unparseable referer cannot prove it is ours.
    expect(await status(`${IMAGE}/${f.id}`, "not a url")).toBe(403);
  });

  it("whitelist: listed hosts, no referer and our own site pass; others get 403", async () => {
    const f = await seedFile(owner.id, { hotlinkPolicy: "whitelist", hotlinkDomains: ["blog.example.org"] });
    expect(await status(`${IMAGE}/${f.id}`, "https://blog.example.org/post/9")).toBe(200);
    expect(await status(`${IMAGE}/${f.id}`, "https://BLOG.example.org:8443/x")).toBe(200);
    expect(await status(`${IMAGE}/${f.id}`)).toBe(200);
    expect(await status(`${IMAGE}/${f.id}`, `${env.SITE_URL}/a/alb_x`)).toBe(200);
    expect(await status(`${IMAGE}/${f.id}`, "https://example.org/")).toBe(403);
    expect(await status(`${IMAGE}/${f.id}`, "https://blog.example.org.evil.com/")).toBe(403);
  });

  it("refused responses are not cacheable and allowed restricted ones are private", async () => {
    const f = await seedFile(owner.id, { hotlinkPolicy: "whitelist", hotlinkDomains: ["ok.example"] });
    const ok = await fetchRaw(`${IMAGE}/${f.id}`, { headers: { referer: "https://ok.example/" } });
    expect(ok.headers.get("cache-control")).toMatch(/^private/);
    const no = await fetchRaw(`${IMAGE}/${f.id}`, { headers: { referer: "https://no.example/" } });
    expect(no.headers.get("cache-control")).toBe("no-store");
  });
});

describe("hotlinkAllowed (unit)", () => {
  const own = ownHosts(env);
  it("ignores non-http schemes", () => {
    expect(hotlinkAllowed({ hotlinkPolicy: "whitelist", hotlinkDomains: ["a.example"] }, "ftp://a.example/", own)).toBe(false);
    expect(hotlinkAllowed({ hotlinkPolicy: "block", hotlinkDomains: [] }, "   ", own)).toBe(true);
  });
});
