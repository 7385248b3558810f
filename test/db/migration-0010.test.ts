// Migration 0010 (the shard knows its owners) on a database with rows of the shape before it: applied to an
// empty database up to 0009, users with their counters and state, files, an album and an owners row as 0007
// made them, then 0010. Every owner with data or usage gets its row with the user's counters and state, and the
// code that reads them from the shard (the read rules, the quota) sees what the directory said.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { PLAN_LIMITS } from "../../src/config";
import { loadAlbum } from "../../src/albums/queries";
import { database0 } from "../../src/platform/data/db";
import { loadFile } from "../../src/serving/access";
import { reserveQuota } from "../../src/uploads/quota";

const old = () => env.MIGRATION_TEST_DB;
const shard = () => database0(old()).shard; // the migrated database is shard 0 (and the directory)
const NOW = Date.now();
const FREE_QUOTA = PLAN_LIMITS.free.storageQuotaBytes!;

type OldUser = { id: string; used: number; reserved: number; bannedAt: number | null; deletedAt: number | null };
const BANDED: OldUser = { id: "usr_aaaabanded0000000000", used: 42, reserved: 0, bannedAt: null, deletedAt: null }; // 0007 gave it key 1
const FILES: OldUser = { id: "usr_bbbbfiles00000000000", used: 5000, reserved: 0, bannedAt: NOW - 2000, deletedAt: null };
const ALBUM: OldUser = { id: "usr_ccccalbum00000000000", used: 0, reserved: 0, bannedAt: null, deletedAt: NOW - 1000 };
const USAGE: OldUser = { id: "usr_ddddusage00000000000", used: 0, reserved: 300, bannedAt: null, deletedAt: null };
const NOTHING: OldUser = { id: "usr_eeeenothing000000000", used: 0, reserved: 0, bannedAt: NOW - 3000, deletedAt: null };
const FILE_ID = "file_bbbbbbbbbbbbbbbbbbbbb";
const BANDED_FILE_ID = "file_aaaaaaaaaaaaaaaaaaaaa";
const ALBUM_ID = "alb_ccccccccccccccccccccc";

beforeAll(async () => {
  await applyD1Migrations(old(), env.TEST_MIGRATIONS.filter((m) => m.name < "0010"));
  const statements: D1PreparedStatement[] = [];
  const run = (sql: string, ...params: unknown[]) => statements.push(old().prepare(sql).bind(...params));
  for (const u of [BANDED, FILES, ALBUM, USAGE, NOTHING]) {
    run(
      `INSERT INTO users (id, email, username, password_hash, storage_used, storage_reserved, banned_at, deleted_at, created_at, updated_at)
       VALUES (?1, ?1 || '@example.com', ?1, 'x', ?2, ?3, ?4, ?5, ?6, ?6)`,
      u.id, u.used, u.reserved, u.bannedAt, u.deletedAt, NOW,
    );
  }
  for (const [id, user] of [[BANDED_FILE_ID, BANDED.id], [FILE_ID, FILES.id]]) {
    run(
      `INSERT INTO files (id, user_id, owner_ordinal, filename, mime, bytes, store_key, state, created_at, updated_at)
       VALUES (?1, ?2, 1, 'c.png', 'image/png', 1000, 'uploads/2026-01-15/' || ?1 || '/c.png', 'finalized', ?3, ?3)`,
      id, user, NOW,
    );
  }
  run("INSERT INTO owners (id, user_id) VALUES (1, ?)", BANDED.id);
  run("INSERT INTO albums (id, user_id, title, created_at, updated_at) VALUES (?, ?, 'Mine', ?, ?)", ALBUM_ID, ALBUM.id, NOW, NOW);
  await old().batch(statements);
  await applyD1Migrations(old(), env.TEST_MIGRATIONS);
});

const rows = async <T>(sql: string, ...params: unknown[]) => (await old().prepare(sql).bind(...params).all<T>()).results;

