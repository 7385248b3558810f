-- Insights (issue 42, extensions.md § 10): daily rows. WITHOUT ROWID by hand (drizzle cannot declare it): the key is the table.
CREATE TABLE `service_days` (
	`day` integer PRIMARY KEY NOT NULL,
	`signups` integer DEFAULT 0 NOT NULL,
	`uploads` integer DEFAULT 0 NOT NULL,
	`upload_bytes` integer DEFAULT 0 NOT NULL,
	`views` integer DEFAULT 0 NOT NULL,
	`reports` integer DEFAULT 0 NOT NULL,
	`storage_bytes` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `file_days` (
	`file_id` text NOT NULL,
	`day` integer NOT NULL,
	`user_id` text NOT NULL,
	`views` integer DEFAULT 0 NOT NULL,
	`downloads` integer DEFAULT 0 NOT NULL,
	`referrers` text DEFAULT '{}' NOT NULL,
	PRIMARY KEY(`file_id`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `file_days_user_day` ON `file_days` (`user_id`,`day`);--> statement-breakpoint
CREATE INDEX `file_days_day` ON `file_days` (`day`);--> statement-breakpoint
CREATE TABLE `owner_days` (
	`user_id` text NOT NULL,
	`day` integer NOT NULL,
	`uploads` integer DEFAULT 0 NOT NULL,
	`storage_bytes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `owner_days_day` ON `owner_days` (`day`);