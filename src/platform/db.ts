import { drizzle } from "drizzle-orm/d1";
import * as schema from "../db/schema";

export type Db = ReturnType<typeof createDb>;

/**
 * A drizzle handle over the D1 binding, or over one of its read-replication sessions (drizzle only calls
 * `prepare` and `batch`, which a session has too), so queries read the same either way.
 */
export function createDb(d1: D1Database | D1DatabaseSession) {
  return drizzle(d1 as D1Database, { schema });
}
