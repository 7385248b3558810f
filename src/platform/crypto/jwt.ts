// Signed tokens: HS256 only (pinned on verify), issuer/audience/expiry/type always checked.
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import { newId } from "../data/ids";
import { utf8 } from "./crypto";

export type TokenType = "access" | "upload";

export type TokenClaims = { sub: string; typ: TokenType; sid?: string; fid?: string; jti: string; exp: number };

const keyCache = new Map<string, Uint8Array>();
function keyFor(secret: string): Uint8Array {
  let key = keyCache.get(secret);
  if (!key) {
    if (!secret || secret.length < 32) throw new Error("JWT_SECRET must be at least 32 characters");
    key = utf8(secret);
    keyCache.set(secret, key);
  }
  return key;
}

export type JwtConfig = { secret: string; issuer: string; audience: string };

export async function signToken(
  cfg: JwtConfig,
  claims: { sub: string; typ: TokenType; sid?: string; fid?: string },
  lifetimeSeconds: number,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ typ: claims.typ, ...(claims.sid ? { sid: claims.sid } : {}), ...(claims.fid ? { fid: claims.fid } : {}) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(cfg.issuer)
    .setAudience(cfg.audience)
    .setSubject(claims.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .setJti(newId("tok"))
    .sign(keyFor(cfg.secret));
}

const TOKEN_TYPES: readonly string[] = ["access", "upload"];

/** Returns the claims, or null for any invalid token (bad signature, wrong alg/iss/aud/typ, expired). */
export async function verifyToken(cfg: JwtConfig, token: string): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, keyFor(cfg.secret), {
      algorithms: ["HS256"],
      issuer: cfg.issuer,
      audience: cfg.audience,
      requiredClaims: ["sub", "exp", "iat", "jti", "typ"],
    });
    if (typeof payload.typ !== "string" || !TOKEN_TYPES.includes(payload.typ) || typeof payload.sub !== "string") return null;
    return payload as unknown as TokenClaims;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return null;
    throw err;
  }
}

/** Three base64url segments: what a JWT looks like (anything else in a Bearer header is treated as an API key). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
