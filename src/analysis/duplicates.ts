// What the `duplicates` lookups share (decisions.md § Uploads; definitions and thresholds: docs/analysis.md). They
// are indexed point seeks in the owner's band indexes (bands.ts, embedding-index.ts, band-rows.ts), never a scan of
// the owner's files, whatever their number. One file's are looked up in files/duplicate-lookup.ts; the blocklist
// has its own index (blocklist.ts).
import { sql, type SQL } from "drizzle-orm";
import { ANALYSIS } from "../config";
import type { FileRow } from "../db/schema";
import { bandProbes } from "./bands";
import { config } from "../config/env";

export type SimilarSignal = "phash" | "embedding";

/**
 * `distance`: of the signal that matched (phash: Hamming distance of 64 bits; embedding: cosine distance in
 * thousandths); `distances`: each signal's, null when one of the two files lacks it (files analysed before the
 * embedding existed have none).
 */
export type Duplicate =
  | { fileId: string; url: string; distance: 0; match: "exact" }
  | { fileId: string; url: string; distance: number; match: "similar"; signal: SimilarSignal; distances: { phash: number | null; embedding: number | null } };

/** PHASH_DISTANCE, default 8, at most 32 (larger radii make lookups probe too many values). */
export const phashDistance = (env: Env): number => config(env).phashDistance;

const MAX_VALUES_PER_STATEMENT = 1_000;

/**
 * The probes of a lookup as SQL `IN` lists, per band, at most 1,000 values each. The values are integers
 * computed here, so they are inlined (`sql.raw`) rather than bound: D1 allows 100 bound parameters per
 * statement, and a band has up to ~250 probes. Shared by the file duplicate lookup and the blocklist's.
 */
export function probeLists(phash: string, maxDistance: number): { band: number; list: SQL }[] {
  return bandProbes(phash, maxDistance).flatMap((values, band) =>
    Array.from({ length: Math.ceil(values.length / MAX_VALUES_PER_STATEMENT) }, (_, i) => ({
      band,
      list: sql.raw(values.slice(i * MAX_VALUES_PER_STATEMENT, (i + 1) * MAX_VALUES_PER_STATEMENT).join(",")),
    })),
  );
}

/**
 * Which signal makes two files `similar`, given each signal's distance (null: not known for both): phash within
 * PHASH_DISTANCE first (the contract's meaning of similar), else the embedding within ANALYSIS.embeddingDistance.
 * The benchmark (bench/snippets/near-duplicates.mjs) decides pairs with this same function.
 */
export function similarBy(distances: { phash: number | null; embedding: number | null }, maxPhash: number, maxEmbedding = ANALYSIS.embeddingDistance): SimilarSignal | null {
  if (distances.phash !== null && distances.phash <= maxPhash) return "phash";
  if (distances.embedding !== null && distances.embedding <= maxEmbedding) return "embedding";
  return null;
}

export type DuplicateSubject = Pick<FileRow, "id" | "userId" | "sha256" | "phash"> & Partial<Pick<FileRow, "clientPhash" | "embedding" | "embeddingCode">>;
