-- drizzle-kit's output from drizzle.shard.config.ts, with WITHOUT ROWID added by hand to the two band tables
-- (drizzle cannot declare it; database DB's chain does the same in 0007_fewer_bytes.sql).
CREATE TABLE `album_files` (
	`album_id` text NOT NULL,
	`file_id` text NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`album_id`, `file_id`),
	FOREIGN KEY (`album_id`) REFERENCES `albums`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `album_files_file` ON `album_files` (`file_id`);--> statement-breakpoint
CREATE INDEX `album_files_album_added` ON `album_files` (`album_id`,`added_at`);--> statement-breakpoint
CREATE TABLE `albums` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`visibility` text DEFAULT 'public' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`password_hash` text,
	`cover_file_id` text,
	`view_count` integer DEFAULT 0 NOT NULL,
	`file_count` integer DEFAULT 0 NOT NULL,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `albums_user_created` ON `albums` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `embedding_bands` (
	`owner` integer NOT NULL,
	`band` integer NOT NULL,
	`value` integer NOT NULL,
	`ordinal` integer NOT NULL,
	PRIMARY KEY(`owner`, `band`, `value`, `ordinal`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`title` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`filename` text NOT NULL,
	`mime` text NOT NULL,
	`bytes` integer NOT NULL,
	`width` integer,
	`height` integer,
	`sha256` text,
	`store_key` text NOT NULL,
	`store_etag` text,
	`thumb_key` text,
	`visibility` text DEFAULT 'public' NOT NULL,
	`state` text DEFAULT 'created' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`hotlink_policy` text DEFAULT 'allow' NOT NULL,
	`hotlink_domains` text DEFAULT '[]' NOT NULL,
	`view_count` integer DEFAULT 0 NOT NULL,
	`download_count` integer DEFAULT 0 NOT NULL,
	`nsfw_score` real,
	`client_nsfw_score` real,
	`age_restricted` integer DEFAULT false NOT NULL,
	`age_restricted_override` integer,
	`phash` text,
	`client_phash` text,
	`placeholder` text,
	`dominant_color` text,
	`embedding` text,
	`embedding_code` text,
	`analysis` text DEFAULT 'none' NOT NULL,
	`analysis_error` text,
	`analysis_failure` text,
	`analyzed_at` integer,
	`delete_token_hash` text,
	`expires_at` integer,
	`deleted_at` integer,
	`hidden_at` integer,
	`banned_at` integer,
	`quarantined_at` integer,
	`purged_at` integer,
	`finalized_at` integer,
	`owner_ordinal` integer,
	`signing_salt` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `files_user_created` ON `files` (`user_id`,`created_at`,`state`,`visibility`,`deleted_at`,`banned_at`,`hidden_at`,`quarantined_at`,`purged_at`,`expires_at`,`age_restricted`,`age_restricted_override`);--> statement-breakpoint
CREATE UNIQUE INDEX `files_user_ordinal` ON `files` (`user_id`,`owner_ordinal`);--> statement-breakpoint
CREATE INDEX `files_user_views` ON `files` (`user_id`,`view_count`);--> statement-breakpoint
CREATE INDEX `files_user_bytes` ON `files` (`user_id`,`bytes`);--> statement-breakpoint
CREATE INDEX `files_user_sha256` ON `files` (`user_id`,`sha256`);--> statement-breakpoint
CREATE INDEX `files_expires` ON `files` (`expires_at`) WHERE expires_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `files_deleted` ON `files` (`deleted_at`) WHERE deleted_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `files_state_created` ON `files` (`state`,`created_at`);--> statement-breakpoint
CREATE INDEX `files_analysis_pending` ON `files` (`finalized_at`) WHERE analysis = 'pending';--> statement-breakpoint
CREATE TABLE `owners` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`storage_used` integer DEFAULT 0 NOT NULL,
	`storage_reserved` integer DEFAULT 0 NOT NULL,
	`banned_at` integer,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owners_user_id_unique` ON `owners` (`user_id`);--> statement-breakpoint
CREATE TABLE `phash_bands` (
	`owner` integer NOT NULL,
	`band` integer NOT NULL,
	`value` integer NOT NULL,
	`ordinal` integer NOT NULL,
	PRIMARY KEY(`owner`, `band`, `value`, `ordinal`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `upload_parts` (
	`upload_id` text NOT NULL,
	`part_number` integer NOT NULL,
	`etag` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`upload_id`, `part_number`),
	FOREIGN KEY (`upload_id`) REFERENCES `uploads`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`file_id` text NOT NULL,
	`user_id` text,
	`kind` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`bytes` integer NOT NULL,
	`sha256` text,
	`reserved_bytes` integer DEFAULT 0 NOT NULL,
	`r2_upload_id` text,
	`part_size` integer,
	`part_count` integer,
	`store_etag` text,
	`finalize_response` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `uploads_file` ON `uploads` (`file_id`);--> statement-breakpoint
CREATE INDEX `uploads_state_expires` ON `uploads` (`state`,`expires_at`) WHERE state IN ('pending', 'uploaded');