import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dispatch, internalPath } from "../../src/platform/http/dispatch";
import { call } from "../support/api";

type Addresses = Pick<Env, "BASE_URL" | "IMAGE_URL" | "CDN_URL" | "SITE_URL">;

const PREFIX: Addresses = {
  BASE_URL: "http://localhost:8787/api/v1",
  IMAGE_URL: "http://localhost:8787/i",
  CDN_URL: "http://localhost:8787/cdn",
  SITE_URL: "http://localhost:8787",
};

const HOSTS: Addresses = {
  BASE_URL: "https://api.example.com/api/v1",
  IMAGE_URL: "https://i.example.com",
  CDN_URL: "https://cdn.example.com",
  SITE_URL: "https://example.com",
};

const at = (url: string, addrs: Addresses) => internalPath(new URL(url), { ...env, ...addrs });

describe("internalPath: prefix mode (one host)", () => {
  const cases: [string, string, string][] = [
    ["http://localhost:8787/api/v1/auth/login", "api", "/api/v1/auth/login"],
    ["http://localhost:8787/api/v1", "api", "/api/v1/"],
    ["http://localhost:8787/i/file_abc", "image", "/i/file_abc"],
    ["http://localhost:8787/i/file_abc/thumb", "image", "/i/file_abc/thumb"],
    ["http://localhost:8787/cdn/uploads/2026-01-01/file_abc/cat.png", "cdn", "/cdn/uploads/2026-01-01/file_abc/cat.png"],
    ["http://localhost:8787/", "site", "/"],
    ["http://localhost:8787/docs", "site", "/docs"],
    ["http://localhost:8787/a/alb_x", "site", "/a/alb_x"],
    // Prefixes match whole segments only.
    ["http://localhost:8787/images", "site", "/images"],
    ["http://localhost:8787/cdnx/a", "site", "/cdnx/a"],
    ["http://localhost:8787/api/v10/x", "site", "/api/v10/x"],
  ];
  for (const [url, surface, path] of cases) {
    it(`${url} -> ${surface} ${path}`, () => {
      expect(at(url, PREFIX)).toEqual({ surface, path });
    });
  }

  it("the host does not matter when nothing is host-specific", () => {
    expect(at("https://preview.workers.dev/api/v1/keys", PREFIX)).toEqual({ surface: "api", path: "/api/v1/keys" });
  });
});

describe("internalPath: host mode (a host per surface)", () => {
  const cases: [string, string, string][] = [
    ["https://api.example.com/api/v1/auth/login", "api", "/api/v1/auth/login"],
    ["https://api.example.com/api/v1/openapi.json", "api", "/api/v1/openapi.json"],
    ["https://i.example.com/file_abc", "image", "/i/file_abc"],
    ["https://i.example.com/file_abc/thumb", "image", "/i/file_abc/thumb"],
    ["https://cdn.example.com/uploads/2026-01-01/file_abc/cat.png", "cdn", "/cdn/uploads/2026-01-01/file_abc/cat.png"],
    ["https://example.com/", "site", "/"],
    ["https://example.com/docs", "site", "/docs"],
    ["https://example.com/a/alb_x", "site", "/a/alb_x"],
    // A file id on the site host is a site path, not a short link.
    ["https://example.com/file_abc", "site", "/file_abc"],
  ];
  for (const [url, surface, path] of cases) {
    it(`${url} -> ${surface} ${path}`, () => {
      expect(at(url, HOSTS)).toEqual({ surface, path });
    });
  }

  it("a surface's host wins over another's prefix", () => {
    // On the image host, /api/v1/... is a (non-existent) file path, not the API.
    expect(at("https://i.example.com/api", HOSTS)).toEqual({ surface: "image", path: "/i/api" });
  });

  it("paths outside every mount of a known host, and unknown hosts, fall to the site (never the image surface)", () => {
    expect(at("https://api.example.com/", HOSTS)).toEqual({ surface: "site", path: "/" });
    expect(at("https://api.example.com/file_abc", HOSTS)).toEqual({ surface: "site", path: "/file_abc" });
    expect(at("https://preview.workers.dev/file_abc", HOSTS)).toEqual({ surface: "site", path: "/file_abc" });
    // ...but a path under a configured prefix still reaches its surface from any host.
    expect(at("https://preview.workers.dev/api/v1/keys", HOSTS)).toEqual({ surface: "api", path: "/api/v1/keys" });
  });

  it("an image host with a path prefix", () => {
    const addrs = { ...HOSTS, IMAGE_URL: "https://static.example.com/i" };
    expect(at("https://static.example.com/i/file_abc", addrs)).toEqual({ surface: "image", path: "/i/file_abc" });
  });

  it("the cache follows configuration changes", () => {
    expect(at("https://i.example.com/file_x", HOSTS).surface).toBe("image");
    expect(at("http://localhost:8787/i/file_x", PREFIX).surface).toBe("image");
    expect(at("https://i.example.com/file_x", HOSTS).path).toBe("/i/file_x");
  });
});

describe("dispatch", () => {
  it("returns the same request when nothing changes", () => {
    const req = new Request("http://localhost:8787/api/v1/keys");
    expect(dispatch(req, env)).toBe(req);
  });

  it("rewrites host-mode URLs and keeps method, headers, body and query", async () => {
    const addrs = { ...env, ...HOSTS };
    const req = new Request("https://cdn.example.com/uploads/d/f/x.png?v=1", {
      method: "POST",
      headers: { "x-test": "1" },
      body: "hello",
    });
    const out = dispatch(req, addrs);
    const url = new URL(out.url);
    expect(url.pathname).toBe("/cdn/uploads/d/f/x.png");
    expect(url.search).toBe("?v=1");
    expect(out.method).toBe("POST");
    expect(out.headers.get("x-test")).toBe("1");
    expect(await out.text()).toBe("hello");
  });

  it("reads the host and path off the URL as a URL parse would: query, fragment, port, a bare origin", () => {
    const addrs = { ...env, ...HOSTS };
    for (const [given, path] of [
      ["https://i.example.com/file_x?w=640&h=1#frag", "/i/file_x"],
      ["https://i.example.com/file_x#a?b", "/i/file_x"],
      ["https://api.example.com/api/v1/files?q=a/b", "/api/v1/files"],
      ["https://i.example.com", "/i/"],
      ["https://cdn.example.com/uploads/2026-11-28/f/a%20b.png", "/cdn/uploads/2026-11-28/f/a%20b.png"],
    ] as const) {
      const out = dispatch(new Request(given), addrs);
      expect(new URL(out.url).pathname).toBe(path);
      expect(new URL(out.url).search).toBe(new URL(given).search);
    }
    const same = new Request("http://localhost:8787/i/file_x?w=640");
    expect(dispatch(same, env)).toBe(same);
  });

  it("the worker's fetch goes through dispatch (site root, API)", async () => {
    expect((await call("http://localhost:8787/api/v1/openapi.json")).status).toBe(200);
    expect((await call("http://localhost:8787/")).status).toBe(200);
  });
});
