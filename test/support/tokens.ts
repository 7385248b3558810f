// Hand-made JWTs for token-security tests: signed with the vitest JWT secret (vitest.config.ts) via jose,
// so each test changes exactly one property of an otherwise valid access token.
import { SignJWT, decodeJwt } from "jose";

export const TEST_JWT_SECRET = "test-secret-for-vitest-only-0123456789abcdef";
export const TEST_ISSUER = "http://localhost:8787";
export const TEST_AUDIENCE = "http://localhost:8787/api/v1";

export type Claims = Record<string, unknown>;

/** The claims of a real token (sub, sid, typ, ...). */
export const claimsOf = (token: string) => decodeJwt(token) as Claims;

export async function signJwt(
  claims: Claims,
  opts: { alg?: string; secret?: string; issuer?: string; audience?: string; iat?: number; exp?: number } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { iss: _i, aud: _a, exp: _e, iat: _t, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: opts.alg ?? "HS256", typ: "JWT" })
    .setIssuer(opts.issuer ?? TEST_ISSUER)
    .setAudience(opts.audience ?? TEST_AUDIENCE)
    .setIssuedAt(opts.iat ?? now)
    .setExpirationTime(opts.exp ?? now + 600)
    .sign(new TextEncoder().encode(opts.secret ?? TEST_JWT_SECRET));
}

const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** An unsigned token (`alg: none`) carrying `claims`. */
export function unsignedJwt(claims: Claims): string {
  return `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${b64url(JSON.stringify(claims))}.`;
}
