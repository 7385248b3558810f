// Accounts, sign-in and keys: password hashing, tokens' lives, the login guard's limits, recovery, two factors, API keys.

export const PASSWORD_HASH = {
  /** Production Workers cap PBKDF2 at 100,000 iterations. */
  iterations: 100_000,
  maxIterations: 100_000,
};

export const PASSWORD_LENGTH = { min: 8, max: 256 };

export const SESSION = {
  accessTokenSeconds: 900,
  refreshTokenSeconds: 30 * 24 * 3600,
  uploadTokenSeconds: 3600,
  emailTokenSeconds: 48 * 3600,
};

/**
 * The login guard (auth/login-guard.ts), per 15-minute window. Wrong passwords count strictly per (address, IP), so a
 * stranger locks out only their own IP, and loosely per address, bounding a guess spread over IPs. Second-factor
 * codes count per account; a passkey's failures per credential and IP (docs/accounts.md).
 */
export const LOGIN_LIMITS = {
  windowSeconds: 15 * 60,
  /** Wrong passwords for one address from one client IP. */
  failuresPerAddressAndIp: 10,
  /** Wrong passwords for one address from all IPs together. */
  failuresPerAddress: 100,
  /** Wrong second-factor codes (TOTP, recovery, a passkey as the second step) per account. */
  secondFactorFailuresPerAccount: 10,
  /** Failed answers of one passkey at the sign-in without a password. */
  failuresPerPasskey: 10,
  /** Failures of every kind from one client IP. */
  failuresPerIp: 50,
};

/**
 * Mails a caller has sent on request, "resend verification" and "forgot password" together (auth/login-guard.ts),
 * so neither route, nor both in turn, makes a mail cannon: per recipient address, known or not, and per client IP.
 */
export const MAIL_REQUESTS = { windowSeconds: 3600, perAddress: 5, perIp: 20 };

/**
 * Password recovery (extensions.md §7): the mailed token's life, and the reset route's limits per window (forgot's
 * are MAIL_REQUESTS, the same numbers).
 */
export const PASSWORD_RESET = {
  tokenSeconds: 3600,
  windowSeconds: 3600,
  /** Resets of one account per window. */
  perAccount: 5,
  /** Reset requests from one client IP per window. */
  perIp: 20,
};

/** Two-factor sign-in (extensions.md §5). */
export const MFA = {
  /** RFC 6238 as authenticator apps expect it: HMAC-SHA-1, 6 digits, 30-second steps. */
  totp: { digits: 6, stepSeconds: 30, secretBytes: 20 },
  /** Steps either side of the server's clock whose code is still accepted (clock drift, slow typing). */
  totpWindowSteps: 1,
  /** The name authenticator apps show beside the account (the otpauth URL's issuer). */
  issuer: "imghost",
  /** Recovery codes issued when TOTP is confirmed, and their random characters (Crockford base32, 5 bits each). */
  recoveryCodeCount: 10,
  recoveryCodeChars: 16,
  /** How long the password step's mfaToken waits for the second step. */
  tokenSeconds: 300,
};

/** Passkeys (WebAuthn; auth/passkeys.ts): challenges and limits. */
export const PASSKEYS = {
  /** How long a challenge waits for the authenticator's answer; also the options' `timeout` (WebAuthn suggests 5 to 10 minutes). */
  challengeSeconds: 300,
  maxPerUser: 20,
  nameMaxLength: 64,
};

export const API_KEYS = {
  prefix: "pk_",
  bodyLength: 32,
  /** Characters of the key kept in clear to help people recognise it in lists (`pk_` + 6). */
  displayPrefixLength: 9,
  /** lastUsedAt is written at most this often per key, so using a key is not a D1 write per request. */
  lastUsedWriteIntervalSeconds: 300,
  maxPerUser: 50,
};
