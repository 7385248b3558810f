import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BAND_BITS, bandProbes, bandValues, flipProbes } from "../../src/analysis/bands";
import { findNearBlocklistHashes, indexBlocklistEntry, indexBlocklistEntryStatements, matchBlocklist, unindexBlocklistEntryStatement } from "../../src/analysis/blocklist";
import { phashDistance } from "../../src/analysis/duplicates";
import { embeddingCandidateStatement, findDuplicates, phashCandidateStatements } from "../../src/files/duplicate-lookup";
import { analyzeFile } from "../../src/analysis/job";
import { hammingDistance } from "../../src/analysis/phash";
import { runBatch } from "../../src/platform/data/db";
import { newId } from "../../src/platform/data/ids";
import { EXPECTED_PHASH, fixture } from "./fixtures";
import { db, deliver, directory, fileRow, seedFinalizedFile, seedUser } from "./support";
import { ownerDb } from "../support/shard-db";

const hex64 = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff })).map(([a, b]) => a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0"));

function flipBits(hex: string, bits: number[]): string {
  let v = BigInt("0x" + hex);
  for (const b of bits) v ^= 1n << BigInt(b);
  return v.toString(16).padStart(16, "0");
}

const analyze = (id: string) => analyzeFile(env, id, { skipNsfw: true });

describe("band index (multi-index hashing)", () => {
  it("splits 64 bits into 22 + 21 + 21", () => {
    expect(BAND_BITS.reduce<number>((a, b) => a + b, 0)).toBe(64);
    expect(bandValues("ffffffffffffffff")).toEqual([2 ** 22 - 1, 2 ** 21 - 1, 2 ** 21 - 1]);
    expect(bandValues("8000000000000001")).toEqual([2 ** 21, 0, 1]);
  });

  it("probes every value within floor(d / 3) flips: 254 + 232 + 232 values for d = 8", () => {
    const probes = bandProbes("c53f706a9e352968", 8);
    expect(probes.map((p) => p.length)).toEqual([254, 232, 232]);
    for (const p of probes) expect(new Set(p).size).toBe(p.length);
    expect(flipProbes(0, 4, 1).sort()).toEqual([0, 1, 2, 4, 8]);
    expect(bandProbes("c53f706a9e352968", 2).map((p) => p.length)).toEqual([1, 1, 1]);
  });

  it("pigeonhole: any hash within distance d shares a probed value in some band", () => {
    fc.assert(
      fc.property(hex64, fc.integer({ min: 0, max: 12 }), fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: 12 }), (hash, d, flips) => {
        const other = flipBits(hash, flips.slice(0, d));
        const probes = bandProbes(hash, d);
        const values = bandValues(other);
        expect(values.some((v, band) => probes[band].includes(v))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the blocklist's index against D1", () => {
  it("finds exactly what a brute-force scan finds", async () => {
    const base = "c53f706a9e352968";
    // Around a base hash: copies at every distance 0..16, plus random hashes.
    const hashes: string[] = [];
    for (let d = 0; d <= 16; d++) hashes.push(flipBits(base, Array.from({ length: d }, (_, i) => (i * 7) % 64)));
    fc.sample(hex64, { numRuns: 200, seed: 42 }).forEach((h) => hashes.push(h));
    const refs = hashes.map(() => newId("blk"));
    await runBatch(directory(), hashes.flatMap((h, i) => indexBlocklistEntryStatements(directory(), refs[i], h)));
    const ours = new Set(refs); // other tests of this file add entries of their own
    for (const maxDistance of [0, 3, 8, 12]) {
      const { matches, candidates } = await findNearBlocklistHashes(directory(), base, maxDistance);
      const found = matches.filter((m) => ours.has(m.ref));
      const brute = hashes.map((h, i) => ({ ref: refs[i], distance: hammingDistance(base, h) })).filter((x) => x.distance <= maxDistance);
      expect(found.map((m) => m.ref).sort()).toEqual(brute.map((b) => b.ref).sort());
      expect(matches.map((m) => m.distance)).toEqual([...matches.map((m) => m.distance)].sort((a, b) => a - b));
      expect(candidates).toBeLessThan(60); // few rows read out of 651
    }
    // Its rows go again: they have no blocklist entry, and one has cubes.jpg's very phash, so it would tie with
    // the entries the tests below ban cubes with, and win or lose by the random ids' order.
    await runBatch(directory(), hashes.map((h, i) => unindexBlocklistEntryStatement(directory(), refs[i], h)));
  });

  it("is looked up and unindexed by primary-key seeks (no scan)", async () => {
    const plan = await env.DB.prepare("EXPLAIN QUERY PLAN SELECT entry, phash FROM blocklist_bands WHERE band = ?1 AND value IN (1,2,3)").bind(0).all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail).join(" | ");
    expect(details).toMatch(/SEARCH blocklist_bands USING PRIMARY KEY \(band=\? AND value=\?\)/);
    expect(details).not.toMatch(/SCAN blocklist_bands/);
    const { sql, params } = (unindexBlocklistEntryStatement(directory(), "blk_x", "0123456789abcdef") as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
    const unindex = (await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>()).results.map((r) => r.detail).join(" | ");
    expect(unindex).toMatch(/SEARCH blocklist_bands USING PRIMARY KEY \(band=\? AND value=\? AND entry=\?\)/);
  });

  it("unindexing an entry removes its rows only", async () => {
    const [a, b] = [newId("blk"), newId("blk")];
    const phash = "00ff00ff00ff00ff";
    await runBatch(directory(), [...indexBlocklistEntryStatements(directory(), a, phash), ...indexBlocklistEntryStatements(directory(), b, phash)]);
    await runBatch(directory(), [unindexBlocklistEntryStatement(directory(), a, phash)]);
    const rows = await env.DB.prepare("SELECT entry, band FROM blocklist_bands WHERE entry IN (?1, ?2) ORDER BY band").bind(a, b).all<{ entry: string; band: number }>();
    expect(rows.results).toEqual([0, 1, 2].map((band) => ({ entry: b, band })));
  });
});

describe("findDuplicates: exact and similar among the owner's files", () => {
  it("finds resized, recompressed, brightened and re-encoded copies; not a different image; not other users' files", async () => {
    const owner = await seedUser();
    const stranger = await seedUser();
    const original = await seedFinalizedFile(owner, "cubes.jpg", fixture("cubes.jpg"));
    const copies = {
      resized: await seedFinalizedFile(owner, "cubes-resized.jpg", fixture("cubes-resized.jpg")),
      recompressed: await seedFinalizedFile(owner, "cubes-recompressed.jpg", fixture("cubes-recompressed.jpg")),
      brightened: await seedFinalizedFile(owner, "cubes-brightened.jpg", fixture("cubes-brightened.jpg")),
      webp: await seedFinalizedFile(owner, "cubes.webp", fixture("cubes.webp")),
      sameBytes: await seedFinalizedFile(owner, "again.jpg", fixture("cubes.jpg")),
    };
    const different = await seedFinalizedFile(owner, "wood.jpg", fixture("wood.jpg"));
    const strangers = await seedFinalizedFile(stranger, "cubes.jpg", fixture("cubes.jpg"));
    for (const f of [original, ...Object.values(copies), different, strangers]) expect((await analyze(f.id)).status).toBe("done");

    const dups = await findDuplicates(db(), env, await fileRow(original.id));
    expect(dups[0]).toEqual({ fileId: copies.sameBytes.id, url: `${env.IMAGE_URL}/${copies.sameBytes.id}`, distance: 0, match: "exact" });
    const similar = dups.filter((d) => d.match === "similar");
    expect(similar.map((d) => d.fileId).sort()).toEqual([copies.resized.id, copies.recompressed.id, copies.brightened.id, copies.webp.id].sort());
    for (const d of similar) {
      expect(d.distance).toBeLessThanOrEqual(phashDistance(env));
      // Analysed without the model here (as files analysed before the embedding existed): phash only.
      expect(d).toMatchObject({ signal: "phash", distances: { phash: d.distance, embedding: null } });
    }
    expect(similar.map((d) => d.distance)).toEqual([...similar.map((d) => d.distance)].sort((a, b) => a - b));
    const ids = dups.map((d) => d.fileId);
    expect(ids).not.toContain(different.id);
    expect(ids).not.toContain(strangers.id);
    expect(ids).not.toContain(original.id);
    expect(hammingDistance(EXPECTED_PHASH["cubes.jpg"], EXPECTED_PHASH["wood.jpg"])).toBeGreaterThan(8);

    // Deleted files drop out; anonymous files have no duplicates.
    await ownerDb.prepare("UPDATE files SET deleted_at = ?1 WHERE id = ?2").bind(Date.now(), copies.webp.id).run();
    expect((await findDuplicates(db(), env, await fileRow(original.id))).map((d) => d.fileId)).not.toContain(copies.webp.id);
    const anonymous = await seedFinalizedFile(null, "cubes.jpg", fixture("cubes.jpg"));
    const bandRows = async () => (await ownerDb.prepare("SELECT (SELECT count(*) FROM phash_bands) + (SELECT count(*) FROM embedding_bands) AS n").first<{ n: number }>())!.n;
    const before = await bandRows();
    await analyze(anonymous.id);
    expect(await findDuplicates(db(), env, await fileRow(anonymous.id))).toEqual([]);
    expect(await bandRows()).toBe(before); // anonymous files are in no owner's index
  });

  it("is one batch of index seeks: every band probe is a primary-key seek, every candidate a files row by (owner, ordinal)", async () => {
    const plan = async (statement: { toSQL(): { sql: string; params: unknown[] } } | { getQuery(): { sql: string; params: unknown[] } }) => {
      const { sql, params } = "toSQL" in statement ? statement.toSQL() : statement.getQuery();
      const rows = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
      return rows.results.map((r) => r.detail).join(" | ");
    };
    const phashPlans = await Promise.all(phashCandidateStatements(db(), "usr_x", "0123456789abcdef", 8, Date.now()).map(plan));
    expect(phashPlans).toHaveLength(3);
    for (const details of phashPlans) {
      expect(details).toMatch(/SEARCH phash_bands USING PRIMARY KEY \(owner=\? AND band=\? AND value=\?\)/);
      expect(details).toMatch(/SEARCH owners USING COVERING INDEX owners_user_id_unique \(user_id=\?\)/);
      expect(details).toMatch(/SEARCH files USING INDEX files_user_ordinal \(user_id=\? AND owner_ordinal=\?\)/);
      expect(details).not.toMatch(/SCAN (phash_bands|files|owners)/);
    }
    const details = await plan(embeddingCandidateStatement(db(), "usr_x", "0123456789abcdef".repeat(4), 240, Date.now()));
    expect(details).toMatch(/SEARCH b USING PRIMARY KEY \(owner=\? AND band=\? AND value=\?\)/);
    expect(details).toMatch(/SEARCH files USING INDEX files_user_ordinal \(user_id=\? AND owner_ordinal=\?\)/);
    expect(details).not.toMatch(/SCAN (b|embedding_bands|files|owners)\b/);
  });

  it("uses the client's phash hint until the analysis has run", async () => {
    const owner = await seedUser();
    const analysed = await seedFinalizedFile(owner, "wood.jpg", fixture("wood.jpg"));
    await analyze(analysed.id);
    const fresh = await seedFinalizedFile(owner, "other.jpg", fixture("cubes.jpg"), { clientPhash: flipBits(EXPECTED_PHASH["wood.jpg"], [1, 2, 3]) });
    expect(await findDuplicates(db(), env, await fileRow(fresh.id))).toEqual([
      { fileId: analysed.id, url: `${env.IMAGE_URL}/${analysed.id}`, distance: 3, match: "similar", signal: "phash", distances: { phash: 3, embedding: null } },
    ]);
  });
});

describe("blocklist", () => {
  async function banCubes(reason: "copyright" | "csam" = "copyright") {
    const reportId = newId("rep");
    const entryId = `blk_${crypto.randomUUID().replace(/-/g, "").slice(0, 21)}`;
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO reports (id, file_id, reason, priority, status, created_at, updated_at) VALUES (?1, ?2, ?3, 'normal', 'resolved', ?4, ?4)").bind(reportId, newId("file"), reason, now),
      env.DB.prepare("INSERT INTO blocklist (id, phash, report_id, created_at) VALUES (?1, ?2, ?3, ?4)").bind(entryId, EXPECTED_PHASH["cubes.jpg"], reportId, now),
    ]);
    await indexBlocklistEntry(directory(), entryId, EXPECTED_PHASH["cubes.jpg"]);
    return entryId;
  }

  const reportsOf = async (fileId: string) =>
    (await env.DB.prepare("SELECT reason, priority, status, report_count AS count, details FROM reports WHERE file_id = ?1").bind(fileId).all<{ reason: string; priority: string; status: string; count: number; details: string }>()).results;

  it("quarantines a near copy of a banned image and files one high-priority report, also on redelivery", async () => {
    const entryId = await banCubes("copyright");
    const file = await seedFinalizedFile(await seedUser(), "cubes-brightened.jpg", fixture("cubes-brightened.jpg"));
    const outcome = await analyze(file.id);
    expect(outcome).toMatchObject({ status: "done", blocklist: { entryId, reason: "copyright" } });
    const row = await fileRow(file.id);
    expect(row.quarantinedAt).toBeInstanceOf(Date);
    expect(row.analysis).toBe("done");
    const reports = await reportsOf(file.id);
    expect(reports).toEqual([{ reason: "copyright", priority: "high", status: "pending", count: 1, details: expect.stringContaining(entryId) }]);
    // At-least-once delivery: the same job again neither re-reports nor moves the quarantine time.
    await deliver({ type: "analyze", fileId: file.id });
    expect(await reportsOf(file.id)).toEqual(reports);
    expect((await fileRow(file.id)).quarantinedAt).toEqual(row.quarantinedAt);
  });

  it("aggregates into the file's open report when a user already reported it", async () => {
    await banCubes("csam");
    const file = await seedFinalizedFile(await seedUser(), "cubes-resized.jpg", fixture("cubes-resized.jpg"));
    await env.DB.prepare("INSERT INTO reports (id, file_id, reason, details, priority, status, created_at, updated_at) VALUES (?1, ?2, 'spam', 'looks like spam', 'normal', 'pending', 1, 1)").bind(newId("rep"), file.id).run();
    await analyze(file.id);
    const [report] = await reportsOf(file.id);
    expect(report).toMatchObject({ reason: "spam", priority: "high", status: "pending", count: 2 });
    expect(report.details).toMatch(/^looks like spam\nAutomatic: phash within distance \d of blocklist entry blk_/);
  });

  it("leaves unrelated images alone, and ignores index rows of removed entries", async () => {
    const entryId = await banCubes();
    const file = await seedFinalizedFile(await seedUser(), "wood.jpg", fixture("wood.jpg"));
    await analyze(file.id);
    expect((await fileRow(file.id)).quarantinedAt).toBeNull();
    expect(await reportsOf(file.id)).toEqual([]);
    await env.DB.prepare("DELETE FROM blocklist WHERE id = ?1").bind(entryId).run();
    const stale = await matchBlocklist(directory(), EXPECTED_PHASH["cubes.jpg"]);
    expect(stale?.entryId).not.toBe(entryId);
  });
});
