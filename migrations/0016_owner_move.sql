-- drizzle-kit's output, with WITHOUT ROWID added by hand to moved_files (drizzle cannot declare it).
-- owner_moves: the directory's record of owner moves between shards; moved_files and owners.moved_to: this
-- database as shard 0 (docs/sharding.md § Moving an owner).
CREATE TABLE `owner_moves` (
	`user_id` text PRIMARY KEY NOT NULL,
	`from_shard` integer NOT NULL,
	`to_shard` integer NOT NULL,
	`step` text NOT NULL,
	`cursor` text,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `moved_files` (
	`id` text PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `owners` ADD `moved_to` integer;