ALTER TABLE `reports` ADD `effects_applied_at` integer;--> statement-breakpoint
CREATE INDEX `reports_effects_pending` ON `reports` (`resolved_at`) WHERE status = 'resolved' AND effects_applied_at IS NULL;--> statement-breakpoint
-- Resolutions before this migration applied their effects in the same transaction as the claim.
UPDATE `reports` SET `effects_applied_at` = `resolved_at` WHERE `status` = 'resolved';
