// A shard database's schema as drizzle-kit sees it for `migrations-shard/` (drizzle.shard.config.ts): the owner
// tables of ./shard-schema.ts without the three foreign keys to `users` that predate shards (files.user_id,
// uploads.user_id, albums.user_id). Database DB keeps them (its chain, migrations/, is unchanged); a shard has
// no users table, and D1 enforces foreign keys. Only drizzle-kit loads this file; the app never imports it.
import { albumsTable, filesTable, uploadsTable } from "./shard-schema";

export * from "./shard-schema";
export const files = filesTable(false);
export const uploads = uploadsTable(false);
export const albums = albumsTable(false);