describe("migration 0010 on rows of the shape before it", () => {
  it("gives every owner with files, albums or usage a row, after the keys 0007 gave; none to a user with nothing", async () => {
    expect(await rows("SELECT id, user_id FROM owners ORDER BY id")).toEqual([
      { id: 1, user_id: BANDED.id },
      { id: 2, user_id: FILES.id },
      { id: 3, user_id: ALBUM.id },
      { id: 4, user_id: USAGE.id },
    ]);
  });

  it("copies each owner's counters and ban / deletion state from its user, and leaves the users' columns", async () => {
    const copied = await rows("SELECT user_id, storage_used, storage_reserved, banned_at, deleted_at FROM owners ORDER BY id");
    expect(copied).toEqual(
      [BANDED, FILES, ALBUM, USAGE].map((u) => ({ user_id: u.id, storage_used: u.used, storage_reserved: u.reserved, banned_at: u.bannedAt, deleted_at: u.deletedAt })),
    );
    // The previous deploy reads them between the migration and the deploy.
    expect(await rows("SELECT storage_used, banned_at FROM users WHERE id = ?", FILES.id)).toEqual([{ storage_used: 5000, banned_at: FILES.bannedAt }]);
  });

  it("the shard's copies decide as the directory did: the read rules and the quota", async () => {
    expect((await loadFile(shard(), FILE_ID))?.ownerGoneAt?.getTime()).toBe(FILES.bannedAt);
    expect((await loadFile(shard(), BANDED_FILE_ID))?.ownerGoneAt).toBeNull();
    expect((await loadAlbum(shard(), ALBUM_ID))?.ownerGoneAt?.getTime()).toBe(ALBUM.deletedAt);
    expect(await reserveQuota(shard(), USAGE.id, "free", FREE_QUOTA - 300 + 1)).toBe(false);
    expect(await reserveQuota(shard(), USAGE.id, "free", FREE_QUOTA - 300)).toBe(true);
  });

  it("leaves the owners table of the schema (the same columns as a fresh database)", async () => {
    const columns = async (db: D1Database) => (await db.prepare("SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info('owners') ORDER BY cid").all()).results;
    expect(await columns(old())).toEqual(await columns(env.DB));
    expect((await columns(old())).map((c) => c.name)).toEqual(["id", "user_id", "storage_used", "storage_reserved", "banned_at", "deleted_at", "moved_to"]);
  });

  // Last: it changes the rows the tests above read.
  it("the resync run after the deploy brings the state the previous code wrote in between to the shard, once", async () => {
    const at = NOW + 1000;
    const WINDOW = "usr_ffffwindow0000000000"; // signed up, uploaded and deleted by the previous code after the migration
    await old().batch([
      old().prepare("UPDATE users SET banned_at = ? WHERE id = ?").bind(at, BANDED.id),
      old().prepare("UPDATE users SET banned_at = NULL WHERE id = ?").bind(FILES.id),
      old().prepare("INSERT INTO users (id, email, username, password_hash, deleted_at, created_at, updated_at) VALUES (?1, ?1 || '@example.com', ?1, 'x', ?2, ?2, ?2)").bind(WINDOW, at),
      old().prepare("INSERT INTO files (id, user_id, owner_ordinal, filename, mime, bytes, store_key, state, created_at, updated_at) VALUES ('file_fffffffffffffffffffff', ?1, 1, 'c.png', 'image/png', 1, 'k', 'finalized', ?2, ?2)").bind(WINDOW, at),
      old().prepare("UPDATE users SET deleted_at = ? WHERE id = ?").bind(at, NOTHING.id),
    ]);
    expect((await loadFile(shard(), BANDED_FILE_ID))?.ownerGoneAt).toBeNull(); // the shard's copy is behind
    const statements = env.OWNER_STATE_RESYNC.split(/;\s*$/m)
      .map((s) => s.replace(/^--.*$/gm, "").trim())
      .filter(Boolean);
    expect(statements).toHaveLength(2);
    const run = async () => (await old().batch(statements.map((s) => old().prepare(s)))).map((r) => r.meta.changes);
    expect(await run()).toEqual([1, 3]);
    expect((await loadFile(shard(), BANDED_FILE_ID))?.ownerGoneAt?.getTime()).toBe(at);
    expect((await loadFile(shard(), FILE_ID))?.ownerGoneAt).toBeNull();
    expect((await loadFile(shard(), "file_fffffffffffffffffffff"))?.ownerGoneAt?.getTime()).toBe(at);
    expect(await rows("SELECT user_id FROM owners WHERE user_id = ?", NOTHING.id)).toEqual([]); // no files, no albums: no row
    expect(await run()).toEqual([0, 0]);
  });
});
