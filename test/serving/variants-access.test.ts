// Variants follow the original's access rules exactly (one access function, the same edge-cached access
// records) and leave the edge cache with it. Each rule is checked on the uncached path (records off: D1 on
// every view) and on the cached path (records on, then D1 and the Durable Objects unreachable).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { fileCacheKeys, variantCacheKey } from "../../src/serving/edge-cache";
import { accessChanged } from "../../src/serving/access-changed";
import type { FileRow } from "../../src/db/schema";
import { call, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, seedFile } from "../support/files";
import { unreachableBindings, isD1Call } from "../support/unreachable";
import { fixture } from "../analysis/fixtures";

type View = { status: number; bytes: Uint8Array; headers: Headers };
const cache = () => (caches as unknown as { default: Cache }).default;

/** A view; `records` turns the edge-cached access records on; `offline` makes D1 and the DOs unreachable. */
async function view(url: string, opts: { records?: boolean; offline?: boolean; headers?: Record<string, string>; engine?: boolean } = {}): Promise<View> {
  const ctx = createExecutionContext();
  const bindings: Partial<Env> = opts.offline ? unreachableBindings(env).bindings : {};
  if (opts.engine === false) bindings.IMAGES = undefined as unknown as ImagesBinding;
  const testEnv = { ...env, ACCESS_RECORD_SECONDS: opts.records ? "30" : "0", ...bindings };
  const res = await worker.fetch(new Request(url, { headers: opts.headers }) as Request<unknown, IncomingRequestCfProperties>, testEnv, ctx);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!opts.offline) await waitOnExecutionContext(ctx);
  return { status: res.status, bytes, headers: res.headers };
}

const variant = (f: FileRow, w = 320) => `${IMAGE}/${f.id}?w=${w}&format=webp`;
const jpeg = (ownerId: string | null, extra: Parameters<typeof seedFile>[1] = {}) =>
  seedFile(ownerId, { content: fixture("wood.jpg"), mime: "image/jpeg", filename: "wood.jpg", width: 400, height: 400, ...extra });

let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await verifiedUser();
});

describe("a private file's variant", () => {
  it("is 404 to anonymous viewers and strangers, on both paths, and the owner's with a Bearer token", async () => {
    const f = await jpeg(owner.id, { visibility: "private" });
    for (const records of [false, true]) {
      expect((await view(variant(f), { records })).status, `records ${records}`).toBe(404);
      expect((await view(variant(f), { records, headers: { authorization: `Bearer ${stranger.access}` } })).status).toBe(404);
    }
    expect((await view(variant(f), { records: true, offline: true })).status).toBe(404); // decided from the records
    const mine = await view(variant(f), { headers: { authorization: `Bearer ${owner.access}` } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-type")).toBe("image/webp");
    expect(mine.headers.get("cache-control")).toBe("private, no-cache");
    // Cached bytes never answer for the access decision: the cached variant is still 404 to strangers.
    expect((await view(variant(f), { records: true })).status).toBe(404);
  });

  it("becoming private reaches the very next variant view, though the variant is cached", async () => {
    const f = await jpeg(owner.id);
    expect((await view(variant(f), { records: true })).status).toBe(200);
    expect((await view(variant(f), { records: true, offline: true })).status).toBe(200);
    const patched = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { visibility: "private" } });
    expect(patched.status).toBe(200);
    expect((await view(variant(f), { records: true })).status).toBe(404);
  });
});

describe("a deleted file's variant", () => {
  for (const records of [false, true]) {
    it(`is 410 right after the delete (${records ? "cached" : "uncached"} path)`, async () => {
      const f = await jpeg(owner.id);
      const before = await view(variant(f), { records });
      expect(before.status).toBe(200);
      if (records) expect((await view(variant(f), { records, offline: true })).status).toBe(200); // a cache hit
      expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
      expect((await view(variant(f), { records })).status).toBe(410);
      expect((await view(`${IMAGE}/${f.id}?w=160`, { records })).status).toBe(410);
      if (records) expect((await view(variant(f), { records, offline: true })).status).toBe(410);
      // and its cached bytes are gone with the original's
      expect(await cache().match(variantCacheKey(env, f.id, "original", f.storeKey, "w320.webp"))).toBeUndefined();
    });
  }
});

