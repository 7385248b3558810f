import type { RequestDbs } from "../data/db";
import type { JwtConfig } from "../crypto/jwt";
import type { Plan, Role } from "../../config";
import { config } from "../../config/env";

export type Permission = "read" | "upload" | "manage";
export const PERMISSIONS: readonly Permission[] = ["read", "upload", "manage"];

/** The authenticated user as the auth middleware loaded it (one query per request). */
export type AuthUser = {
  id: string;
  email: string;
  username: string;
  role: Role;
  plan: Plan;
  ageConfirmed: boolean;
  safeMode: boolean;
  emailVerified: boolean;
  /** The shard that holds the user's files, uploads and albums (docs/sharding.md). */
  shard: number;
};

/** Who is calling. Exactly one place (auth/middleware.ts) builds it; guards in middleware/guards.ts read it. */
export type Principal =
  | { kind: "anonymous"; ip: string }
  | { kind: "session"; ip: string; user: AuthUser; sessionId: string }
  | { kind: "key"; ip: string; user: AuthUser; keyId: string; permissions: Permission[] }
  /** An anonymous uploader's scoped token: may PUT and finalize exactly one file. */
  | { kind: "upload"; ip: string; fileId: string };

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The request's database handles (middleware/db.ts); byte links, ahead of that middleware, call requestDbs(c). */
    dbs: RequestDbs;
    principal: Principal;
  };
};

export const jwtConfig = (env: Env): JwtConfig => config(env).jwt;

export const isDevEnvironment = (env: Env): boolean => config(env).isDev;
