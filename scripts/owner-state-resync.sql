-- Run once right after the deploy that brings migration 0010's code (docs/sharding.md § Status of step 2a):
--   npx wrangler d1 execute DB --remote --file scripts/owner-state-resync.sql
-- Between `wrangler d1 migrations apply` and `npm run deploy` the previous code still banned, unbanned and
-- deleted accounts in `users` alone; the new code decides files and albums from the shard's copy (`owners`).
-- This copies the directory's state to every owner row that differs, making the row of a banned or deleted
-- owner with files or albums that has none. Running it again changes nothing: the new code writes both copies
-- alike (the shard first, then the directory).
INSERT OR IGNORE INTO owners (user_id)
SELECT u.id FROM users AS u
WHERE (u.banned_at IS NOT NULL OR u.deleted_at IS NOT NULL)
  AND (EXISTS (SELECT 1 FROM files AS f WHERE f.user_id = u.id) OR EXISTS (SELECT 1 FROM albums AS a WHERE a.user_id = u.id))
ORDER BY u.id;
UPDATE owners SET (banned_at, deleted_at) = (SELECT u.banned_at, u.deleted_at FROM users AS u WHERE u.id = owners.user_id)
WHERE EXISTS (
  SELECT 1 FROM users AS u
  WHERE u.id = owners.user_id AND (u.banned_at IS NOT owners.banned_at OR u.deleted_at IS NOT owners.deleted_at)
);
