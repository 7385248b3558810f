// Every tunable number of the service, here and in the files beside this one (auth.ts: accounts, sign-in and keys;
// uploads.ts: the upload flows).
// Plan figures are decisions.md's defaults.
import { GB, MB, TB } from "./units";

export type Plan = "free" | "pro" | "enterprise";
export type PlanOrAnonymous = Plan | "anonymous";
export type Role = "user" | "moderator" | "admin";

export const PLANS: readonly Plan[] = ["free", "pro", "enterprise"];
export const ROLES: readonly Role[] = ["user", "moderator", "admin"];

export type PlanLimits = {
  uploadsPerHour: number;
  apiCallsPerHour: number;
  maxFileBytes: number;
  /** null: anonymous uploads have no account to charge. */
  storageQuotaBytes: number | null;
};

export const PLAN_LIMITS: Record<PlanOrAnonymous, PlanLimits> = {
  anonymous: { uploadsPerHour: 5, apiCallsPerHour: 100, maxFileBytes: 10 * MB, storageQuotaBytes: null },
  free: { uploadsPerHour: 20, apiCallsPerHour: 1_000, maxFileBytes: 20 * MB, storageQuotaBytes: 2 * GB },
  pro: { uploadsPerHour: 100, apiCallsPerHour: 10_000, maxFileBytes: 200 * MB, storageQuotaBytes: 200 * GB },
  enterprise: { uploadsPerHour: 1_000, apiCallsPerHour: 100_000, maxFileBytes: 2 * GB, storageQuotaBytes: 5 * TB },
};

export const REQUEST_LIMITS = {
  /** JSON bodies of the API (uploads stream separately). */
  jsonBodyBytes: 64 * 1024,
  /** Form posts of the pages (sign-in, keys, settings...): a few fields, never more. */
  pageFormBytes: 64 * 1024,
  /** The no-JavaScript upload form (images in the body): what Workers accept at all. */
  pageUploadFormBytes: 100 * 1024 * 1024,
};

// ---------------------------------------------------------------------------------------------------------
// Files, albums, byte serving, view counting, purge (files/, albums/, serving/, jobs/purge.ts)

export const FILE_METADATA = {
  titleMaxLength: 200,
  descriptionMaxLength: 5_000,
  altMaxLength: 1_000,
  maxTags: 30,
  tagMaxLength: 50,
  maxHotlinkDomains: 50,
  /** expiresIn (seconds) upper bound: ten years. */
  maxExpiresInSeconds: 10 * 365 * 24 * 3600,
};

export const SERVING = {
  /** Short links ({image_url}/<id>): browsers and proxies may keep bytes this long, so a delete or a
   *  visibility change reaches them within it. */
  shortLinkMaxAgeSeconds: 300,
  /** CDN links name the stored object itself, which never changes: cached for a year, immutable. */
  cdnMaxAgeSeconds: 365 * 24 * 3600,
  /** A thumbnail request answered with the "Processing…" placeholder while analysis has not made the thumbnail yet. */
  thumbnailPendingMaxAgeSeconds: 60,
  /**
   * The access records of an owner's first this-many files (by owner_ordinal) carry the owner's state: a view decides
   * from one lookup, and a ban forgets at most three keys per file. While a deploy that changes it rolls out, a ban
   * handled by one version may leave the other's records to their TTL (docs/edge-records.md).
   */
  ownerStateCarriedFiles: 100,
};

/** Signed, expiring links to private files (extensions.md § 3, serving/signed-links.ts). */
export const SIGNED_LINKS = {
  minSeconds: 60,
  maxSeconds: 7 * 24 * 3600,
  /** Owner links (the pages' signed links to the signed-in owner's own images) expire at the end of the next
   *  whole bucket: they live one to two buckets, and a page shows the same URLs all bucket long (cacheable). */
  ownerBucketSeconds: 3600,
};

/** Variants by URL ({image_url}/<id>?w=640, serving/variants.ts; docs/files-and-serving.md § Variants). */
export const VARIANTS = {
  /** Widths (and heights) snap up to the next step; above the last one, or above the source, is the source's size. */
  ladder: [160, 320, 640, 1024, 1600, 2048] as const,
  /**
   * With both `w` and `h`, the box's ratio (long side : short side) snaps to one of these (mirrored for portrait
   * boxes), its long side up the ladder (serving/variant-box.ts): a file has a bounded set of boxes per fit.
   */
  boxRatios: [[1, 1], [5, 4], [4, 3], [3, 2], [16, 10], [16, 9], [2, 1], [21, 9], [3, 1], [4, 1], [6, 1], [8, 1]] as const,
  /** `q` snaps to the nearest of these; without `q` the default. */
  qualities: [50, 70, 85, 95] as const,
  defaultQuality: 85,
};

export const VIEW_COUNTER = {
  /** Counter Durable Objects; a key always maps to the same shard. Changing this needs the old shards drained. */
  shards: 32,
  /** Increments wait at most this long in a shard before one batched D1 write. */
  flushDelayMs: 5_000,
  /** Keys written per D1 batch (each is one UPDATE statement). */
  flushBatch: 50,
};

/** Insights (extensions.md § 10, insights/): daily rows per file, owner and service. */
export const INSIGHTS = {
  /** Days kept, today included; the cron prunes older rows. */
  keepDays: 90,
  /** The range a stats request gets without `from`/`to`: the last 30 days, today included. */
  defaultDays: 30,
  /** Referring hosts kept per file and day; later new hosts of that day count as "(other)". */
  hostsPerFileDay: 20,
  /** Referring hosts and files a stats answer lists. */
  top: 10,
};

