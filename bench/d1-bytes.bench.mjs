// Bytes of D1 per uploaded file: on fresh local state, 8 accounts upload 64 real images through the API
// (presign -> PUT -> finalize), the analysis of each is waited for (bounded), then the local D1 file is read
// with node:sqlite's `dbstat` and every table and index's used bytes (lib/dbstat.mjs says what counts as used)
// are printed per uploaded file, with the total. The total is what production keeps: a finished mail's bodies are
// emptied on the measured copy, as production's delivery does (development keeps them); the as-run total is printed too.
// Images: 32 originals (the 28 real photos of test/fixtures/images/photos and the photo-like cubes.jpg,
// wood.jpg, pixels.webp, truchet.png) and a near copy of each (the near-duplicates bench's variants, made with
// sharp and cached in bench/results/.near-duplicates), an original and its copy uploaded by the same account,
// 4 such pairs per account: owners' near-duplicate index rows are written as in real use, and read: the bench
// counts the copies whose `duplicates` name their original (the same before and after a change of the rows).
// Run: npm run bench -- d1-bytes   (no --quick: the figures are per file and need no samples). Port BENCH_PORT_BASE + 54.
// BENCH_KEEP_DB=<file> keeps a copy of the database there (to try a change of the schema on the same rows).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { makeVariant, VARIANTS } from "../test/fixtures/images/photos/variants.mjs";
import { localD1Files, usedBytes } from "./lib/dbstat.mjs";
import { benchPort, fmt, printTable, root, startBenchApp, within, writeSummary } from "./lib/index.mjs";
import { benchUser, readJson } from "./lib/users.mjs";

const ACCOUNTS = 8;
const PAIRS_PER_ACCOUNT = 4;
const ANALYSIS_BOUND_MS = 15 * 60_000;
const POLL_MS = 500;
/** Not per-file data: SQLite's own schema table, D1's migration list and the runtime's `_cf_` tables. */
/** The objects of several databases as one: each table's and index's counts summed across them. */
function sumObjects(all) {
  const byName = new Map();
  for (const { objects } of all) {
    for (const o of objects) {
      const seen = byName.get(o.name);
      if (!seen) byName.set(o.name, { ...o });
      else for (const k of ["rows", "payload", "used", "pages"]) if (typeof o[k] === "number") seen[k] = (seen[k] ?? 0) + o[k];
    }
  }
  return { objects: [...byName.values()] };
}

const SYSTEM = (name) => name === "sqlite_schema" || name === "d1_migrations" || name.startsWith("_cf_") || name === "sqlite_sequence";

const FIXTURES = path.join(root, "test/fixtures/images");
const MIME = { ".jpg": "image/jpeg", ".webp": "image/webp", ".png": "image/png", ".gif": "image/gif" };
const originals = [
  ...readdirSync(path.join(FIXTURES, "photos"))
    .filter((f) => f.endsWith(".jpg"))
    .sort()
    .map((f) => ({ name: `photos/${f}`, file: path.join(FIXTURES, "photos", f) })),
  ...["cubes.jpg", "wood.jpg", "pixels.webp", "truchet.png"].map((f) => ({ name: `fixtures/${f}`, file: path.join(FIXTURES, f) })),
].slice(0, ACCOUNTS * PAIRS_PER_ACCOUNT);
if (originals.length < ACCOUNTS * PAIRS_PER_ACCOUNT) throw new Error(`only ${originals.length} originals`);

// The same cache and names as bench/near-duplicates.bench.mjs: one copy of each variant for both benches.
const work = path.join(root, "bench/results/.near-duplicates");
mkdirSync(work, { recursive: true });
const kinds = Object.keys(VARIANTS);
const images = [];
for (const [i, o] of originals.entries()) {
  const kind = kinds[i % kinds.length];
  const variant = path.join(work, `${o.name.replace(/[/.]/g, "_")}--${kind}.jpg`);
  if (!existsSync(variant)) writeFileSync(variant, await (await makeVariant(sharp, o.file, kind)).toBuffer());
  const account = Math.floor(i / PAIRS_PER_ACCOUNT);
  images.push({ account, name: path.basename(o.file), bytes: readFileSync(o.file), mime: MIME[path.extname(o.file)], pair: i, original: true });
  images.push({ account, name: `${path.basename(o.file, path.extname(o.file))}-${kind}.jpg`, bytes: readFileSync(variant), mime: "image/jpeg", pair: i, original: false });
}

const bearer = (token) => ({ authorization: `Bearer ${token}` });

