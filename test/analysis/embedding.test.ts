// The embedding signal of `duplicates` (src/analysis/embedding.ts, embedding-index.ts): real photos through the
// real job with the NSFW model (loaded once for this file), a crop and a rotation that phash misses, an
// unrelated photo of the same kind, and the rules duplicates keep (owner's live files only, retry-safe index).
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ANALYSIS } from "../../src/config";
import { phashDistance } from "../../src/analysis/duplicates";
import { findDuplicates } from "../../src/files/duplicate-lookup";
import { decodeFeatures, EMBEDDING_BANDS, embeddingBandValues, embeddingCode, embeddingDistance, embeddingProbes, encodeFeatures, isEmbeddingCode } from "../../src/analysis/embedding";
import { analyzeFile } from "../../src/analysis/job";
import { loadNsfwModel } from "../../src/analysis/nsfw";
import { hammingDistance } from "../../src/analysis/phash";
import { photo } from "./fixtures";
import { bandRowsOf } from "../support/files";
import { db, deliver, fileRow, seedFinalizedFile, seedUser } from "./support";
import { ownerDb } from "../support/shard-db";

beforeAll(async () => {
  await loadNsfwModel();
}, 180_000);

const bandRows = (fileId: string) => bandRowsOf("embedding_bands", fileId);

describe("embedding code and features (pure)", () => {
  const vector = fc.array(fc.float({ min: -8, max: 8, noNaN: true }), { minLength: 384, maxLength: 384 });

  it("the code is 256 bits, deterministic, and splits into 16 bands of 16 bits probed within one flip", () => {
    const features = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i));
    const center = new Float32Array(384);
    const code = embeddingCode(features, center);
    expect(isEmbeddingCode(code)).toBe(true);
    expect(embeddingCode(features, center)).toBe(code);
    expect(embeddingBandValues(code)).toHaveLength(EMBEDDING_BANDS);
    expect(embeddingBandValues(code).map((v) => v.toString(16).padStart(4, "0")).join("")).toBe(code);
    expect(embeddingProbes(code).map((p) => p.length)).toEqual(Array(16).fill(17));
    // Opposite centred features flip every bit.
    const opposite = embeddingCode(features.map((x) => -x), center);
    expect(hammingDistance(code.slice(0, 16), opposite.slice(0, 16))).toBe(64);
  });

  it("stored features keep the cosine distance within 1 thousandth", () => {
    fc.assert(
      fc.property(vector, vector, (a, b) => {
        const exact = embeddingDistance(a, b);
        const stored = embeddingDistance(decodeFeatures(encodeFeatures(a))!, decodeFeatures(encodeFeatures(b))!);
        if (exact === null) return;
        expect(stored).not.toBeNull();
        expect(Math.abs(stored! - exact)).toBeLessThanOrEqual(2);
      }),
      { numRuns: 200 },
    );
    expect(decodeFeatures("not base64!")).toBeNull();
    expect(decodeFeatures(null)).toBeNull();
    expect(embeddingDistance([1, 0], [1, 0])).toBe(0);
    expect(embeddingDistance([1, 0], [0, 1])).toBe(1000);
    expect(embeddingDistance([0, 0], [1, 0])).toBeNull();
  });
});

