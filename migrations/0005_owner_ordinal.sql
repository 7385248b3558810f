ALTER TABLE `files` ADD `owner_ordinal` integer;--> statement-breakpoint
-- Existing files: their owners' creation order (ties broken by id), as the INSERT numbers new ones
-- (src/uploads/records.ts). One pass over the table, before the index exists.
UPDATE `files` SET `owner_ordinal` = `ranked`.`n`
FROM (
  SELECT `id`, ROW_NUMBER() OVER (PARTITION BY `user_id` ORDER BY `created_at`, `id`) AS `n` FROM `files` WHERE `user_id` IS NOT NULL
) AS `ranked`
WHERE `ranked`.`id` = `files`.`id`;--> statement-breakpoint
CREATE UNIQUE INDEX `files_user_ordinal` ON `files` (`user_id`,`owner_ordinal`);
