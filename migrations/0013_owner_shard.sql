CREATE TABLE `shard_fill` (
	`shard` integer PRIMARY KEY NOT NULL,
	`bytes` integer NOT NULL,
	`measured_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `users` ADD `shard` integer DEFAULT 0 NOT NULL;