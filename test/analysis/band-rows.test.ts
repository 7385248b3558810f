// The owners' band indexes as rows (analysis/band-rows.ts): keyed by (owner key, band, value, ordinal), written and
// removed by their exact keys. The file lookup through them finds what a scan would; a file's rows follow what its
// row holds, also when an analysis runs again; deletes and lookups are primary-key seeks.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bandValues } from "../../src/analysis/bands";
import { indexFileStatements, unindexFileStatements, type IndexedFile } from "../../src/analysis/band-rows";
import { embeddingBandValues } from "../../src/analysis/embedding";
import { analyzeFile } from "../../src/analysis/job";
import { hammingDistance } from "../../src/analysis/phash";
import { files } from "../../src/db/schema";
import { phashCandidateStatements } from "../../src/files/duplicate-lookup";
import { runBatch, type Statement } from "../../src/platform/data/db";
import { newId } from "../../src/platform/data/ids";
import { bandRowsOf } from "../support/files";
import { EXPECTED_PHASH, fixture } from "./fixtures";
import { db, fileRow, seedFinalizedFile, seedUser } from "./support";
import { ownerDb } from "../support/shard-db";

const hex64 = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff })).map(([a, b]) => a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0"));
const flipBits = (hex: string, bits: number[]) => {
  let v = BigInt("0x" + hex);
  for (const b of bits) v ^= 1n << BigInt(b);
  return v.toString(16).padStart(16, "0");
};

/** Finalized, analysed file rows of `owner` with these phashes (no bytes: only the rows are looked up), indexed. */
async function seedHashes(owner: string, hashes: string[]): Promise<string[]> {
  const now = new Date();
  const ids = hashes.map(() => newId("file"));
  await runBatch(
    db(),
    hashes.map((phash, i) =>
      db()
        .insert(files)
        .values({ id: ids[i], userId: owner, ownerOrdinal: i + 1, filename: "x.jpg", mime: "image/jpeg", bytes: 1, storeKey: `k/${ids[i]}`, state: "finalized", analysis: "done", phash, createdAt: now, updatedAt: now }),
    ),
  );
  await runBatch(db(), hashes.flatMap((phash, i) => indexFileStatements(db(), { userId: owner, ownerOrdinal: i + 1, phash: null, embeddingCode: null }, { phash, embeddingCode: null })));
  return ids;
}

const planOf = async (statement: Statement) => {
  const { sql, params } = "toSQL" in statement ? statement.toSQL() : statement.getQuery();
  return (await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>()).results.map((r) => r.detail).join(" | ");
};

describe("an owner's phash lookup against D1", () => {
  it("finds exactly what a brute-force scan of the owner's files finds, and nothing of another owner's", async () => {
    const owner = await seedUser();
    const base = "c53f706a9e352968";
    const hashes: string[] = [];
    for (let d = 0; d <= 16; d++) hashes.push(flipBits(base, Array.from({ length: d }, (_, i) => (i * 7) % 64)));
    fc.sample(hex64, { numRuns: 200, seed: 42 }).forEach((h) => hashes.push(h));
    const ids = await seedHashes(owner, hashes);
    const stranger = await seedUser();
    await seedHashes(stranger, hashes.slice(0, 17)); // the same near hashes, another owner's
    for (const maxDistance of [0, 3, 8, 12]) {
      const results = await runBatch<{ id: string; phash: string }>(db(), phashCandidateStatements(db(), owner, base, maxDistance, Date.now()));
      const rows = results.flatMap((r) => r.results);
      const found = new Set(rows.filter((r) => hammingDistance(base, r.phash) <= maxDistance).map((r) => r.id));
      const brute = ids.filter((_, i) => hammingDistance(base, hashes[i]) <= maxDistance);
      expect([...found].sort()).toEqual([...brute].sort());
      expect(rows.every((r) => ids.includes(r.id))).toBe(true);
      expect(rows.length).toBeLessThan(60); // few candidates out of 217 files
    }
  });
});

describe("a file's band rows", () => {
  const code = (seed: number) => Array.from({ length: 64 }, (_, i) => ((i * 7 + seed) % 16).toString(16)).join("");

  it("follow what the file's row holds: the same values again change nothing, new values replace the old rows", async () => {
    const owner = await seedUser();
    const file = (phash: string | null, embeddingCode: string | null): IndexedFile => ({ userId: owner, ownerOrdinal: 7, phash, embeddingCode });
    const neighbour: IndexedFile = { userId: owner, ownerOrdinal: 8, phash: null, embeddingCode: null };
    const [p0, p1, c0, c1] = ["0000000000000000", "ffffffffffffffff", code(1), code(2)];
    const rows = async (ordinal: number) => {
      const r = await ownerDb.prepare(
        "SELECT 'p' AS t, band, value FROM phash_bands WHERE owner = (SELECT id FROM owners WHERE user_id = ?1) AND ordinal = ?2 UNION ALL SELECT 'e', band, value FROM embedding_bands WHERE owner = (SELECT id FROM owners WHERE user_id = ?1) AND ordinal = ?2 ORDER BY 1, 2",
      )
        .bind(owner, ordinal)
        .all<{ t: string; band: number; value: number }>();
      return r.results;
    };
    const of = (phash: string, c: string | null) => [
      ...(c ? embeddingBandValues(c).map((value, band) => ({ t: "e", band, value })) : []),
      ...bandValues(phash).map((value, band) => ({ t: "p", band, value })),
    ];
    await runBatch(db(), [...indexFileStatements(db(), file(null, null), { phash: p0, embeddingCode: c0 }), ...indexFileStatements(db(), neighbour, { phash: p0, embeddingCode: c0 })]);
    expect(await rows(7)).toEqual(of(p0, c0));
    await runBatch(db(), indexFileStatements(db(), file(p0, c0), { phash: p0, embeddingCode: c0 })); // a redelivery
    expect(await rows(7)).toEqual(of(p0, c0));
    await runBatch(db(), indexFileStatements(db(), file(p0, c0), { phash: p1, embeddingCode: null })); // the model failed
    expect(await rows(7)).toEqual(of(p1, c0));
    await runBatch(db(), indexFileStatements(db(), file(p1, c0), { phash: p1, embeddingCode: c1 }));
    expect(await rows(7)).toEqual(of(p1, c1));
    expect(await rows(8)).toEqual(of(p0, c0)); // the same values of another file are its own rows
    await runBatch(db(), unindexFileStatements(db(), file(p1, c1)));
    expect(await rows(7)).toEqual([]);
    expect(await rows(8)).toEqual(of(p0, c0));
  });

  it("are deleted by primary-key seeks, with no index by file", async () => {
    const file: IndexedFile = { userId: "usr_x", ownerOrdinal: 3, phash: "0123456789abcdef", embeddingCode: code(3) };
    const [phash, embedding] = await Promise.all(unindexFileStatements(db(), file).map(planOf));
    expect(phash).toMatch(/SEARCH phash_bands USING PRIMARY KEY \(owner=\? AND band=\? AND value=\? AND ordinal=\?\)/);
    expect(embedding).toMatch(/SEARCH embedding_bands USING PRIMARY KEY \(owner=\? AND band=\? AND value=\? AND ordinal=\?\)/);
    const indexes = await env.DB.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('phash_bands', 'embedding_bands')").all();
    expect(indexes.results).toEqual([]);
  });

  it("an analysis run again leaves exactly the rows of what it stored, when the stored phash was another", async () => {
    const owner = await seedUser();
    const seeded = await seedFinalizedFile(owner, "wood.jpg", fixture("wood.jpg"));
    // As if an earlier analysis (an older hash) had stored and indexed another phash.
    const stale = flipBits(EXPECTED_PHASH["wood.jpg"], [0, 10, 20, 30, 40, 50, 60]);
    await ownerDb.prepare("UPDATE files SET phash = ?1 WHERE id = ?2").bind(stale, seeded.id).run();
    await runBatch(db(), indexFileStatements(db(), { ...seeded, phash: null, embeddingCode: null }, { phash: stale, embeddingCode: null }));
    expect(await bandRowsOf("phash_bands", seeded.id)).toEqual(bandValues(stale).map((value, band) => ({ owner, band, value })));

    expect((await analyzeFile(env, seeded.id, { skipNsfw: true, force: true })).status).toBe("done");
    const row = await fileRow(seeded.id);
    expect(row.phash).not.toBe(stale);
    expect(await bandRowsOf("phash_bands", seeded.id)).toEqual(bandValues(row.phash!).map((value, band) => ({ owner, band, value })));
  });
});
