import { and, eq, gt, isNull } from "drizzle-orm";
import { directoryDb, type DirectoryDb } from "../platform/data/db";
import { emailTokens, users, type UserRow } from "../db/schema";
import { newId } from "../platform/data/ids";
import { placeOwner } from "../platform/data/placement";
import { readShardFill } from "../platform/data/shard-fill";
import { randomToken, sha256Hex } from "../platform/crypto/crypto";
import { burnPasswordCheck, hashPassword, verifyPassword } from "../platform/crypto/passwords";
import { ApiError } from "../platform/errors/errors";
import { SESSION } from "../config/auth";
import { queueMail } from "../mail/outbox";
import { findLiveUserByEmail, findUserById } from "./queries";
import { createSession, type SessionBody } from "./sessions";
import { forgetUser } from "./principal-records";
import { countLoginAttempt, forgiveLoginAttempt, passwordStepPassed } from "./login-guard";
import { signInMethods, startSecondStep, type MfaChallenge } from "./second-factor";
import { config } from "../config/env";

export type SignupInput = {
  email: string;
  password: string;
  username: string;
  firstName?: string;
  lastName?: string;
  ageConfirmed?: boolean;
};

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

function isUniqueViolation(err: unknown): boolean {
  return String((err as { cause?: unknown })?.cause ?? err).includes("UNIQUE constraint failed");
}

export async function signup(db: DirectoryDb, env: Env, input: SignupInput, continent?: string) {
  const email = normalizeEmail(input.email);
  const now = new Date();
  const id = newId("usr");
  const user: UserRow = {
    id,
    email,
    username: input.username,
    firstName: input.firstName ?? "",
    lastName: input.lastName ?? "",
    passwordHash: await hashPassword(input.password),
    role: "user",
    plan: "free",
    shard: placeOwner(env, continent, await readShardFill(db), id),
    ageConfirmed: input.ageConfirmed ?? false,
    safeMode: true,
    emailVerifiedAt: null,
    storageUsed: 0,
    storageReserved: 0,
    bannedAt: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.insert(users).values(user);
  } catch (err) {
    if (isUniqueViolation(err)) {
      const taken = await findLiveUserByEmail(db, email);
      if (taken) throw new ApiError("email_taken", "An account with this e-mail already exists");
      throw new ApiError("username_taken", "This username is taken");
    }
    throw err;
  }
  await sendVerification(db, env, user);
  const session = await createSession(db, env, user.id);
  return { user, session };
}

const invalidCredentials = () => new ApiError("invalid_credentials", "Invalid e-mail or password");

export type LoginResult = { kind: "session"; user: UserRow; session: SessionBody } | ({ kind: "mfa" } & MfaChallenge);

/** The password step; an account with a second factor gets an mfaToken for POST /auth/login/2fa, not a session. */
export async function login(db: DirectoryDb, env: Env, emailInput: string, password: string, ip: string): Promise<LoginResult> {
  const email = normalizeEmail(emailInput);
  await countLoginAttempt(env, email, ip);
  // The hash and the ban flag from D1's primary, not through `db`: a client's old bookmark may point that at a
  // replica that has not yet seen a password change or a ban (signInMethods reads the factors there likewise).
  const user = await findLiveUserByEmail(directoryDb(env), email);
  if (!user) {
    await burnPasswordCheck(password);
    throw invalidCredentials();
  }
  const result = await verifyPassword(password, user.passwordHash);
  if (!result.ok) throw invalidCredentials();
  if (user.bannedAt) throw new ApiError("account_suspended", "This account has been suspended");
  if (result.needsRehash) {
    // Parameters were raised since this hash was made: upgrade it now that we hold the password. (The hash
    // is in no principal record: nothing to forget.)
    await db.update(users).set({ passwordHash: await hashPassword(password), updatedAt: new Date() }).where(eq(users.id, user.id));
  }
  const methods = await signInMethods(env, user.id);
  if (methods.length > 0) {
    await passwordStepPassed(env, email, ip);
    return { kind: "mfa", ...(await startSecondStep(db, user.id, methods)) };
  }
  await forgiveLoginAttempt(env, email, ip);
  const session = await createSession(db, env, user.id);
  return { kind: "session", user, session };
}

export async function sendVerification(db: DirectoryDb, env: Env, user: Pick<UserRow, "id" | "email" | "username">) {
  const token = randomToken();
  const now = Date.now();
  await db.insert(emailTokens).values({
    tokenHash: await sha256Hex(token),
    userId: user.id,
    purpose: "verify_email",
    createdAt: new Date(now),
    expiresAt: new Date(now + SESSION.emailTokenSeconds * 1000),
  });
  await queueMail(db, env, user.email, { kind: "verify_email", username: user.username, token });
}

function adminEmails(env: Env): Set<string> {
  return new Set(config(env).adminEmails.map(normalizeEmail));
}

/** Marks the address verified; the bootstrap admins named in ADMIN_EMAILS become admins at this moment. */
export async function verifyEmail(db: DirectoryDb, env: Env, token: string): Promise<UserRow> {
  const tokenHash = await sha256Hex(token);
  const now = new Date();
  const used = await db
    .update(emailTokens)
    .set({ usedAt: now })
    .where(and(eq(emailTokens.tokenHash, tokenHash), eq(emailTokens.purpose, "verify_email"), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now)))
    .returning({ userId: emailTokens.userId })
    .get();
  if (!used) throw new ApiError("invalid_verification_token", "The verification token is invalid, used or expired");
  const user = await findUserById(db, used.userId);
  if (!user || user.deletedAt) throw new ApiError("invalid_verification_token", "The verification token is invalid, used or expired");
  const role = adminEmails(env).has(user.email) ? "admin" : user.role;
  const updated = await db
    .update(users)
    .set({ emailVerifiedAt: user.emailVerifiedAt ?? now, role, updatedAt: now })
    .where(eq(users.id, user.id))
    .returning()
    .get();
  await forgetUser(env, user.id); // emailVerified (and a bootstrap admin's role) are in the principal
  return updated;
}
