// Sizes: decimal for what people are shown and plans promise (a "20 MB" limit), binary where a platform counts so.
export const MB = 1_000_000;
export const GB = 1_000 * MB;
export const TB = 1_000 * GB;
export const MiB = 1024 * 1024;
