// The whole schema, the directory's tables and a shard's (docs/sharding.md), as drizzle-kit sees it:
// `npm run db:generate` turns changes in either file into a migration under migrations/, the chain of
// database DB (the directory and shard 0). The directory's tables are in directory-schema.ts and, by topic,
// second-factor-schema.ts, webhook-schema.ts and mail-schema.ts; a shard's in shard-schema.ts.
export * from "./directory-schema";
export * from "./second-factor-schema";
export * from "./webhook-schema";
export * from "./mail-schema";
export * from "./shard-schema";
