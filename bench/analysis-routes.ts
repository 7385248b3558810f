// BENCHMARK-ONLY routes for bench/analysis.bench.mjs (mounted by bench/worker.ts under /__bench/analysis/):
// fill phash_bands with many hashes for one owner, and time findNearHashes (the duplicate lookup) in-process.
//   POST /__bench/analysis/seed    { owner, start, count, seed }  inserts `count` hashes (3 band rows each)
//   POST /__bench/analysis/lookup  { owner, phashes: [...], distance }  runs the lookups one by one, returns timings
//   GET  /__bench/analysis/count?owner=  rows held by the owner
import { bandValues } from "../src/analysis/bands";
import { findNearHashes } from "../src/analysis/duplicates";
import { createDb } from "../src/platform/db";
import { benchHash } from "./lib/bench-hash.mjs";

export async function analysisBench(request: Request, env: Env, path: string): Promise<Response> {
  if (path === "seed" && request.method === "POST") {
    const { owner, start, count, seed = 1 } = (await request.json()) as { owner: string; start: number; count: number; seed?: number };
    const t0 = performance.now();
    const statements: D1PreparedStatement[] = [];
    const ROWS_PER_STATEMENT = 300; // inline integer literals; owner and ref strings bound per statement would exceed 100 params
    let values: string[] = [];
    const flush = () => {
      if (values.length) statements.push(env.DB.prepare(`INSERT OR IGNORE INTO phash_bands (owner, band, value, ref, phash) VALUES ${values.join(",")}`));
      values = [];
    };
    const o = owner.replace(/'/g, "''");
    for (let i = start; i < start + count; i++) {
      const phash = benchHash(i, seed);
      bandValues(phash).forEach((value, band) => values.push(`('${o}',${band},${value},'ref_${seed}_${i}','${phash}')`));
      if (values.length >= ROWS_PER_STATEMENT) flush();
    }
    flush();
    for (let i = 0; i < statements.length; i += 50) await env.DB.batch(statements.slice(i, i + 50));
    return Response.json({ inserted: count, ms: performance.now() - t0 });
  }
  if (path === "lookup" && request.method === "POST") {
    const { owner, phashes, distance = 8 } = (await request.json()) as { owner: string; phashes: string[]; distance?: number };
    const results = [];
    for (const phash of phashes) {
      const t0 = performance.now();
      const r = await findNearHashes(createDb(env.DB), owner, phash, distance);
      results.push({ ms: performance.now() - t0, matches: r.matches.length, candidates: r.candidates, rowsRead: r.rowsRead, statements: r.statements });
    }
    return Response.json({ results });
  }
  if (path === "count" && request.method === "GET") {
    const owner = new URL(request.url).searchParams.get("owner") ?? "";
    const row = await env.DB.prepare("SELECT count(*) AS n FROM phash_bands WHERE owner = ?1").bind(owner).first<{ n: number }>();
    return Response.json({ rows: row?.n ?? 0 });
  }
  return Response.json({ error: "no such analysis bench route" }, { status: 404 });
}
