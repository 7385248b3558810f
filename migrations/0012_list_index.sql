-- The owner's list reads its filters from files_user_created (src/db/shard-schema.ts; bench/README.md § fill). Rebuilding
-- the index reads every files row once: 2.6 s for 1 M files locally (the fill bench), inside D1's 30 s per statement.
DROP INDEX `files_user_created`;--> statement-breakpoint
CREATE INDEX `files_user_created` ON `files` (`user_id`,`created_at`,`state`,`visibility`,`deleted_at`,`banned_at`,`hidden_at`,`quarantined_at`,`purged_at`,`expires_at`,`age_restricted`,`age_restricted_override`);