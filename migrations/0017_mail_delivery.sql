-- drizzle-kit's output, with the last statement added by hand: rows written before delivery existed were never
-- sent and nothing will send them now (their links have long expired); they are closed as failed, their bodies,
-- which may hold one-time tokens, emptied.
ALTER TABLE `outbox` ADD `html` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `outbox` ADD `status` text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE `outbox` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `outbox` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `message_id` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `next_attempt_at` integer;--> statement-breakpoint
ALTER TABLE `outbox` ADD `last_attempt_at` integer;--> statement-breakpoint
CREATE INDEX `outbox_pending` ON `outbox` (`next_attempt_at`) WHERE status = 'pending';--> statement-breakpoint
UPDATE `outbox` SET `status` = CASE WHEN `sent_at` IS NULL THEN 'failed' ELSE 'sent' END, `last_error` = CASE WHEN `sent_at` IS NULL THEN 'written before mail delivery existed; never sent' END, `text` = '';
