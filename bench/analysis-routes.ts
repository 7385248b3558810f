// BENCHMARK-ONLY routes for bench/analysis.bench.mjs (mounted by bench/worker.ts under /__bench/analysis/):
// fill a band index with many hashes, and time the band lookup (the same probe lists and primary-key seeks as an
// owner's duplicate lookup, analysis/duplicates.ts probeLists) in-process. The index is the blocklist's
// (blocklist_bands): an owner's lookup also joins each candidate's files row, which would need as many files rows.
//   POST /__bench/analysis/seed    { start, count, seed }  inserts `count` hashes (3 band rows each)
//   POST /__bench/analysis/lookup  { phashes: [...], distance }  runs the lookups one by one, returns timings
//   GET  /__bench/analysis/count   rows held
import { bandValues } from "../src/analysis/bands";
import { findNearBlocklistHashes } from "../src/analysis/blocklist";
import { directoryDb } from "../src/platform/data/db";
import { benchHash } from "./lib/bench-hash.mjs";

export async function analysisBench(request: Request, env: Env, path: string): Promise<Response> {
  if (path === "seed" && request.method === "POST") {
    const { start, count, seed = 1 } = (await request.json()) as { start: number; count: number; seed?: number };
    const t0 = performance.now();
    const statements: D1PreparedStatement[] = [];
    const ROWS_PER_STATEMENT = 300; // inline literals: entry and phash strings bound per statement would exceed 100 params
    let values: string[] = [];
    const flush = () => {
      if (values.length) statements.push(env.DB.prepare(`INSERT OR IGNORE INTO blocklist_bands (band, value, entry, phash) VALUES ${values.join(",")}`));
      values = [];
    };
    for (let i = start; i < start + count; i++) {
      const phash = benchHash(i, seed);
      bandValues(phash).forEach((value, band) => values.push(`(${band},${value},'ref_${seed}_${i}','${phash}')`));
      if (values.length >= ROWS_PER_STATEMENT) flush();
    }
    flush();
    for (let i = 0; i < statements.length; i += 50) await env.DB.batch(statements.slice(i, i + 50));
    return Response.json({ inserted: count, ms: performance.now() - t0 });
  }
  if (path === "lookup" && request.method === "POST") {
    const { phashes, distance = 8 } = (await request.json()) as { phashes: string[]; distance?: number };
    const results = [];
    for (const phash of phashes) {
      const t0 = performance.now();
      const r = await findNearBlocklistHashes(directoryDb(env), phash, distance);
      results.push({ ms: performance.now() - t0, matches: r.matches.length, candidates: r.candidates, rowsRead: r.rowsRead, statements: r.statements });
    }
    return Response.json({ results });
  }
  if (path === "count" && request.method === "GET") {
    const row = await env.DB.prepare("SELECT count(*) AS n FROM blocklist_bands").first<{ n: number }>();
    return Response.json({ rows: row?.n ?? 0 });
  }
  return Response.json({ error: "no such analysis bench route" }, { status: 404 });
}
