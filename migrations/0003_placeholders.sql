ALTER TABLE `files` ADD `placeholder` text;--> statement-breakpoint
ALTER TABLE `files` ADD `dominant_color` text;