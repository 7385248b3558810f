// A shard filled to 1 M files: does an owner's work slow down as the shard around it grows? (issue 26 § 3)
// The local D1 file of a scratch `--persist-to` folder (wrangler's migrations applied, as `npm run dev` does) is
// filled by direct SQL (node:sqlite, big transactions, prepared statements; lib/fill-rows.mjs) with realistic
// owner rows: files, their uploads, phash and embedding bands, albums, owners (lib/fill-owners.mjs says who owns
// what). At 10 k, 100 k and 1 M files it times, p50 and p95, the app's own query functions (bundled from src/ with
// esbuild, run through a D1 binding over the same file, lib/d1-sqlite.mjs), for a measured owner of 2,000 files:
//   - GET /files' read (files/queries.ts listOwnFiles: the page and the total, one batch): first and last page;
//   - the near-duplicate lookup (files/duplicate-lookup.ts findDuplicates: exact, phash and embedding probes);
//   - finalize's batch (uploads/records.ts transitionUpload as finalize calls it: quota, upload, file);
//   - an access-record miss (serving/access.ts loadFile: the D1 read of a byte link whose record is not cached);
//   - GET /search's read (search/queries.ts searchOwner: files and albums, pages and totals, one batch), a word
//     typed whole and as a prefix, and GET /files?q=&sort=relevance (issue 41);
// and the list for the largest owner (10 % of the shard's files) to show how the list grows with the owner.
// It prints each query's EXPLAIN QUERY PLAN, and the used bytes per file, album and owner (lib/dbstat.mjs).
// Run: npm run bench -- fill   (--quick: 100 k files at most, fewer samples). BENCH_FILL_MAX=<n> sets the top.
// It ends by timing a rebuild of files_user_created (what migration 0011 costs at that size).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { DatabaseSync } from "node:sqlite";
import { SqliteD1 } from "./lib/d1-sqlite.mjs";
import { localD1Files, usedBytes } from "./lib/dbstat.mjs";
import { MEASURED_FILES, Owners } from "./lib/fill-owners.mjs";
import { seeded } from "./lib/fill-random.mjs";
import { Filler } from "./lib/fill-rows.mjs";
import { fmt, printTable, quick, root, wranglerEnv, writeSummary } from "./lib/index.mjs";
import { run } from "./lib/processes.mjs";
import { timeQueries } from "./lib/fill-measure.mjs";

const TOP = Number(process.env.BENCH_FILL_MAX ?? (quick ? 100_000 : 1_000_000));
const STAGES = [10_000, 100_000, 1_000_000].filter((n) => n <= TOP);
const SAMPLES = quick ? 30 : 200;

