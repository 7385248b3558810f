// Which files' edge-cached records carry their owner's state, and forgetting those records when it changes.
//
// The owner's state (banned or deleted, or live) has its own record (access-records.ts, owners/<id>), so that
// one delete reaches all of an owner's files. Looking it up is a second cache lookup on every view. The
// records of an owner's first SERVING.ownerStateCarriedFiles files (by files.owner_ordinal, fixed at insert)
// carry the owner's state as well, read from D1's primary together with the file, so a view of one of them
// decides from one lookup. A ban, an unban or an account deletion must then forget each of those files'
// records, not only the owner's: a bounded list (at most three keys per file), named here.
import { and, eq, lte } from "drizzle-orm";
import { files, type FileRow } from "../db/schema";
import { createDb } from "../platform/db";
import { SERVING } from "../config";
import { forgetFileAccess, type EdgeEnv } from "./edge-cache";

export function carriesOwnerState(file: Pick<FileRow, "userId" | "ownerOrdinal">): boolean {
  return file.userId !== null && file.ownerOrdinal !== null && file.ownerOrdinal <= SERVING.ownerStateCarriedFiles;
}

/**
 * The owner's state changed (ban, unban, account deletion): forgets the records that carry it, here at once
 * and (when configured) everywhere. The owner's own record is forgetUser's (auth/principal-records.ts).
 * Never throws: the change is committed already, and what follows it (other purges, the answer) must still
 * happen. The list is read from D1's primary, tried three times; if D1 fails all three, the records it would
 * have named decide for at most their TTL (logged).
 */
export async function forgetOwnerState(env: EdgeEnv & Pick<Env, "DB">, userId: string): Promise<void> {
  let carried: { id: string }[] | undefined;
  for (let attempt = 1; attempt <= 3 && !carried; attempt++) {
    try {
      // The primary: a replica behind the change could miss a file just created, whose record a view then fills.
      carried = await createDb(env.DB)
        .select({ id: files.id })
        .from(files)
        .where(and(eq(files.userId, userId), lte(files.ownerOrdinal, SERVING.ownerStateCarriedFiles)))
        .all();
    } catch (err) {
      if (attempt === 3) console.error(`owner ${userId}: the files carrying its state could not be listed; their records live out their TTL`, err);
    }
  }
  if (carried) await forgetFileAccess(env, carried.map((f) => f.id));
}
