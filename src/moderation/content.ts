// The moderators' view of a reported file's bytes. Hidden, quarantined and banned files read 410 on every
// public address, so reviewing them needs a way in that only the moderation role has. Every view is audited.
import type { DirectoryAndShards } from "../platform/data/db";
import type { AuthUser } from "../platform/http/env";
import { ApiError } from "../platform/errors/errors";
import { isId } from "../platform/data/ids";
import { auditInsert } from "../platform/data/audit";
import { privateByteHeaders } from "../serving/answers";
import { findReport } from "./queue";
import { reportNotFound } from "./resolve";

export async function reportedContent(env: Env, dbs: DirectoryAndShards, actor: AuthUser, reportId: string, now: number): Promise<Response> {
  const found = isId("rep", reportId) ? await findReport(env, dbs, reportId) : undefined;
  if (!found) throw reportNotFound();
  const file = found.file;
  const obj = file ? await env.BUCKET.get(file.storeKey) : null;
  if (!file || !obj) throw new ApiError("content_missing", "The file's content is no longer stored");
  await auditInsert(dbs.directory, {
    actorId: actor.id,
    action: "report.content_viewed",
    targetType: "report",
    targetId: reportId,
    details: { fileId: file.id },
    at: new Date(now),
  });
  return new Response(obj.body, {
    status: 200,
    // Never kept by a browser or proxy (privateByteHeaders): this bypasses every public access rule.
    headers: { ...privateByteHeaders(file, obj.size, "inline"), "Referrer-Policy": "no-referrer" },
  });
}
