// @imghost/client against `wrangler dev` beyond uploading (issue 28, extensions.md § 6): files.list() past one page,
// typed errors (a revoked key's 401 with its code and request id; a 404 not tried again), and the retries: a real
// 429 of the server's upload limit, a 429 with Retry-After answered after that wait, a 503 tried again with
// backoff, and a server that never answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createClient, ImghostError, operationOf, pathOf } from "@imghost/client";
import { makePng, newUser, recordingFetch, startServer, within } from "./support.mjs";

let server;

beforeAll(async () => {
  server = await startServer(31);
});

afterAll(async () => {
  await server?.worker.stop();
});

function client(key, intercept, retry = { attempts: 4, baseDelayMs: 100, maxDelayMs: 2_000 }) {
  const recorder = recordingFetch(intercept);
  return { c: createClient({ baseUrl: server.baseUrl, apiKey: key, fetch: recorder.fetch, retry }), requests: recorder.requests };
}

async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** The promise's rejection (failing the test if it resolves). */
async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("files.list()", () => {
  it("goes through every page: 5 files in pages of 2 are 3 requests, each file once, newest first", async () => {
    const user = await newUser(server);
    const { c, requests } = client(user.key);
    const uploaded = [];
    for (let i = 0; i < 5; i++) uploaded.push((await within(`upload ${i}`, c.upload(makePng(10 + i, 10, 100 + i), { filename: `p${i}.png` }), 60_000)).fileId);
    requests.length = 0;
    const listed = await within("listing", collect(c.files.list({ limit: 2 })), 60_000);
    expect(listed.map((f) => f.id)).toEqual([...uploaded].reverse());
    expect(listed[0]).toMatchObject({ url: expect.any(String), mime: "image/png", title: "p4" });
    expect(requests.map((r) => `${r.method} ${r.path}${new URL(r.url).search}`)).toEqual(["GET /files?limit=2&offset=0&excludeNsfw=false", "GET /files?limit=2&offset=2&excludeNsfw=false", "GET /files?limit=2&offset=4&excludeNsfw=false"]);
  });
});

describe("files.get, update, delete", () => {
  it("a file is read, changed and deleted through the client", async () => {
    const user = await newUser(server);
    const { c } = client(user.key);
    const { fileId } = await within("upload", c.upload(makePng(14, 14, 50), { filename: "edit me.png" }), 60_000);
    expect(await c.files.get(fileId)).toMatchObject({ id: fileId, title: "edit me", visibility: "public", tags: [] });
    const updated = await c.files.update(fileId, { title: "Edited", tags: ["x"], visibility: "private" });
    expect(updated).toMatchObject({ id: fileId, title: "Edited", tags: ["x"], visibility: "private" });
    await c.files.delete(fileId);
    expect(await rejection(c.files.get(fileId))).toMatchObject({ name: "ImghostError", status: 410 });
    expect(await collect(c.files.list())).toEqual([]);
  });
});

describe("operations by operationId", () => {
  it("call() sends an operation's method to its path, and pathOf() fills the path's parameters in", async () => {
    const user = await newUser(server);
    const { c, requests } = client(user.key);
    const { fileId } = await within("upload", c.upload(makePng(12, 12, 90), { filename: "door.png" }), 60_000);
    const { data, response } = await call(c.raw, "files.get", { params: { path: { id: fileId } } });
    expect([response.status, data?.id]).toEqual([200, fileId]);
    const patched = await call(c.raw, "files.update", { params: { path: { id: fileId } }, body: { title: "Door" } });
    expect(patched.data?.file.title).toBe("Door");
    expect(requests.at(-1)).toMatchObject({ method: "PATCH", url: `${server.baseUrl}/files/${fileId}` });
    expect(operationOf("files.download")).toEqual({ method: "get", path: "/files/{id}/download" });
    expect(pathOf("files.download", { id: fileId })).toBe(`/files/${fileId}/download`);
    expect(pathOf("uploads.multipart.putPart", { uploadId: "upl_a b", partNumber: 3 })).toBe("/upload/multipart/upl_a%20b/parts/3");
    expect(() => pathOf("files.get", {})).toThrow(TypeError);
  });
});

