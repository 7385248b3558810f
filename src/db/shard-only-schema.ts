// A shard database's schema as drizzle-kit sees it for `migrations-shard/` (drizzle.shard.config.ts): the owner
// tables of ./shard-schema.ts without the three foreign keys to `users` that predate shards (files.user_id,
// uploads.user_id, albums.user_id). Database DB keeps them (its chain, migrations/, is unchanged); a shard has
// no users table, and D1 enforces foreign keys. The app never imports this file: only drizzle-kit loads it, in
// a process of its own, so taking the keys off the shared table objects here touches nothing else.
import { getTableName } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as shard from "./shard-schema";

type InlineKeys = { reference(): { foreignTable: SQLiteTable } }[];
const INLINE_FOREIGN_KEYS: unique symbol = (SQLiteTable as unknown as { Symbol: { InlineForeignKeys: symbol } }).Symbol
  .InlineForeignKeys as never;

for (const table of Object.values(shard)) {
  if (!(table instanceof SQLiteTable)) continue;
  const keys = (table as unknown as Record<symbol, InlineKeys>)[INLINE_FOREIGN_KEYS];
  const kept = keys.filter((k) => getTableName(k.reference().foreignTable) !== "users");
  keys.splice(0, keys.length, ...kept);
}

export * from "./shard-schema";
