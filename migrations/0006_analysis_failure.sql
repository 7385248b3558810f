ALTER TABLE `files` ADD `analysis_failure` text;--> statement-breakpoint
-- Failures recorded before the code existed: classified from the message they were stored with.
UPDATE `files` SET `analysis_failure` = CASE
  WHEN `analysis_error` LIKE 'file too large to analyse:%' THEN 'file_too_large'
  WHEN `analysis_error` LIKE 'image too large:%' THEN 'pixel_limit'
  WHEN `analysis_error` LIKE 'too many frames: 0 %' THEN 'unreadable'
  WHEN `analysis_error` LIKE 'too many frames:%' THEN 'frame_limit'
  WHEN `analysis_error` LIKE 'gave up after retries:%' THEN 'gave_up'
  ELSE 'unreadable'
END WHERE `analysis` = 'failed';
