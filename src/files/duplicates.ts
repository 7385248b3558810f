// `duplicates` of GET /files/:id: the owner's other live files with the same content (exact, sha256) or a
// near perceptual hash (similar, within PHASH_DISTANCE). analysis/ builds the index; the lookup is ./duplicate-lookup.ts.
import type { ShardDb } from "../platform/data/db";
import type { FileRow } from "../db/schema";
import type { Duplicate } from "../analysis/duplicates";
import { findDuplicates } from "./duplicate-lookup";

export type { Duplicate };

export function fileDuplicates(env: Env, db: ShardDb, file: FileRow, now: number): Promise<Duplicate[]> {
  return findDuplicates(db, env, file, now);
}
