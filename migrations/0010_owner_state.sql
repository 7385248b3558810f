-- The shard knows its owners (issue 26 § 2, docs/sharding.md § Status of step 2a): each owner's quota counters
-- and a copy of its ban / deletion state move to `owners`, next to the owner's files, so the upload pipeline and
-- the read rules use the shard alone. Written by hand around drizzle-kit's four ALTERs: the rows are copied here.
-- users.storage_used / storage_reserved stay for now: the code of the deploy before this one reads and writes
-- them until the new code is deployed (docs/sharding.md says when they go). Apply this migration right before
-- `npm run deploy`, then run the state resync docs/sharding.md gives.
ALTER TABLE `owners` ADD `storage_used` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `owners` ADD `storage_reserved` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `owners` ADD `banned_at` integer;--> statement-breakpoint
ALTER TABLE `owners` ADD `deleted_at` integer;--> statement-breakpoint
-- 1. A row for every owner with data on the shard (files, albums) or a usage to carry, in user id order after
-- the rows 0007 made (owners with band rows keep their keys).
INSERT OR IGNORE INTO `owners` (`user_id`)
SELECT `u`.`id` FROM `users` AS `u`
WHERE `u`.`storage_used` <> 0 OR `u`.`storage_reserved` <> 0
   OR EXISTS (SELECT 1 FROM `files` AS `f` WHERE `f`.`user_id` = `u`.`id`)
   OR EXISTS (SELECT 1 FROM `albums` AS `a` WHERE `a`.`user_id` = `u`.`id`)
ORDER BY `u`.`id`;--> statement-breakpoint
-- 2. Every row's usage and state, from its user.
UPDATE `owners` SET (`storage_used`, `storage_reserved`, `banned_at`, `deleted_at`) =
  (SELECT `u`.`storage_used`, `u`.`storage_reserved`, `u`.`banned_at`, `u`.`deleted_at` FROM `users` AS `u` WHERE `u`.`id` = `owners`.`user_id`)
WHERE EXISTS (SELECT 1 FROM `users` AS `u` WHERE `u`.`id` = `owners`.`user_id`);