export const PURGE = {
  /** Deleted and expired files keep their objects this long (undo window, abuse evidence) before the purge. */
  retentionSeconds: 7 * 24 * 3600,
  /** The job looks this far back past the retention cutoff, so its index scans stay bounded. */
  lookbackSeconds: 60 * 24 * 3600,
  batchSize: 100,
};

export const ALBUMS = {
  maxFileIdsPerRequest: 500,
  passwordMinLength: 4,
  /** Wrong X-Album-Password attempts allowed per album and client IP in each window. */
  passwordFailuresPerWindow: 10,
  passwordWindowSeconds: 15 * 60,
};

/** The image-analysis queue job (src/analysis). */
export const ANALYSIS = {
  /** Refused before decode: a decoded image costs width x height x 4 bytes (decisions: 40 megapixels). */
  maxPixels: 40_000_000,
  /**
   * Photon's full decode is used for JPEGs up to this many pixels; larger images (up to maxPixels) take our lean
   * decoders' reduced path. Measured in workerd: a 12 MP JPEG grows photon's memory to 140 MB, while 5 MP stays near
   * 90 MB with the model (docs/analysis.md).
   */
  maxDecodePixels: 5_000_000,
  /**
   * Size of the reduced image (4 bytes per pixel): plenty for the 32x32 phash input, the 320 px thumbnail and the
   * 224 px NSFW input. JPEGs decode to their 1/8 DC image (block means), at most 40 MP / 64 = 0.6 MP.
   */
  leanTargetPixels: 1_000_000,
  /** Files still `pending` this long after finalize get their analysis message sent again (cron). */
  requeueAfterSeconds: 30 * 60,
  /** At most this many re-sent per cron run (also under D1's 100 bound parameters). */
  requeueBatch: 90,
  /** Refused before decode: animated images with more frames than this. */
  maxFrames: 1_000,
  /** Objects larger than this are not loaded into the isolate (128 MB) for analysis; they end `failed`. */
  maxBytes: 32 * MB,
  thumbnailMaxSide: 320,
  thumbnailJpegQuality: 80,
  /** nsfwjs MobileNetV2 input size. */
  nsfwInputSize: 224,
  /** Hamming distance within which a new file matches a blocklisted phash (quarantine + high-priority report). */
  blocklistDistance: 8,
  /**
   * `similar` by the embedding signal: cosine distance of the stored features, in thousandths, at most this.
   * Chosen from bench/near-duplicates.bench.mjs (docs/analysis.md § Near duplicates): the crops and rotations
   * of the corpus's photos are within 24, the nearest unrelated pair is 37 apart; 30 sits between.
   */
  embeddingDistance: 30,
  /**
   * At most this many embedding candidates (most shared code bands first) are checked per lookup: their stored
   * features are read (~0.5 KB each) in one batch. ~2 % of unrelated pairs share enough bands to be candidates,
   * so owners of more than ~10,000 files may have a near copy crowded out by more similar-coded strangers.
   */
  embeddingCandidates: 240,
  /** At most this many `duplicates` are listed per file (exact ones first, then by distance). */
  maxDuplicates: 20,
};

/** Search and "more like this" (src/search, extensions.md § 9). */
export const SEARCH = {
  /**
   * GET /files/:id/similar keeps candidates within these, looser than `duplicates` (ANALYSIS above): the phash
   * probes stay those of PHASH_DISTANCE (found further ones count), the embedding bound sits below the corpus's
   * nearest unrelated pair (37).
   */
  similarPhashDistance: 12,
  similarEmbeddingDistance: 36,
  similarLimit: 50,
  /** The snippet's words around the first match. */
  snippetWords: 16,
};

/** Reports and the moderation queue (src/moderation). */
export const MODERATION = {
  /** Report reasons that hide the file at once and escalate to the moderators (decisions.md § Moderation). */
  highPriorityReasons: ["csam", "terrorism"] as const,
  detailsMaxLength: 2_000,
  noteMaxLength: 2_000,
  emailMaxLength: 254,
  /** Later reports of a file append their reason and details to the open report's, up to this length. */
  aggregatedDetailsMaxLength: 20_000,
  /** Escalation mail goes to at most this many moderators/admins (oldest accounts first). */
  escalationMaxRecipients: 50,
};

/** Webhooks (extensions.md § 4; src/webhooks/). */
export const WEBHOOKS = {
  maxEndpointsPerUser: 10,
  /** One try's whole time, answer included. */
  timeoutMs: 10_000,
  /** Failed tries in a row, across deliveries, after which the endpoint is disabled and its owner mailed. */
  disableAfterFailures: 20,
  /**
   * The wait before each retry, in seconds: try n+1 follows try n by the n-th entry (none after the last).
   * 23.7 h in all (under the contract's 24 h), each within the queue's 12 h limit on delaySeconds.
   */
  retryDelaysSeconds: [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800],
  /** How many bytes of an endpoint's answer are kept in the attempt's error. */
  errorBodyChars: 200,
};

/** Moving an owner to another shard (admin/shard-move, docs/sharding.md § Moving an owner). */
export const SHARD_MOVE = {
  /** Retry-After of the owner's writes refused while the owner moves (503 owner_moving). */
  retryAfterSeconds: 30,
  /** Rows read per page of files or albums (with their uploads, parts and album links): a D1 batch each way. */
  pageRows: 40,
  /** Rows per page of the band indexes (a few integers a row). */
  bandPageRows: 500,
  /** Pages one call of the admin route runs before it answers its step (the CLI calls again until done). */
  pagesPerCall: 200,
  /** How many moved_files hops a lookup by id follows (an owner moved again and again). */
  maxHops: 4,
} as const;
