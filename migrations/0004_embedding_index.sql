CREATE TABLE `embedding_bands` (
	`owner` text NOT NULL,
	`band` integer NOT NULL,
	`value` integer NOT NULL,
	`ref` text NOT NULL,
	PRIMARY KEY(`owner`, `band`, `value`, `ref`)
);
--> statement-breakpoint
CREATE INDEX `embedding_bands_ref` ON `embedding_bands` (`ref`);--> statement-breakpoint
ALTER TABLE `files` ADD `embedding` text;--> statement-breakpoint
ALTER TABLE `files` ADD `embedding_code` text;