async function upload(api, token, image) {
  const sha256 = createHash("sha256").update(image.bytes).digest("hex");
  const json = { ...bearer(token), "content-type": "application/json" };
  const pre = await readJson(await fetch(`${api}/upload/presign`, { method: "POST", headers: json, body: JSON.stringify({ filename: image.name, mime: image.mime, bytes: image.bytes.byteLength, sha256 }) }));
  if (!pre.fileId) throw new Error(`presign ${image.name}: ${JSON.stringify(pre)}`);
  const put = await fetch(`${api}/upload/direct/${pre.fileId}`, { method: "PUT", headers: { ...bearer(token), "content-type": image.mime }, body: image.bytes });
  await put.arrayBuffer();
  if (put.status !== 200) throw new Error(`PUT ${image.name}: ${put.status}`);
  const fin = await readJson(
    await fetch(`${api}/upload/finalize`, { method: "POST", headers: json, body: JSON.stringify({ uploadId: pre.uploadId, fileId: pre.fileId, storeKey: pre.storeKey, storeEtag: put.headers.get("etag") }) }),
  );
  if (!fin.analysis) throw new Error(`finalize ${image.name}: ${JSON.stringify(fin)}`);
  return pre.fileId;
}

/** Polls every file until its analysis is no longer pending; the whole wait is bounded. */
async function analysed(api, uploaded) {
  const waiting = new Map(uploaded.map((u) => [u.fileId, u]));
  const outcome = { done: 0, failed: 0 };
  await within(
    "the analysis of the uploads",
    (async () => {
      while (waiting.size > 0) {
        for (const [fileId, u] of waiting) {
          const f = await readJson(await fetch(`${api}/files/${fileId}`, { headers: bearer(u.token) }));
          if (f.analysis === "pending") continue;
          outcome[f.analysis === "done" ? "done" : "failed"]++;
          waiting.delete(fileId);
        }
        if (waiting.size > 0) await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })(),
    ANALYSIS_BOUND_MS,
  );
  return outcome;
}

/** How many near copies' `duplicates` list their original as similar (the lookup through D1's band rows). */
async function copiesFound(api, uploaded) {
  const result = { pairs: 0, found: 0, byEmbedding: 0 };
  for (const copy of uploaded.filter((u) => !u.image.original)) {
    const original = uploaded.find((u) => u.image.original && u.image.pair === copy.image.pair);
    const f = await readJson(await fetch(`${api}/files/${copy.fileId}`, { headers: bearer(copy.token) }));
    const match = f.duplicates?.find((d) => d.fileId === original.fileId && d.match === "similar");
    result.pairs++;
    if (match) result.found++;
    if (match?.signal === "embedding") result.byEmbedding++;
  }
  return result;
}

/** Insights (extensions.md § 10): each file viewed from two sites and directly, then waited for (bounded) until
 *  its day's row is written: one file_days row of a typical shape a file. */
const REFERERS = ["https://blog.example.com/post/1", "https://forum.example.org/t/2?page=3", undefined];
async function viewedToday(app, api, uploaded) {
  for (const u of uploaded) {
    for (const referer of REFERERS) await (await fetch(`${app.url}/i/${u.fileId}`, { headers: referer ? { referer } : {} })).arrayBuffer();
  }
  await within(
    "the day's views of every file",
    (async () => {
      for (const u of uploaded) {
        while ((await readJson(await fetch(`${api}/files/${u.fileId}/stats`, { headers: bearer(u.token) }))).totals?.views < REFERERS.length) {
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      }
    })(),
    120_000,
  );
}

const app = await startBenchApp({ port: benchPort(54), vars: { FINALIZE_WAIT_MS: "0" } });
let measured;
let asRun;

/** On the measured copy: a finished mail's bodies emptied, as production's delivery leaves them. */
function asProductionKeeps(db) {
  const hasOutbox = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'outbox'").get();
  if (hasOutbox) db.exec("UPDATE outbox SET text = '', html = '' WHERE status IN ('sent', 'failed')");
}
let outcome;
let found;
try {
  const api = `${app.url}/api/v1`;
  const users = [];
  for (let a = 0; a < ACCOUNTS; a++) users.push(await benchUser(app, ["read", "upload"]));
  const started = performance.now();
  // Accounts upload side by side, each its own files one after another.
  const uploaded = (
    await Promise.all(
      users.map(async (user, a) => {
        const mine = [];
        for (const image of images.filter((i) => i.account === a)) mine.push({ fileId: await upload(api, user.access, image), token: user.access, image });
        return mine;
      }),
    )
  ).flat();
  console.log(`uploaded ${uploaded.length} files in ${fmt((performance.now() - started) / 1000)} s; waiting for their analysis`);
  outcome = await analysed(api, uploaded);
  console.log(`analysis: ${outcome.done} done, ${outcome.failed} failed, after ${fmt((performance.now() - started) / 1000)} s`);
  // What the rows are for: each near copy's duplicates, read through the band indexes, name its original.
  found = await copiesFound(api, uploaded);
  console.log(`near copies whose duplicates (GET /files/:id) name their original: ${found.found}/${found.pairs} (${found.byEmbedding} by the embedding)`);
  await viewedToday(app, api, uploaded);
  console.log("every file's day of views written (file_days)");
  // Every database together (the directory and shard 0, and SHARD_1): owners are placed on both shards.
  const dbFiles = localD1Files(app.persistTo);
  if (dbFiles.length < 1) throw new Error("no local D1 database found");
  console.log(`${dbFiles.length} local D1 databases, summed`);
  // Development keeps a finished mail's bodies (GET /dev/outbox answers them); production's delivery empties them
  // (mail/deliver.ts, emptiedBodies). Measured as production keeps them; as run, for the record.
  asRun = sumObjects(await Promise.all(dbFiles.map((f) => usedBytes(f))));
  measured = sumObjects(await Promise.all(dbFiles.map((f, i) => usedBytes(f, { keepAs: i === 0 ? process.env.BENCH_KEEP_DB : undefined, prepare: asProductionKeeps }))));
} finally {
  await app.stop();
}

const files = images.length;
const counted = measured.objects.filter((o) => !SYSTEM(o.table));
// Insights' daily rows are per file and day, not per upload: printed on their own line below, not in the total.
const INSIGHTS_TABLES = new Set(["file_days", "owner_days"]);
const total = counted.filter((o) => !INSIGHTS_TABLES.has(o.table)).reduce((s, o) => s + o.used, 0);
const rows = counted
  .filter((o) => o.used > 0 || o.rows > 0)
  .sort((a, b) => a.table.localeCompare(b.table) || (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "table" ? -1 : 1))
  .map((o) => ({ ...o, what: o.type === "table" ? o.name : `  ${o.name}`, perFile: o.used / files }));
const byTable = new Map();
for (const o of counted) byTable.set(o.table, (byTable.get(o.table) ?? 0) + o.used);
printTable(rows, [
  { key: "what", title: "table / index" },
  { key: "rows", title: "rows / entries", format: (v) => String(v ?? "-") },
  { key: "payload", title: "payload bytes", format: (v) => String(v) },
  { key: "used", title: "used bytes", format: (v) => String(v) },
  { key: "perFile", title: "per file", format: (v) => fmt(v, 4) },
], { title: `D1 used bytes after ${files} uploads by ${ACCOUNTS} accounts (used = payload + cell overhead)` });
printTable(
  [...byTable].filter(([, used]) => used > 0).sort((a, b) => b[1] - a[1]).map(([table, used]) => ({ table, used, perFile: used / files })),
  [
    { key: "table", title: "table with its indexes" },
    { key: "used", title: "used bytes", format: (v) => String(v) },
    { key: "perFile", title: "per file", format: (v) => fmt(v, 4) },
  ],
);
console.log(`total: ${total} used bytes, ${fmt(total / files, 4)} per uploaded file (every table and index but SQLite's and D1's own, and insights' daily rows; finished mails' bodies emptied as production keeps them)`);
const asRunTotal = asRun.objects.filter((o) => !SYSTEM(o.table) && !INSIGHTS_TABLES.has(o.table)).reduce((s, o) => s + o.used, 0);
console.log(`as run (development keeps finished mails' bodies for GET /dev/outbox): ${asRunTotal} used bytes, ${fmt(asRunTotal / files, 4)} per uploaded file`);
// A file's day of views (file_days with its indexes), and what 90 kept days of them cost a file viewed every day.
const fileDayBytes = byTable.get("file_days") ?? 0;
const fileDayRows = counted.find((o) => o.type === "table" && o.name === "file_days")?.rows ?? 0;
const perFileDay = fileDayRows ? fileDayBytes / fileDayRows : 0;
console.log(`file_days: ${fmt(perFileDay, 4)} used bytes per file-day (${fileDayRows} rows, 2 referring hosts and (direct) each); 90 days: ${fmt((perFileDay * 90) / 1024, 3)} KiB per file viewed every day`);
writeSummary("d1-bytes", { perFileDay, fileDayRows, files, accounts: ACCOUNTS, analysis: outcome, copiesFound: found, totalUsed: total, perFile: total / files, asRunPerFile: asRunTotal / files, objects: measured.objects });
if (outcome.done !== files) {
  console.error(`not every analysis was done: ${JSON.stringify(outcome)}`);
  process.exit(1);
}
