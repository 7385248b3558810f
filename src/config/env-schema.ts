// Every var and secret of the worker in one zod schema (README § Configuration): ./env.ts parses it once per
// isolate into a frozen, typed RuntimeConfig, and nothing else reads a var (scripts/check-env-reads.mjs).
// The defaults live here alone; test/deploy/env-config.test.mjs holds wrangler.toml and the README to them.
import { z } from "zod";

export type Environment = "development" | "test" | "production";
export type Surface = "api" | "image" | "cdn" | "site";
export type MailFrom = { name: string; email: string };
export type GlobalPurge = { zoneId: string; apiToken: string };

/** The defaults, as wrangler.toml writes them. The four addresses and MAIL_FROM have none: each deployment names its own. */
export const VAR_DEFAULTS = {
  ENVIRONMENT: "production",
  ADMIN_EMAILS: "",
  NSFW_THRESHOLD: "0.8",
  PHASH_DISTANCE: "8",
  RATE_LIMIT_MULTIPLIER: "1",
  FINALIZE_WAIT_MS: "10000",
  ACCESS_RECORD_SECONDS: "30",
  CF_ZONE_ID: "",
  VIEW_COALESCE_MS: "1000",
  SHARDS_OPEN: "",
  SHARD_REGIONS: "",
  OUTBOUND_ALLOW_HOSTS: "",
  QUEUE_RETRY_BASE_SECONDS: "5",
} as const;

/** Secrets: `wrangler secret put` in production, generated into .dev.vars locally. */
export const REQUIRED_SECRETS = ["JWT_SECRET", "BILLING_WEBHOOK_SECRET", "TOTP_ENCRYPTION_SECRET", "SIGNED_URL_SECRET"] as const;
export const OPTIONAL_SECRETS = ["CF_API_TOKEN"] as const;

/** A var as wrangler passes it (a string; a number if written unquoted), or its default when unset. */
const withDefault = <T extends z.ZodType>(name: keyof typeof VAR_DEFAULTS, schema: T) =>
  z.preprocess((v) => (v === undefined ? VAR_DEFAULTS[name] : typeof v === "number" ? String(v) : v), schema);

const required = { error: "required, and unset" };

const number = (min: number, max: number, opts: { integer?: boolean } = {}) =>
  z
    .string()
    .trim()
    .regex(opts.integer ? /^\d+$/ : /^\d+(\.\d+)?$/, opts.integer ? "expected a whole number" : "expected a number")
    .transform(Number)
    .pipe(z.number().min(min, `expected at least ${min}`).max(max, `expected at most ${max}`));

/** A comma list; every entry must parse, and a bad one is named. */
const commaList = <T>(parse: (entry: string) => T | undefined, expected: string) =>
  z.string().transform((raw, ctx) => {
    const out: T[] = [];
    for (const entry of raw.split(",").map((s) => s.trim()).filter(Boolean)) {
      const value = parse(entry);
      if (value === undefined) {
        ctx.addIssue({ code: "custom", message: `"${entry}" is not ${expected}` });
        return z.NEVER;
      }
      out.push(value);
    }
    return Object.freeze(out);
  });

const address = z
  .string(required)
  .trim()
  .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "expected an absolute http(s) URL");

const secret = (minLength: number) =>
  z.string({ error: "required, and unset (wrangler secret put; locally .dev.vars)" }).min(minLength, `must be at least ${minLength} characters`);

const MAIL_ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

