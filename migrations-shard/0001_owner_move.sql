-- drizzle-kit's output, with WITHOUT ROWID added by hand to moved_files (drizzle cannot declare it).
-- docs/sharding.md § Moving an owner.
CREATE TABLE `moved_files` (
	`id` text PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `owners` ADD `moved_to` integer;