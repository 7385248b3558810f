// The error codes a route can answer, declared beside its definition: defineRoute is createRoute plus `errors`,
// the codes its own handlers raise. Those raised before the handler (the API's shared middleware, the route's
// guards, its JSON body) are added here, so no route repeats them. They ride in the operation's `x-error-codes`
// for ./openapi-errors.ts, which lists them as examples and removes the key.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { ErrorCode } from "../errors/error-codes";

/** The operation key that carries a route's codes to the document's post-processing. */
export const ERROR_CODES_KEY = "x-error-codes";

/** Every API request: input validation, and the credentials the auth middleware resolves (any route reads them). */
export const EVERY_ROUTE = [
  "validation_error",
  "invalid_token",
  "invalid_authorization_header",
  "account_banned",
  "invalid_api_key",
  "api_key_revoked",
  "api_key_expired",
  "account_suspended",
] as const satisfies readonly ErrorCode[];

/** A JSON request body: the body reader's refusals. */
export const JSON_BODY = ["malformed_json", "body_too_large", "unsupported_content_type"] as const satisfies readonly ErrorCode[];

type Refusing = { readonly refuses: readonly ErrorCode[] };

/** A guard (our own middleware function) carrying the codes it refuses with; a route listing it answers them too. */
export function refusing<M extends object>(codes: readonly ErrorCode[], middleware: M): M & Refusing {
  return Object.assign(middleware, { refuses: codes });
}

const refusedBy = (m: unknown): readonly ErrorCode[] => (m as Partial<Refusing>).refuses ?? [];

type Declared = { errors?: readonly ErrorCode[] };
/** What a route's operation carries: its own codes, and those its definition implies. */
export type RouteErrorCodes = { own: readonly ErrorCode[]; implied: readonly ErrorCode[] };

/** The codes a route's definition implies: every route's, its JSON body's and its guards'. */
export function impliedErrorCodes(route: Omit<RouteConfig, "path">): ErrorCode[] {
  const middleware = [route.middleware ?? []].flat();
  const json = Boolean(route.request?.body?.content?.["application/json"]);
  return [...new Set<ErrorCode>([...EVERY_ROUTE, ...(json ? JSON_BODY : []), ...middleware.flatMap(refusedBy)])];
}

/** createRoute, with the route's error codes recorded in its operation. */
export function defineRoute<P extends string, R extends Omit<RouteConfig, "path"> & { path: P } & Declared>(config: R) {
  const { errors: own = [], ...route } = config;
  const codes: RouteErrorCodes = { own, implied: impliedErrorCodes(route) };
  return createRoute({ ...route, [ERROR_CODES_KEY]: codes } as unknown as R);
}

/** Codes no API route declares: answered outside the API (byte links, pages) or by fallbacks for what should not happen. */
export const UNDECLARED = [
  "http_error",
  "http_error_internal",
  "internal_error",
  "invalid_variant",
  "hotlink_refused",
  "signed_url_expired",
  "invalid_link_signature",
  "oembed_url",
  "oembed_format",
] as const satisfies readonly ErrorCode[];
