// The two schemas drizzle-kit generates from (src/db/shard-schema.ts for database DB, shard-only-schema.ts for
// SHARD_n): the same owner tables, read through drizzle's public getTableConfig, with the foreign keys to users
// on database DB's and on no shard's own. `npm run db:generate` reporting nothing new checks the SQL itself.
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as onDatabase0 from "../../src/db/shard-schema";
import * as onShard from "../../src/db/shard-only-schema";

const tables = (schema: Record<string, unknown>) => Object.values(schema).filter((t): t is SQLiteTable => t instanceof SQLiteTable);
const keysToUsers = (table: SQLiteTable) =>
  getTableConfig(table).foreignKeys.filter((k) => getTableConfig(k.reference().foreignTable).name === "users").length;

describe("the shard schema", () => {
  it("has the same tables and columns on database DB and on a shard of its own", () => {
    const shape = (schema: Record<string, unknown>) =>
      tables(schema)
        .map((t) => `${getTableConfig(t).name}(${getTableConfig(t).columns.map((c) => `${c.name} ${c.getSQLType()} ${c.notNull}`).join(", ")})`)
        .sort();
    expect(shape(onShard)).toEqual(shape(onDatabase0));
  });

  it("keys files, uploads and albums to users on database DB only", () => {
    const keyed = (schema: Record<string, unknown>) => tables(schema).filter((t) => keysToUsers(t) > 0).map((t) => getTableConfig(t).name).sort();
    expect(keyed(onDatabase0)).toEqual(["albums", "files", "uploads"]);
    expect(keyed(onShard)).toEqual([]);
  });
});
