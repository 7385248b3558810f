// The whole schema, the directory's tables and a shard's (docs/sharding.md), as drizzle-kit sees it:
// `npm run db:generate` turns changes in either file into a migration under migrations/, the chain of
// database DB (the directory and shard 0). Code that cares which database it reads imports the two files.
export * from "./directory-schema";
export * from "./shard-schema";
