// Forgetting the records that carry an owner's state when it changes (ban, unban, account deletion). Which
// records carry it is serving/access.ts's rule (carriesOwnerState): an owner's first files, by owner_ordinal,
// so a bounded list (at most three keys per file). The owner's own record is auth's (forgetUser).
import { and, eq, lte } from "drizzle-orm";
import { files } from "../db/schema";
import { shardDb } from "../platform/db";
import { SERVING } from "../config";
import type { EdgeEnv } from "../platform/edge-records";
import { forgetFileAccess } from "./edge-cache";

/**
 * Forgets the records that carry the owner's state, here at once and (when configured) everywhere.
 * Never throws: the change is committed already, and what follows it (other purges, the answer) must still
 * happen. The list is read from D1's primary, tried three times; if D1 fails all three, the records it would
 * have named decide for at most their TTL (logged).
 */
export async function forgetOwnerState(env: EdgeEnv & Pick<Env, "DB">, userId: string): Promise<void> {
  let carried: { id: string }[] | undefined;
  for (let attempt = 1; attempt <= 3 && !carried; attempt++) {
    try {
      // The primary: a replica behind the change could miss a file just created, whose record a view then fills.
      carried = await shardDb(env, 0)
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
