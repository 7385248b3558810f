// The fill bench's timings at one shard size: the app's query functions (bundled from src/) through a D1 binding
// over the local file (d1-sqlite.mjs), each timed `samples` times after a warm-up, with the plan of every
// statement it sent. A plan line that scans a table or sorts in a temporary b-tree is marked: "SCAN" of a real
// table (not of the probe list, `json_each`) or "USE TEMP B-TREE".
import { fmt, stats } from "./index.mjs";

const WARMUP = 10;
const LIST = { limit: 50, offset: 0, sort: "created", order: "desc", excludeNsfw: true };
const ENV = { PHASH_DISTANCE: "8", IMAGE_URL: "http://127.0.0.1/i" };

const suspicious = (line) => /USE TEMP B-TREE/.test(line) || (/^\s*SCAN /.test(line) && !/SCAN (json_each|p)\b/.test(line));

async function timed(d1, name, samples, next) {
  const { statements } = await d1.record(() => next(0)());
  for (let i = 1; i < WARMUP; i++) await next(i)();
  const ms = [];
  for (let i = 0; i < samples; i++) {
    const call = next(WARMUP + i);
    const t = performance.now();
    await call();
    ms.push(performance.now() - t);
  }
  const s = stats(ms);
  const plan = statements.map((st) => ({ sql: st.sql.replace(/\s+/g, " ").trim(), plan: d1.plan(st) }));
  return { query: name, p50: s.median, p95: quantile(ms, 0.95), statements: statements.length, plan };
}

function quantile(values, q) {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.floor(q * v.length))];
}

/** Each query's row (`{ query, p50, p95, statements, plan }`) and the largest owner's live files; prints the plans. */
export async function timeQueries({ app, d1, db, reader, subject, largest, filler, toFinalize, samples }) {
  const now = Date.now();
  const pick = (list, i) => list[(i * 7919) % list.length];
  const rows = [];
  // A call to time: `next(i)` prepares sample i (untimed) and returns the timed call.
  const listed = await app.listOwnFiles(db, subject.userId, LIST, now);
  const lastPage = Math.max(0, listed.total - LIST.limit);
  rows.push(await timed(d1, "list: first page", samples, () => () => app.listOwnFiles(db, subject.userId, LIST, now)));
  rows.push(await timed(d1, "list: last page", samples, () => () => app.listOwnFiles(db, subject.userId, { ...LIST, offset: lastPage }, now)));

  const fileRow = reader.prepare("SELECT id, user_id AS userId, sha256, phash, embedding, embedding_code AS embeddingCode FROM files WHERE id = ?");
  rows.push(
    await timed(d1, "near-duplicate lookup", samples, (i) => {
      const file = fileRow.get(pick(subject.fileIds, i));
      return () => app.findDuplicates(db, ENV, file, now);
    }),
  );

  rows.push(
    await timed(d1, "finalize's batch", samples, (i) => {
      const { uploadId, fileId } = toFinalize[i];
      const at = new Date();
      // What finalize passes (uploads/finalize.ts), with a fresh upload each time.
      const transition = {
        upload: { id: uploadId, fileId },
        from: ["uploaded"],
        to: "finalized",
        quota: "commit",
        uploadSet: { finalizeResponse: { width: 4032, height: 3024, nsfwScore: null, ageRestricted: false, visibility: "public", expiresAt: null, phash: null, duplicates: [] }, sha256: null, r2UploadId: null },
        fileFrom: ["uploaded"],
        fileSet: { state: "finalized", finalizedAt: at, width: 4032, height: 3024, clientPhash: null, clientNsfwScore: null, nsfwScore: null, ageRestricted: false, analysis: "pending" },
        now: at,
      };
      return async () => {
        if (!(await app.transitionUpload(db, transition))) throw new Error(`finalize ${uploadId} did not apply`);
      };
    }),
  );

  rows.push(await timed(d1, "access-record miss (loadFile)", samples, (i) => () => app.loadFile(db, filler.ids[Math.floor(((i * 104729) % 1_000_003) / 1_000_003 * filler.ids.length)])));

  // GET /search as the route reads it (one batch: files and albums, pages and totals), and GET /files?q= by relevance.
  const page = { limit: 20, offset: 0 };
  for (const [name, q] of [["search: one word", "beach"], ["search: two words, the last typed", "sunset bea"]]) {
    const match = app.matchExpression(subject.userId, app.parseTerms(q));
    const hits = await app.searchOwner(db, subject.userId, match, "all", page, now);
    console.log(`${name} (${JSON.stringify(q)}): ${hits.fileTotal} files, ${hits.albumTotal} albums of the measured owner`);
    rows.push(await timed(d1, name, samples, () => () => app.searchOwner(db, subject.userId, match, "all", page, now)));
  }
  const beach = app.matchExpression(subject.userId, app.parseTerms("beach"));
  rows.push(await timed(d1, "list: q=beach, sort=relevance", samples, () => () => app.listOwnFiles(db, subject.userId, { ...LIST, sort: "relevance", match: beach }, now)));

  const bigListed = await app.listOwnFiles(db, largest.userId, LIST, now);
  const bigLast = Math.max(0, bigListed.total - LIST.limit);
  // 10 % of the shard's files: its list takes up to a second at 1 M, so fewer samples.
  const few = Math.min(samples, 30);
  rows.push(await timed(d1, "largest owner: first page", few, () => () => app.listOwnFiles(db, largest.userId, LIST, now)));
  rows.push(await timed(d1, "largest owner: last page", few, () => () => app.listOwnFiles(db, largest.userId, { ...LIST, offset: bigLast }, now)));

  console.log(`\nlast pages at offset ${lastPage} (the measured owner, ${listed.total} live files) and ${bigLast} (the largest owner, ${bigListed.total})`);
  console.log(`plans (${filler.position.toLocaleString("en-US")} files; ! marks a scan of a table or a temporary b-tree):`);
  for (const r of rows) {
    console.log(`- ${r.query}: p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, ${r.statements} statement(s)`);
    for (const st of r.plan) {
      console.log(`    ${st.sql.length > 160 ? st.sql.slice(0, 157) + "..." : st.sql}`);
      for (const line of st.plan) console.log(`      ${suspicious(line) ? "!" : " "} ${line}`);
    }
  }
  return { rows, largestLive: bigListed.total };
}
