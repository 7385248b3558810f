ALTER TABLE `files` ADD `owner_ordinal` integer;--> statement-breakpoint
CREATE INDEX `files_user_ordinal` ON `files` (`user_id`,`owner_ordinal`);--> statement-breakpoint
-- Existing files: their owners' creation order (ties broken by id), as the insert numbers new ones.
UPDATE `files` SET `owner_ordinal` = (
  SELECT `n` FROM (
    SELECT `id`, ROW_NUMBER() OVER (PARTITION BY `user_id` ORDER BY `created_at`, `id`) AS `n` FROM `files` WHERE `user_id` IS NOT NULL
  ) AS `ranked` WHERE `ranked`.`id` = `files`.`id`
) WHERE `user_id` IS NOT NULL;
