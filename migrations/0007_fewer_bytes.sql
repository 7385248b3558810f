-- Fewer bytes of D1 per file (issue 26; bench/README.md § d1-bytes has what each change saved). Written by hand
-- around drizzle-kit's output: drizzle cannot declare WITHOUT ROWID, and the existing rows are converted here.
-- The band tables change shape, so the code of the deploy before this one cannot read them: apply this migration
-- right before `npm run deploy` (in between, that code's near-duplicate lookups and analysis writes fail, and the
-- queue retries the jobs).
--
-- 1. Owners get small integer keys, in user id order: every owner that has band rows.
CREATE TABLE `owners` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owners_user_id_unique` ON `owners` (`user_id`);--> statement-breakpoint
INSERT INTO `owners` (`user_id`)
SELECT `owner` FROM `embedding_bands` UNION SELECT `owner` FROM `phash_bands` WHERE `owner` <> 'blocklist' ORDER BY 1;--> statement-breakpoint
-- 2. The blocklist's rows (owner "blocklist") move to a table of their own.
CREATE TABLE `blocklist_bands` (
	`band` integer NOT NULL,
	`value` integer NOT NULL,
	`entry` text NOT NULL,
	`phash` text NOT NULL,
	PRIMARY KEY(`band`, `value`, `entry`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `blocklist_bands` (`band`, `value`, `entry`, `phash`)
SELECT `band`, `value`, `ref`, `phash` FROM `phash_bands` WHERE `owner` = 'blocklist';--> statement-breakpoint
-- 3. Owners' band rows, re-keyed: (owner key, band, value, the file's owner_ordinal), WITHOUT ROWID, no ref index.
-- The same band values, so every analysed file keeps its near-duplicate detection; rows of purged files (which
-- the purge removed already, unless a late job wrote them again) are left behind.
CREATE TABLE `__new_embedding_bands` (
	`owner` integer NOT NULL,
	`band` integer NOT NULL,
	`value` integer NOT NULL,
	`ordinal` integer NOT NULL,
	PRIMARY KEY(`owner`, `band`, `value`, `ordinal`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `__new_embedding_bands` (`owner`, `band`, `value`, `ordinal`)
SELECT `o`.`id`, `b`.`band`, `b`.`value`, `f`.`owner_ordinal`
FROM `embedding_bands` AS `b`
JOIN `files` AS `f` ON `f`.`id` = `b`.`ref` AND `f`.`user_id` = `b`.`owner`
JOIN `owners` AS `o` ON `o`.`user_id` = `b`.`owner`
WHERE `f`.`owner_ordinal` IS NOT NULL AND `f`.`purged_at` IS NULL;--> statement-breakpoint
DROP TABLE `embedding_bands`;--> statement-breakpoint
ALTER TABLE `__new_embedding_bands` RENAME TO `embedding_bands`;--> statement-breakpoint
CREATE TABLE `__new_phash_bands` (
	`owner` integer NOT NULL,
	`band` integer NOT NULL,
	`value` integer NOT NULL,
	`ordinal` integer NOT NULL,
	PRIMARY KEY(`owner`, `band`, `value`, `ordinal`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `__new_phash_bands` (`owner`, `band`, `value`, `ordinal`)
SELECT `o`.`id`, `b`.`band`, `b`.`value`, `f`.`owner_ordinal`
FROM `phash_bands` AS `b`
JOIN `files` AS `f` ON `f`.`id` = `b`.`ref` AND `f`.`user_id` = `b`.`owner`
JOIN `owners` AS `o` ON `o`.`user_id` = `b`.`owner`
WHERE `b`.`owner` <> 'blocklist' AND `f`.`owner_ordinal` IS NOT NULL AND `f`.`purged_at` IS NULL;--> statement-breakpoint
DROP TABLE `phash_bands`;--> statement-breakpoint
ALTER TABLE `__new_phash_bands` RENAME TO `phash_bands`;--> statement-breakpoint
-- 4. Finalized uploads keep only what a repeated finalize needs besides the file row (uploads/finalize-answer.ts):
-- the answer's values the row may no longer hold and the exact duplicates' ids; no sha256 (files.sha256 has it)
-- and no R2 multipart id.
UPDATE `uploads` SET
  `finalize_response` = json_object(
    'width', json(`finalize_response` -> '$.width'),
    'height', json(`finalize_response` -> '$.height'),
    'nsfwScore', json(`finalize_response` -> '$.nsfwScore'),
    'ageRestricted', json(`finalize_response` -> '$.ageRestricted'),
    'visibility', json(`finalize_response` -> '$.visibility'),
    'expiresAt', json(`finalize_response` -> '$.expiresAt'),
    'phash', json(`finalize_response` -> '$.phash'),
    'duplicates', (SELECT json_group_array(`d`.`value` ->> '$.fileId') FROM json_each(`finalize_response`, '$.duplicates') AS `d`)
  )
WHERE `state` = 'finalized' AND json_type(`finalize_response`, '$.fileId') IS NOT NULL;--> statement-breakpoint
UPDATE `uploads` SET `sha256` = NULL, `r2_upload_id` = NULL WHERE `state` = 'finalized';--> statement-breakpoint
-- 5. Indexes: nothing reads uploads by user; the expiry walk only needs uploads in flight; most files never
-- expire and are never deleted.
DROP INDEX `uploads_user`;--> statement-breakpoint
DROP INDEX `uploads_state_expires`;--> statement-breakpoint
CREATE INDEX `uploads_state_expires` ON `uploads` (`state`,`expires_at`) WHERE state IN ('pending', 'uploaded');--> statement-breakpoint
DROP INDEX `files_expires`;--> statement-breakpoint
DROP INDEX `files_deleted`;--> statement-breakpoint
CREATE INDEX `files_expires` ON `files` (`expires_at`) WHERE expires_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `files_deleted` ON `files` (`deleted_at`) WHERE deleted_at IS NOT NULL;