const scratch = mkdtempSync(path.join(tmpdir(), "bench-fill-"));
const report = { stages: [], fillSeconds: [], plans: {} };
try {
  // The app's query functions, as the worker bundles them, for Node.
  const bundle = path.join(scratch, "queries.mjs");
  await build({
    stdin: {
      contents: [
        'export { listOwnFiles } from "./src/files/queries.ts";',
        'export { findDuplicates } from "./src/files/duplicate-lookup.ts";',
        'export { transitionUpload } from "./src/uploads/records.ts";',
        'export { loadFile } from "./src/serving/access.ts";',
        'export { database0 } from "./src/platform/data/db.ts";',
        'export { bandValues } from "./src/analysis/bands.ts";',
        'export { embeddingBandValues } from "./src/analysis/embedding.ts";',
        'export { searchOwner } from "./src/search/queries.ts";',
        'export { matchExpression, parseTerms } from "./src/files/text-match.ts";',
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "error",
  });
  const app = await import(bundle);

  const persistTo = path.join(scratch, "state");
  const m = await run("wrangler", ["d1", "migrations", "apply", "DB", "--local", "-c", "wrangler.toml", "--persist-to", persistTo], {
    env: wranglerEnv({ CI: "true" }),
    timeoutMs: 120_000,
    children: new Set(),
  });
  if (m.status !== 0) throw new Error(`D1 migrations failed:\n${m.stdout}\n${m.stderr}`);
  const [file] = localD1Files(persistTo);
  console.log(`local D1 file: ${file}`);

  const random = seeded(26);
  const owners = new Owners(STAGES, random);
  // Filling only: a large page cache and no fsync per transaction. The measuring connection has SQLite's defaults.
  // No foreign-key checks while filling: the owners have no users rows (a shard's tables do not name the
  // directory's; shard-schema.ts). The measuring connection checks them, as D1 does.
  const writer = new DatabaseSync(file, { enableForeignKeyConstraints: false });
  writer.exec("PRAGMA cache_size = -1000000; PRAGMA synchronous = OFF;");
  const filler = new Filler(writer, owners, app, random, { start: Date.now() - STAGES.at(-1) * 30_000 });
  const fillStarted = performance.now();
  for (const [k, size] of STAGES.entries()) {
    const started = performance.now();
    filler.fillTo(size);
    const seconds = (performance.now() - started) / 1000;
    report.fillSeconds.push(seconds);
    console.log(`\nfilled to ${size.toLocaleString("en-US")} files in ${fmt(seconds)} s (${fmt((size - (STAGES[k - 1] ?? 0)) / seconds)} files/s); owners: ${JSON.stringify(owners.counts())}`);
    const subject = owners.measured[k];
    const toFinalize = filler.uploadsToFinalize(subject, SAMPLES + 10, Date.now());
    const reader = new DatabaseSync(file);
    try {
      const d1 = new SqliteD1(reader);
      const db = app.database0(d1).shard;
      const { rows, largestLive } = await timeQueries({ app, d1, db, reader, subject, largest: owners.huge[0], filler, toFinalize, samples: SAMPLES });
      report.stages.push({ files: size, largestLive, rows });
      for (const r of rows) (report.plans[r.query] ??= {})[size] = r.plan;
    } finally {
      reader.close();
    }
  }
  report.fillTotalSeconds = (performance.now() - fillStarted) / 1000;
  // What a migration that rebuilds the list's index costs at this size (D1 allows 30 s per statement).
  const reindexStarted = performance.now();
  writer.exec("REINDEX files_user_created");
  report.reindexSeconds = (performance.now() - reindexStarted) / 1000;
  writer.close();
  report.fileBytes = statSync(file).size;
  report.owners = owners.counts();

  const measured = await usedBytes(file);
  const used = (table) => measured.objects.filter((o) => o.table === table).reduce((s, o) => s + o.used, 0);
  const rowsOf = (table) => measured.objects.find((o) => o.type === "table" && o.name === table)?.rows ?? 0;
  const files = rowsOf("files");
  const perFile = ["files", "uploads", "phash_bands", "embedding_bands"].reduce((s, t) => s + used(t), 0) / files;
  // The search indexes' shadow tables (migration 0019): files_fts_data, _idx, _docsize, _config; albums_fts_*.
  const ftsUsed = (prefix) => measured.objects.filter((o) => o.table.startsWith(prefix)).reduce((s, o) => s + o.used, 0);
  report.bytes = {
    files,
    perFile,
    perAlbum: used("albums") / rowsOf("albums"),
    perAlbumFile: used("album_files") / rowsOf("album_files"),
    perOwner: used("owners") / rowsOf("owners"),
    searchPerFile: ftsUsed("files_fts") / files,
    searchPerAlbum: ftsUsed("albums_fts") / rowsOf("albums"),
    tables: Object.fromEntries(["files", "uploads", "phash_bands", "embedding_bands", "albums", "album_files", "owners"].map((t) => [t, { rows: rowsOf(t), used: used(t) }])),
  };
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// The table: p50 and p95 per query and stage, and each p50 against the first stage's.
const first = report.stages[0].rows;
const table = first.map((r, i) => {
  const row = { query: r.query };
  for (const s of report.stages) {
    const x = s.rows[i];
    row[`${s.files}`] = `${fmt(x.p50)} / ${fmt(x.p95)}`;
  }
  row.growth = report.stages.at(-1).rows[i].p50 / r.p50;
  return row;
});
printTable(
  table,
  [
    { key: "query", title: "query (ms p50 / p95)" },
    ...report.stages.map((s) => ({ key: `${s.files}`, title: `${s.files.toLocaleString("en-US")} files`, align: "right" })),
    { key: "growth", title: `p50 ${STAGES.at(-1).toLocaleString("en-US")} / ${STAGES[0].toLocaleString("en-US")}`, format: (v) => `${fmt(v)}x` },
  ],
  { title: `fill: the shard's queries as it grows (${SAMPLES} samples each)` },
);
console.log(`the largest owner's live files: ${report.stages.map((s) => s.largestLive.toLocaleString("en-US")).join(", ")}; the measured owner's: ${MEASURED_FILES.toLocaleString("en-US")} (a few deleted or expired)`);
const b = report.bytes;
console.log(`fill time: ${report.fillSeconds.map((s) => fmt(s)).join(" + ")} s (${fmt(report.fillTotalSeconds)} s with the measuring); database file ${fmt(report.fileBytes / 1e9)} GB, ${fmt(report.fileBytes / b.files, 4)} bytes per file`);
console.log(`rebuilding files_user_created over ${b.files.toLocaleString("en-US")} files: ${fmt(report.reindexSeconds)} s`);
console.log(`used bytes: ${fmt(b.perFile, 4)} per file (files, uploads, bands), ${fmt(b.perAlbum, 4)} per album row, ${fmt(b.perAlbumFile, 4)} per album membership, ${fmt(b.perOwner, 3)} per owners row`);
console.log(`search index: ${fmt(b.searchPerFile, 4)} used bytes per file (files_fts), ${fmt(b.searchPerAlbum, 4)} per album (albums_fts)`);
writeSummary("fill", { samples: SAMPLES, ...report });