/** "imghost <noreply@example.com>" -> { name, email }; null when it is not a name and an address. */
export function parseMailFrom(value: string | undefined): MailFrom | null {
  const m = /^\s*([^<>"]*?)\s*<([^<>]+)>\s*$/.exec(value ?? "");
  if (!m || !m[1] || !MAIL_ADDRESS.test(m[2])) return null;
  return { name: m[1], email: m[2] };
}

const MAIL_FROM_EXPECTED = 'not a name and an address ("imghost <noreply@your-domain>")';

const ENV_SCHEMA = z
  .object({
    ENVIRONMENT: withDefault("ENVIRONMENT", z.enum(["development", "test", "production"], { error: 'expected "development", "test" or "production"' })),
    BASE_URL: address,
    IMAGE_URL: address,
    CDN_URL: address,
    SITE_URL: address,
    // Empty: no sender (mail is not sent); production refuses that below.
    MAIL_FROM: z.string(required).refine((v) => v.trim() === "" || parseMailFrom(v) !== null, MAIL_FROM_EXPECTED),
    ADMIN_EMAILS: withDefault("ADMIN_EMAILS", commaList((e) => (/^[^\s@]+@[^\s@]+$/.test(e) ? e.toLowerCase() : undefined), "an e-mail address")),
    NSFW_THRESHOLD: withDefault("NSFW_THRESHOLD", number(0, 1)),
    // Larger radii make a lookup probe too many values.
    PHASH_DISTANCE: withDefault("PHASH_DISTANCE", number(0, 32, { integer: true })),
    RATE_LIMIT_MULTIPLIER: withDefault(
      "RATE_LIMIT_MULTIPLIER",
      z.union([z.string().trim().toLowerCase().pipe(z.literal("off")), number(0, 1_000_000).refine((n) => n > 0, "expected a positive number")], {
        error: 'expected a positive number or "off"',
      }),
    ),
    FINALIZE_WAIT_MS: withDefault("FINALIZE_WAIT_MS", number(0, 60_000, { integer: true })),
    ACCESS_RECORD_SECONDS: withDefault("ACCESS_RECORD_SECONDS", number(0, 300, { integer: true })),
    CF_ZONE_ID: withDefault("CF_ZONE_ID", z.string().trim()),
    VIEW_COALESCE_MS: withDefault("VIEW_COALESCE_MS", number(0, 10_000, { integer: true })),
    SHARDS_OPEN: withDefault("SHARDS_OPEN", commaList((s) => (/^\d+$/.test(s) ? Number(s) : undefined), "a shard number")),
    SHARD_REGIONS: withDefault(
      "SHARD_REGIONS",
      commaList((s) => /^(\d+)\s*:\s*([a-z]+)$/.exec(s)?.slice(1, 3) as [string, string] | undefined, 'a "shard:hint" pair (0:weur)'),
    ),
    OUTBOUND_ALLOW_HOSTS: withDefault(
      "OUTBOUND_ALLOW_HOSTS",
      commaList((h) => (/^(\[[0-9a-f:.]+\]|[^\s:[\]/]+):\d{1,5}$/i.test(h) ? h.toLowerCase() : undefined), "a host:port pair"),
    ),
    QUEUE_RETRY_BASE_SECONDS: withDefault("QUEUE_RETRY_BASE_SECONDS", number(0, 600)),
    JWT_SECRET: secret(32),
    BILLING_WEBHOOK_SECRET: secret(1),
    TOTP_ENCRYPTION_SECRET: secret(32),
    SIGNED_URL_SECRET: secret(32),
    CF_API_TOKEN: z.string().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.ENVIRONMENT !== "production") return;
    // A setting that must not reach production, or one production cannot do without: the worker refuses to run.
    if (v.OUTBOUND_ALLOW_HOSTS.length > 0) {
      ctx.addIssue({ code: "custom", path: ["OUTBOUND_ALLOW_HOSTS"], message: "set but ENVIRONMENT is production: it is for local tests only; remove it" });
    }
    if (!parseMailFrom(v.MAIL_FROM)) {
      ctx.addIssue({ code: "custom", path: ["MAIL_FROM"], message: `${MAIL_FROM_EXPECTED} but ENVIRONMENT is production: no mail would be sent` });
    }
  });

/** Every name the schema reads: the vars and the secrets. */
export const CONFIG_NAMES = Object.freeze(Object.keys(ENV_SCHEMA.shape)) as readonly string[];

type Address = { surface: Surface; url: string; host: string; prefix: string };

export type RuntimeConfig = Readonly<{
  environment: Environment;
  /** development or test: the dev-only routes exist, mail bodies stay in the log. */
  isDev: boolean;
  baseUrl: string;
  imageUrl: string;
  cdnUrl: string;
  siteUrl: string;
  /** The four addresses parsed, the longest path prefix first (so /api/v1 wins over the site's root on one host). */
  addresses: readonly Readonly<Address>[];
  /** The hosts of the four addresses, lower-cased. */
  ownHosts: ReadonlySet<string>;
  cdnOrigin: string;
  /** HS256 tokens: issued by the site for the API. */
  jwt: Readonly<{ secret: string; issuer: string; audience: string }>;
  mailFrom: Readonly<MailFrom> | null;
  adminEmails: readonly string[];
  nsfwThreshold: number;
  phashDistance: number;
  rateLimitMultiplier: number | "off";
  finalizeWaitMs: number;
  accessRecordSeconds: number;
  viewCoalesceMs: number;
  queueRetryBaseSeconds: number;
  /** Empty: every shard is open. */
  shardsOpen: readonly number[];
  shardRegions: ReadonlyMap<number, string>;
  outboundAllowHosts: ReadonlySet<string>;
  /** Both CF_ZONE_ID and CF_API_TOKEN, or null: no global purge. */
  globalPurge: Readonly<GlobalPurge> | null;
  billingWebhookSecret: string;
  totpEncryptionSecret: string;
  signedUrlSecret: string;
}>;

function parsedAddress(surface: Surface, url: string): Address {
  const u = new URL(url);
  return Object.freeze({ surface, url, host: u.host.toLowerCase(), prefix: u.pathname.replace(/\/+$/, "") });
}

/** The config, or every bad value as "NAME: what is wrong" (one a line in the thrown message). */
export function parseConfig(raw: Record<string, unknown>): { ok: true; config: RuntimeConfig } | { ok: false; problem: string } {
  const parsed = ENV_SCHEMA.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ") };
  const v = parsed.data;
  const addresses = (
    [
      ["api", v.BASE_URL],
      ["image", v.IMAGE_URL],
      ["cdn", v.CDN_URL],
      ["site", v.SITE_URL],
    ] as const
  )
    .map(([surface, url]) => parsedAddress(surface, url))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const mailFrom = parseMailFrom(v.MAIL_FROM);
  const config: RuntimeConfig = {
    environment: v.ENVIRONMENT,
    isDev: v.ENVIRONMENT !== "production",
    baseUrl: v.BASE_URL,
    imageUrl: v.IMAGE_URL,
    cdnUrl: v.CDN_URL,
    siteUrl: v.SITE_URL,
    addresses: Object.freeze(addresses),
    ownHosts: new Set(addresses.map((a) => a.host)),
    cdnOrigin: new URL(v.CDN_URL).origin,
    jwt: Object.freeze({ secret: v.JWT_SECRET, issuer: v.SITE_URL, audience: v.BASE_URL }),
    mailFrom: mailFrom && Object.freeze(mailFrom),
    adminEmails: v.ADMIN_EMAILS,
    nsfwThreshold: v.NSFW_THRESHOLD,
    phashDistance: v.PHASH_DISTANCE,
    rateLimitMultiplier: v.RATE_LIMIT_MULTIPLIER,
    finalizeWaitMs: v.FINALIZE_WAIT_MS,
    accessRecordSeconds: v.ACCESS_RECORD_SECONDS,
    viewCoalesceMs: v.VIEW_COALESCE_MS,
    queueRetryBaseSeconds: v.QUEUE_RETRY_BASE_SECONDS,
    shardsOpen: Object.freeze([...new Set(v.SHARDS_OPEN)]),
    shardRegions: new Map(v.SHARD_REGIONS.map(([shard, hint]) => [Number(shard), hint])),
    outboundAllowHosts: new Set(v.OUTBOUND_ALLOW_HOSTS),
    globalPurge: v.CF_ZONE_ID && v.CF_API_TOKEN ? Object.freeze({ zoneId: v.CF_ZONE_ID, apiToken: v.CF_API_TOKEN }) : null,
    billingWebhookSecret: v.BILLING_WEBHOOK_SECRET,
    totpEncryptionSecret: v.TOTP_ENCRYPTION_SECRET,
    signedUrlSecret: v.SIGNED_URL_SECRET,
  };
  return { ok: true, config: Object.freeze(config) };
}
