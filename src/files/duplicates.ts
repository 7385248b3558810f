// `duplicates` of GET /files/:id: the owner's other live files with the same content.
//
// NOTE: the analysis feature owns duplicate detection (exact by sha256 and near by phash bands,
// decisions.md § Uploads). Until it exports its `findDuplicates`, this computes the exact
// (content-hash) duplicates itself; swap the body for a call into src/analysis when that lands.
import { and, eq, ne } from "drizzle-orm";
import type { Db } from "../platform/db";
import { files, type FileRow } from "../db/schema";
import { fileUrl } from "../platform/urls";
import { liveFileCondition } from "./queries";

export type Duplicate = { fileId: string; url: string; distance: number; match: "exact" | "similar" };

const MAX_DUPLICATES = 20;

export async function fileDuplicates(env: Env, db: Db, file: FileRow, now: number): Promise<Duplicate[]> {
  if (!file.userId || !file.sha256) return [];
  // files_user_sha256 index: (user_id, sha256).
  const rows = await db
    .select({ id: files.id })
    .from(files)
    .where(and(eq(files.userId, file.userId), eq(files.sha256, file.sha256), ne(files.id, file.id), liveFileCondition(now)))
    .limit(MAX_DUPLICATES);
  return rows.map((r) => ({ fileId: r.id, url: fileUrl(env, r.id), distance: 0, match: "exact" as const }));
}