describe("duplicates found by the embedding", () => {
  it("finds a cropped and a rotated copy of a real photo that phash misses; not an unrelated photo, not other users' files", async () => {
    const owner = await seedUser();
    const stranger = await seedUser();
    const original = await seedFinalizedFile(owner, "ladybird.jpg", await photo("ladybird.jpg"));
    const cropped = await seedFinalizedFile(owner, "ladybird-crop8.jpg", await photo("variants/ladybird-crop8-tl.jpg"));
    const rotated = await seedFinalizedFile(owner, "ladybird-rot3.jpg", await photo("variants/ladybird-rot3.jpg"));
    // Flowers and leaves too, the nearest of the corpus to this one.
    const unrelated = await seedFinalizedFile(owner, "garden.jpg", await photo("garden.jpg"));
    const strangers = await seedFinalizedFile(stranger, "ladybird-rot3.jpg", await photo("variants/ladybird-rot3.jpg"));
    for (const f of [original, cropped, rotated, unrelated, strangers]) expect(await analyzeFile(env, f.id)).toMatchObject({ status: "done", stepErrors: [] });

    const dups = await findDuplicates(db(), env, await fileRow(original.id));
    expect(dups.map((d) => d.fileId).sort()).toEqual([cropped.id, rotated.id].sort());
    for (const d of dups) {
      expect(d).toMatchObject({ match: "similar", signal: "embedding", url: `${env.IMAGE_URL}/${d.fileId}` });
      if (d.match !== "similar") continue;
      expect(d.distances.phash).toBeGreaterThan(phashDistance(env)); // phash alone would miss it
      expect(d.distance).toBe(d.distances.embedding);
      expect(d.distance).toBeLessThanOrEqual(ANALYSIS.embeddingDistance);
    }
    // Both ways round.
    expect((await findDuplicates(db(), env, await fileRow(rotated.id))).map((d) => d.fileId)).toContain(original.id);
    // The unrelated photo's features are far: nothing near it among these.
    const row = await fileRow(unrelated.id);
    expect(embeddingDistance(decodeFeatures(row.embedding)!, decodeFeatures((await fileRow(original.id)).embedding)!)).toBeGreaterThan(2 * ANALYSIS.embeddingDistance);
    expect(await findDuplicates(db(), env, row)).toEqual([]);

    // Deleted files drop out.
    await ownerDb.prepare("UPDATE files SET deleted_at = ?1 WHERE id = ?2").bind(Date.now(), cropped.id).run();
    expect((await findDuplicates(db(), env, await fileRow(original.id))).map((d) => d.fileId)).toEqual([rotated.id]);
  });

  it("files analysed without features (before the embedding existed) are matched by phash only", async () => {
    const owner = await seedUser();
    const original = await seedFinalizedFile(owner, "ladybird.jpg", await photo("ladybird.jpg"));
    const old = await seedFinalizedFile(owner, "ladybird-rot3.jpg", await photo("variants/ladybird-rot3.jpg"));
    await analyzeFile(env, original.id);
    await analyzeFile(env, old.id, { skipNsfw: true });
    const oldRow = await fileRow(old.id);
    expect(oldRow.embedding).toBeNull();
    expect(await bandRows(old.id)).toEqual([]);
    expect(await findDuplicates(db(), env, await fileRow(original.id))).toEqual([]);
    expect(await findDuplicates(db(), env, oldRow)).toEqual([]);
  });

  it("storing the code is retry-safe: a redelivered or forced job leaves the same 16 rows", async () => {
    const owner = await seedUser();
    const file = await seedFinalizedFile(owner, "ladybird.jpg", await photo("ladybird.jpg"));
    const first = await analyzeFile(env, file.id);
    expect(first.status).toBe("done");
    const code = first.status === "done" ? first.embeddingCode : null;
    expect(isEmbeddingCode(code)).toBe(true);
    const rows = await bandRows(file.id);
    expect(rows).toEqual(embeddingBandValues(code!).map((value, band) => ({ owner, band, value })));
    const stored = await fileRow(file.id);
    expect(stored.embeddingCode).toBe(code);

    await deliver({ type: "analyze", fileId: file.id }); // at-least-once delivery: skipped, nothing changes
    expect(await bandRows(file.id)).toEqual(rows);
    const again = await analyzeFile(env, file.id, { force: true }); // a forced re-analysis rewrites the same rows
    expect(again).toMatchObject({ status: "done", embeddingCode: code });
    expect(await bandRows(file.id)).toEqual(rows);
    expect((await fileRow(file.id)).embedding).toBe(stored.embedding);
  });
});