describe("the edge cache", () => {
  it("a hit needs no engine, no D1 and no Durable Object, and is the same bytes", async () => {
    const f = await jpeg(null);
    const first = await view(variant(f, 160), { records: true });
    expect(first.status).toBe(200);
    const probe = unreachableBindings(env);
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(variant(f, 160)) as Request<unknown, IncomingRequestCfProperties>, { ...env, ACCESS_RECORD_SECONDS: "30", ...probe.bindings, IMAGES: undefined as unknown as ImagesBinding }, ctx);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-variant")).toBe("w160.webp");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(first.bytes);
    expect(probe.calls.filter((c) => isD1Call(c))).toEqual([]);
  });

  it("only the plain ladder in AVIF, WebP or the original's type is cached; the rest is made per request", async () => {
    const f = await jpeg(null);
    for (const query of ["w=160&h=160&fit=cover&format=webp", "w=160&q=50&format=webp", "w=160&format=png"]) {
      expect((await view(`${IMAGE}/${f.id}?${query}`)).status).toBe(200);
      const again = await view(`${IMAGE}/${f.id}?${query}`, { engine: false });
      expect(again.headers.get("x-variant-fallback"), query).toBe("engine-error"); // not from the cache
    }
  });

  it("the purge list names every cacheable variant of the original and the thumbnail", async () => {
    const f = await jpeg(null, { thumb: fixture("cubes.jpg") });
    const keys = fileCacheKeys(env, f);
    for (const w of [160, 320, 640, 1024, 1600, 2048, 0]) {
      for (const ext of ["avif", "webp", "jpeg"]) expect(keys).toContain(variantCacheKey(env, f.id, "original", f.storeKey, `w${w}.${ext}`));
    }
    expect(keys).toContain(variantCacheKey(env, f.id, "thumb", f.thumbKey!, "w160.webp"));
    expect(keys).toContain(variantCacheKey(env, f.id, "thumb", f.thumbKey!, "w0.avif"));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(30); // one purge-by-URL call
    // Every descriptor the server can cache is in the list: fill them all, then purge, then nothing is left.
    const accepts = ["image/avif", "image/webp", "image/jpeg"];
    const urls: [string, string][] = [160, 320, 640, 5000].flatMap((w) => accepts.map((a): [string, string] => [`${IMAGE}/${f.id}?w=${w}`, a]));
    urls.push([`${IMAGE}/${f.id}/thumb?w=100`, "image/webp"], [`${IMAGE}/${f.id}/thumb?w=300`, "image/avif"]);
    const made = new Set<string>();
    for (const [url, accept] of urls) {
      const res = await view(url, { headers: { accept } });
      expect(res.status, url).toBe(200);
      made.add(`${url.includes("/thumb") ? "thumb" : "original"}:${res.headers.get("x-variant")}`);
    }
    const present = async () => (await Promise.all(keys.map((k) => cache().match(k)))).filter(Boolean).length;
    expect(await present()).toBe(made.size); // every variant made is under a key of the list
    await accessChanged(env, { files: [f] });
    for (const key of keys) expect(await cache().match(key), key).toBeUndefined();
  });

  it("accessChanged by id reads the rows to name their variants; an id without a row still loses its records", async () => {
    const f = await jpeg(null, { thumb: fixture("cubes.jpg") });
    for (const url of [`${IMAGE}/${f.id}?w=320`, `${IMAGE}/${f.id}/thumb?w=160`, `${IMAGE}/${f.id}`]) expect((await view(url, { headers: { accept: "image/webp" } })).status, url).toBe(200);
    const keys = fileCacheKeys(env, f);
    expect((await Promise.all(keys.map((k) => cache().match(k)))).filter(Boolean).length).toBeGreaterThanOrEqual(3);
    const ghost = "file_" + "x".repeat(21);
    await cache().put(fileCacheKeys(env, { ...f, id: ghost })[0], new Response("{}", { headers: { "cache-control": "max-age=60" } }));
    await accessChanged(env, { fileIds: [f.id, ghost] });
    for (const key of keys) expect(await cache().match(key), key).toBeUndefined();
    expect(await cache().match(fileCacheKeys(env, { ...f, id: ghost })[0])).toBeUndefined();
  });
});
