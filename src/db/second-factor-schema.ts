// The directory's second-factor tables (docs/sharding.md: database DB). Re-exported with the rest by ./schema.ts.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./directory-schema";

// Two-factor sign-in (extensions.md §5; auth/totp-factor.ts, auth/recovery-codes.ts, auth/second-factor.ts) and
// passkeys (auth/passkeys.ts, auth/passkey-sign-in.ts).

/** An account's TOTP factor: pending from enrolment until a first code confirms it. One per account. */
export const totpFactors = sqliteTable("totp_factors", {
  userId: text("user_id").primaryKey().references(() => users.id),
  /** The seed sealed with AES-GCM (platform/crypto/secret-box.ts), bound to user_id; never stored in clear. */
  secretSealed: text("secret_sealed").notNull(),
  /** The latest 30-second step whose code was accepted: a code is taken only for a later step (single use). */
  lastUsedStep: integer("last_used_step"),
  confirmedAt: integer("confirmed_at", { mode: "timestamp_ms" }),
  createdAt: createdAt(),
});

/** Single-use recovery codes, each stored as a SHA-256 (80 random bits: no offline guessing). */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    userId: text("user_id").notNull().references(() => users.id),
    codeHash: text("code_hash").notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/** The password step's proof, waiting for the second factor: SHA-256 of the token, single use, 5 minutes. */
export const mfaTokens = sqliteTable(
  "mfa_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    /** SHA-256 of the WebAuthn challenge handed out for this sign-in's passkey step; cleared when claimed. */
    passkeyChallengeHash: text("passkey_challenge_hash"),
  },
  (t) => [index("mfa_tokens_user").on(t.userId), index("mfa_tokens_expires").on(t.expiresAt)],
);

/** An account's passkeys (WebAuthn credentials, auth/passkeys.ts): a second factor, and a sign-in of their own. */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    name: text("name").notNull(),
    /** The credential ID the authenticator chose, base64url: what an assertion names. */
    credentialId: text("credential_id").notNull().unique(),
    /** The COSE public key, base64url. A public key: nothing here signs anything. */
    publicKey: text("public_key").notNull(),
    /** The authenticator's signature counter as last seen (0: it keeps none). */
    counter: integer("counter").notNull().default(0),
    /** JSON array of the transports the browser reported (usb, nfc, internal, hybrid...), handed back as hints. */
    transports: text("transports", { mode: "json" }).$type<string[]>(),
    createdAt: createdAt(),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("passkeys_user").on(t.userId)],
);

/**
 * WebAuthn challenges of a registration (the user's) and of a sign-in without a password (no user yet): SHA-256 of
 * the challenge, single use (deleted when claimed), a few minutes. The second step's challenge lives in mfa_tokens.
 */
export const passkeyChallenges = sqliteTable(
  "passkey_challenges",
  {
    challengeHash: text("challenge_hash").primaryKey(),
    purpose: text("purpose", { enum: ["register", "login"] }).notNull(),
    userId: text("user_id").references(() => users.id),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("passkey_challenges_expires").on(t.expiresAt)],
);
