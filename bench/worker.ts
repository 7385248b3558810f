// BENCHMARK-ONLY worker entry (bench/wrangler.bench.toml; never in wrangler.toml): the real app, plus bare
// baseline routes under /__bench/ that do only the platform call a feature is built on, so a benchmark can
// say "the upload route costs N x a bare R2 put" with both measured in the same run on the same worker.
//   GET  /__bench/json        static JSON (the floor: routing + a response)
//   PUT  /__bench/r2/<key>    BUCKET.put(key, request.body) (send Content-Length: R2 needs a known length;
//                             ?sha256=<hex> adds R2's checksum check)
//   GET  /__bench/r2/<key>    BUCKET.get(key), streamed back
//   GET  /__bench/cache/<key> caches.default.match of the object at r2/<key> (filled from R2 on a miss)
//   GET  /__bench/cache3/<key> two small JSON record lookups in caches.default, then what cache/<key> does
//   GET  /__bench/json1       one JSON record lookup in caches.default (the size of a file's), then static JSON
//   GET  /__bench/d1          SELECT 1 on D1
//   /__bench/analysis/...     phash-index seeding and duplicate lookups (bench/analysis-routes.ts)
//   POST /__bench/forget/<id> drops a file's edge-cached access record and bytes (a cache miss on demand)
// Any request with `x-bench-tally: 1` runs with counted bindings (bench/roundtrips.ts).
import main from "../src/index";
import { analysisBench } from "./analysis-routes";
import type { JobMessage } from "../src/platform/data/job-messages";
import { withTally } from "./roundtrips";
import { accessChanged } from "../src/serving/access-changed";

// Every Durable Object class (and any other named export) of the real entry, so the bindings resolve.
export * from "../src/index";

const PREFIX = "/__bench/";
/** About 1 KB of JSON, like a file's edge access record. */
const FILE_SIZED_RECORD = { v: 1, at: 0, file: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field${i}`, "x".repeat(24)])) };
// Objects written by the baseline routes live apart from the app's keys.
const R2_PREFIX = "__bench/";

/** One bare lookup of a JSON record in caches.default, parsed; stored on the first miss. */
async function lookUpRecord(key: string, record: unknown): Promise<void> {
  const cache = (caches as unknown as { default: Cache }).default;
  const hit = await cache.match(key);
  if (hit) await hit.json();
  else await cache.put(key, Response.json(record, { headers: { "cache-control": "public, max-age=3600" } }));
}

async function baseline(request: Request, env: Env, path: string): Promise<Response> {
  if (path === "json" && request.method === "GET") {
    return Response.json({ ok: true, bench: "static" });
  }
  if (path === "json1" && request.method === "GET") {
    // Baseline E: what the API read's hit looks up, with nothing else: one record the size of a file's access
    // record, parsed, then baseline A. The floor of any read decided at the edge, on this machine.
    // A key of its own: baseline D's small records must not stand in for it.
    await lookUpRecord("https://bench.invalid/records/file-sized", FILE_SIZED_RECORD);
    return Response.json({ ok: true, bench: "static" });
  }
  if (path.startsWith("forget/") && request.method === "POST") {
    const id = path.slice("forget/".length);
    const row = await env.DB.prepare("SELECT id, store_key AS storeKey, thumb_key AS thumbKey, mime FROM files WHERE id = ?1")
      .bind(id)
      .first<{ id: string; storeKey: string; thumbKey: string | null; mime: string }>();
    if (row) await accessChanged(env, { files: [row] });
    else await accessChanged(env, { fileIds: [id] });
    return Response.json({ ok: true });
  }
  if (path.startsWith("cache/") && request.method === "GET") {
    // A bare edge-cache hit: caches.default.match of the R2 object stored at `__bench/<key>` (filled from R2 on a miss).
    const cache = (caches as unknown as { default: Cache }).default;
    const cacheKey = `https://bench.invalid/${path}`;
    const hit = await cache.match(cacheKey);
    if (hit) return hit;
    const object = await env.BUCKET.get(R2_PREFIX + path.slice("cache/".length));
    if (!object) return Response.json({ error: "not found" }, { status: 404 });
    const bytes = await object.arrayBuffer();
    const headers = { "content-type": object.httpMetadata?.contentType ?? "application/octet-stream", etag: object.httpEtag, "cache-control": "public, max-age=3600" };
    await cache.put(cacheKey, new Response(bytes, { headers }));
    return new Response(bytes, { headers });
  }
  if (path.startsWith("cache3/") && request.method === "GET") {
    // Baseline D: what a byte link's cache hit looks up, with nothing else: two small JSON records (the
    // access records of a file and its owner, each parsed) and then the bytes of baseline C.
    for (const record of ["file", "owner"]) await lookUpRecord(`https://bench.invalid/records/${record}`, { v: 1, record });
    return baseline(request, env, `cache/${path.slice("cache3/".length)}`);
  }
  if (path === "d1" && request.method === "GET") {
    const row = await env.DB.prepare("SELECT 1 AS one").first<{ one: number }>();
    return Response.json({ ok: row?.one === 1 });
  }
  if (path.startsWith("r2/") && path.length > 3) {
    const key = R2_PREFIX + path.slice(3);
    if (request.method === "PUT" || request.method === "POST") {
      if (!request.body) return Response.json({ error: "body required" }, { status: 400 });
      // ?sha256=<hex>: the same put with R2's checksum check (what the upload route asks of R2)
      const sha256 = new URL(request.url).searchParams.get("sha256");
      const object = await env.BUCKET.put(key, request.body, sha256 ? { sha256 } : undefined);
      return Response.json({ key, size: object?.size ?? 0, etag: object?.etag ?? null }, { status: 201 });
    }
    if (request.method === "GET") {
      const object = await env.BUCKET.get(key);
      if (!object) return Response.json({ error: "not found" }, { status: 404 });
      return new Response(object.body, {
        headers: { "content-type": object.httpMetadata?.contentType ?? "application/octet-stream", etag: object.httpEtag },
      });
    }
  }
  return Response.json({ error: "no such bench route" }, { status: 404 });
}

export default {
  ...main,
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith(`${PREFIX}analysis/`)) return analysisBench(request, env, pathname.slice(PREFIX.length + "analysis/".length));
    if (pathname.startsWith(PREFIX)) return baseline(request, env, pathname.slice(PREFIX.length));
    return withTally(request, env, async (counted) => main.fetch(request, counted, ctx));
  },
} satisfies ExportedHandler<Env, JobMessage>;
