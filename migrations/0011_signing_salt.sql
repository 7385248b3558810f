-- Signed, expiring links to private files (extensions.md § 3, serving/signed-links.ts): a per-file random salt
-- that, with the Worker secret SIGNED_URL_SECRET, keys the links' HMAC. Null until a file's first link; a revoke
-- replaces it. Nullable and without a default: existing rows have no links yet.
ALTER TABLE `files` ADD `signing_salt` text;
