// What an ended analysis tells the file's owner through webhooks: file.analyzed with the results and the
// duplicates (files/ finds them, which analysis/ below it cannot call), and file.flagged when the analysis made
// the file age-restricted or the blocklist quarantined it. Runs in the analysis job, after its writes.
import { eq } from "drizzle-orm";
import { files } from "../db/schema";
import type { AnalysisListener } from "../analysis/job";
import { fileDuplicates } from "../files/duplicates";
import { directoryDb } from "../platform/data/db";
import { emitWebhookEvent } from "../webhooks/emit";
import type { FlagReason } from "../webhooks/events";
import { lookupFollowing, shardDbOf } from "../platform/data/moved-ids";

export const announceAnalysis: AnalysisListener = async (env, fileId, outcome) => {
  const db = shardDbOf(env, "file", fileId);
  const file = await lookupFollowing(db, fileId, () => db.select().from(files).where(eq(files.id, fileId)).get());
  if (!file?.userId) return;
  const directory = directoryDb(env);
  const duplicates = outcome.status === "done" ? await fileDuplicates(env, db, file, Date.now()) : [];
  await emitWebhookEvent(env, directory, file.userId, "file.analyzed", {
    fileId,
    analysis: file.analysis,
    analysisError: file.analysisError,
    nsfwScore: file.nsfwScore,
    ageRestricted: file.ageRestricted,
    phash: file.phash,
    width: file.width,
    height: file.height,
    duplicates,
  });
  const flag = (reason: FlagReason) => emitWebhookEvent(env, directory, file.userId, "file.flagged", { fileId, reason });
  if (outcome.status === "done" && outcome.newlyAgeRestricted) await flag("age_restricted");
  if (outcome.status === "done" && outcome.blocklist) await flag("hidden");
};