describe("search(), similar() and the list's search", () => {
  it("finds a file by its title and alt text, with a snippet; similar() answers the file's neighbours; list takes q, sort and color", async () => {
    const user = await newUser(server);
    const { c, requests } = client(user.key);
    const { fileId } = await within("upload", c.upload(makePng(16, 16, 70), { filename: "x.png", title: "Harbour at dawn", alt: "boats in the fog" }), 60_000);
    expect((await c.files.get(fileId)).alt).toBe("boats in the fog");
    const found = await c.search("harbour fo");
    expect(found.files.map((f) => f.id)).toEqual([fileId]);
    expect(found.files[0].snippet).toBe("\u0002Harbour\u0003 at dawn");
    expect(found).toMatchObject({ albums: [], pagination: { total: 1, hasMore: false } });
    expect((await c.search("harbour", { type: "albums" })).files).toEqual([]);
    expect(await c.similar(fileId)).toEqual([]);
    requests.length = 0;
    expect((await collect(c.files.list({ q: "dawn", sort: "relevance" }))).map((f) => f.id)).toEqual([fileId]);
    expect((await collect(c.files.list({ color: "#ff0000" }))).map((f) => f.id)).toEqual([fileId]);
    expect(requests.map((r) => new URL(r.url).search)).toEqual(["?limit=100&offset=0&q=dawn&sort=relevance&excludeNsfw=false", "?limit=100&offset=0&color=%23ff0000&excludeNsfw=false"]);
    expect(await rejection(c.search(""))).toMatchObject({ name: "ImghostError", status: 400 });
  });
});

describe("uploadForm()", () => {
  it("sends one multipart request with its metadata, and a refusal is an ImghostError", async () => {
    const user = await newUser(server);
    const { c, requests } = client(user.key);
    const form = new FormData();
    form.set("file", new Blob([makePng(12, 12, 77)], { type: "image/png" }), "form.png");
    form.set("title", "By form");
    form.set("tags", "a,b");
    const answer = await within("form upload", c.uploadForm(form), 60_000);
    expect(answer).toMatchObject({ fileId: expect.stringMatching(/^file_/), mime: "image/png" });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /upload/form"]);
    expect(await c.files.get(answer.fileId)).toMatchObject({ title: "By form", tags: ["a", "b"] });
    const empty = new FormData();
    empty.set("title", "no file");
    expect(await rejection(c.uploadForm(empty))).toMatchObject({ name: "ImghostError", status: 400 });
  });
});

describe("errors", () => {
  it("a revoked key: ImghostError 401 api_key_revoked with the answer's request id, from list() and upload(), not tried again", async () => {
    const user = await newUser(server);
    const session = createClient({ baseUrl: server.baseUrl, accessToken: user.access });
    const { data: created } = await session.raw.POST("/keys", { body: { name: "to revoke", permissions: ["read", "upload"] } });
    const { response } = await session.raw.DELETE("/keys/{id}", { params: { path: { id: created.id } } });
    expect(response.status).toBe(200);

    const { c, requests } = client(created.key);
    const listing = await rejection(within("listing with a revoked key", collect(c.files.list()), 30_000));
    expect(listing).toBeInstanceOf(ImghostError);
    expect(listing).toMatchObject({ status: 401, code: "api_key_revoked", message: expect.stringMatching(/revoked/), details: { code: "api_key_revoked" } });
    expect(listing.requestId).toMatch(/\S{8,}/);
    expect(listing.requestId).toBe(requests.at(-1).requestId);
    expect(requests).toHaveLength(1);

    const uploading = await rejection(within("uploading with a revoked key", c.upload(makePng(8, 8, 1), { filename: "x.png" }), 30_000));
    expect(uploading).toMatchObject({ name: "ImghostError", status: 401, code: "api_key_revoked" });
    expect(requests.map((r) => r.path)).toEqual(["/files", "/upload/presign"]);
  });

  it("a 404 is not tried again and carries the contract's code", async () => {
    const user = await newUser(server, ["read"]);
    const { c, requests } = client(user.key);
    const err = await rejection(c.files.get("file_doesnotexist0000000"));
    expect(err).toMatchObject({ status: 404, code: "file_not_found" });
    expect(requests).toHaveLength(1);
  });

  it("no answer at all: network_error (status 0) after `attempts` tries", async () => {
    const { c, requests } = client("imgh_unused", async () => {
      throw new TypeError("fetch failed");
    }, { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 });
    const err = await rejection(c.files.get("file_x"));
    expect(err).toMatchObject({ status: 0, code: "network_error", requestId: null });
    expect(requests).toHaveLength(3);
  });
});

