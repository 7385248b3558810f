// The OpenAPI document's error listings: each route's error responses list, as named examples, the codes of
// ../errors/error-codes.ts it declared (./route-errors.ts), those of each response's status. Added to the generated
// document (app.ts) rather than written into each createRoute, so a route declares codes and not examples.
import { ERROR_CODES, wireCode, type ErrorCode } from "../errors/error-codes";
import { reasonPhrase } from "../errors/errors";
import { ERROR_CODES_KEY, type RouteErrorCodes } from "./route-errors";

type Media = { schema?: unknown; examples?: Record<string, unknown> };
type ResponseObject = { description?: string; content?: Record<string, Media> };
type Operation = { responses?: Record<string, ResponseObject>; [ERROR_CODES_KEY]?: RouteErrorCodes };
type Document = { paths?: Record<string, Record<string, Operation>> };

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/** Of the codes a route declared, those answered with one status: in table order, once per code programs see. */
export function errorCodesFor(declared: readonly ErrorCode[], status: number): ErrorCode[] {
  const seen = new Set<string>();
  const out: ErrorCode[] = [];
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    if (ERROR_CODES[code].status !== status || !declared.includes(code) || seen.has(wireCode(code))) continue;
    seen.add(wireCode(code));
    out.push(code);
  }
  return out;
}

function example(code: ErrorCode) {
  const spec: { status: number; description: string; error?: string } = ERROR_CODES[code];
  return {
    summary: spec.description,
    value: { error: spec.error ?? reasonPhrase(spec.status), message: spec.description, details: { code: wireCode(code) } },
  };
}

/** Returns the document with `examples` added to each JSON error response and the routes' declarations removed. */
export function withErrorCodes<T>(doc: T): T {
  const paths = (doc as Document).paths ?? {};
  for (const item of Object.values(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const declared = [...(op[ERROR_CODES_KEY]?.own ?? []), ...(op[ERROR_CODES_KEY]?.implied ?? [])];
      delete op[ERROR_CODES_KEY];
      if (!op.responses) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.["application/json"];
        if (!media || Number(status) < 400) continue;
        const codes = errorCodesFor(declared, Number(status));
        if (codes.length === 0) continue;
        // Copied, not changed in place: the generator may share objects between responses.
        op.responses[status] = {
          ...response,
          content: { ...response.content, "application/json": { ...media, examples: Object.fromEntries(codes.map((c) => [wireCode(c), example(c)])) } },
        };
      }
    }
  }
  return doc;
}