describe("retries", () => {
  it("the server's own 429 (a free plan's 20 upload starts an hour, all taken): Retry-After is to the top of the hour, so the client answers the 429 at once", async () => {
    const user = await newUser(server);
    const { c, requests } = client(user.key);
    for (let i = 0; i < 20; i++) {
      const { response } = await c.raw.POST("/upload/presign", { body: { filename: `r${i}.png`, mime: "image/png", bytes: 100, sha256: "0".repeat(64) } });
      expect(response.status, `presign ${i + 1} of the 20 the hour allows`).toBe(201);
    }
    requests.length = 0;
    const started = Date.now();
    const outcome = await c.upload(makePng(9, 9, 2), { filename: "one too many.png" }).then((ok) => ({ ok }), (err) => ({ err }));
    const first = requests[0];
    expect(first).toMatchObject({ method: "POST", path: "/upload/presign", status: 429 });
    const retryAfter = Number(first.retryAfter);
    const toTopOfHour = 3600 - (Math.floor(first.at / 1000) % 3600);
    expect(Math.abs(retryAfter - toTopOfHour)).toBeLessThanOrEqual(2);
    if (retryAfter * 1000 > 2_000) {
      // The client's maxDelayMs is 2 s: a retry before the window ends is refused again, so none is made.
      expect(outcome.err).toBeInstanceOf(ImghostError);
      expect(outcome.err).toMatchObject({ status: 429, code: "rate_limited", details: { retryAfter, remaining: 0 } });
      expect(outcome.err.requestId).toBe(first.requestId);
      expect(requests).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(2_000);
    } else {
      // Run in the last 2 s of an hour: the client waits for the new window and gets through.
      expect(outcome.ok).toMatchObject({ fileId: expect.stringMatching(/^file_/) });
      expect(requests[1].at - first.at).toBeGreaterThanOrEqual(retryAfter * 1000);
    }
  });

  it("a 429 with Retry-After: 1 is tried again after at least 1 s, and the upload goes through", async () => {
    const user = await newUser(server);
    let refused = false;
    const { c, requests } = client(user.key, async (entry) => {
      if (refused || entry.path !== "/upload/presign") return null;
      refused = true;
      const body = { error: "Too Many Requests", message: "Rate limit exceeded", retryAfter: 1, remaining: 0 };
      return new Response(JSON.stringify(body), { status: 429, headers: { "content-type": "application/json", "retry-after": "1" } });
    });
    const result = await within("upload after a 429", c.upload(makePng(12, 12, 3), { filename: "after-429.png" }), 60_000);
    expect(result.fileId).toMatch(/^file_/);
    const presigns = requests.filter((r) => r.path === "/upload/presign");
    expect(presigns.map((r) => r.status)).toEqual([429, 201]);
    expect(presigns[1].at - presigns[0].at).toBeGreaterThanOrEqual(1_000);
  });

  it("a 503 is tried again with backoff (finalize twice, one file)", async () => {
    const user = await newUser(server);
    let failed = false;
    const { c, requests } = client(user.key, async (entry) => {
      if (failed || entry.path !== "/upload/finalize") return null;
      failed = true;
      return new Response(JSON.stringify({ error: "Service Unavailable", message: "try again", details: { code: "internal_error" } }), { status: 503, headers: { "content-type": "application/json" } });
    });
    const result = await within("upload through a 503", c.upload(makePng(13, 12, 4), { filename: "after-503.png" }), 60_000);
    expect(requests.filter((r) => r.path === "/upload/finalize").map((r) => r.status)).toEqual([503, 200]);
    expect(await collect(c.files.list())).toEqual([expect.objectContaining({ id: result.fileId })]);
  });
});
