// The OpenAPI document's error listings: each route's error responses list, as named examples, the codes of
// ./error-codes.ts it can answer with. Added to the generated document (app.ts) rather than written into each
// createRoute, so the table stays the one place that says where a code comes from.
import { ERROR_CODES, wireCode, type ErrorCode } from "../errors/error-codes";
import { reasonPhrase } from "../errors/errors";

type Media = { schema?: unknown; examples?: Record<string, unknown> };
type ResponseObject = { description?: string; content?: Record<string, Media> };
type Operation = { requestBody?: { content?: Record<string, unknown> }; responses?: Record<string, ResponseObject> };
type Document = { paths?: Record<string, Record<string, Operation>> };

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/** Does a table `where` entry take in this operation? ("*", "body", "/prefix", "METHOD /prefix", "...$" exact). */
function matches(where: string, method: string, path: string, op: Operation): boolean {
  if (where === "*") return true;
  if (where === "body") return Boolean(op.requestBody?.content?.["application/json"]);
  const [m, p] = where.includes(" ") ? where.split(" ", 2) : [undefined, where];
  if (m && m !== method) return false;
  return p.endsWith("$") ? path === p.slice(0, -1) : path.startsWith(p);
}

/** The codes an operation lists under one status, in table order, once per code that programs see. */
export function errorCodesFor(method: string, path: string, status: number, op: Operation = {}): ErrorCode[] {
  const seen = new Set<string>();
  const out: ErrorCode[] = [];
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    const spec = ERROR_CODES[code];
    if (spec.status !== status || !spec.where.some((w) => matches(w, method.toUpperCase(), path, op))) continue;
    if (seen.has(wireCode(code))) continue;
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

/** Returns the document with `examples` added to each JSON error response; nothing else changes. */
export function withErrorCodes<T>(doc: T): T {
  const paths = (doc as Document).paths ?? {};
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method) || !op.responses) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.["application/json"];
        if (!media || Number(status) < 400) continue;
        const codes = errorCodesFor(method, path, Number(status), op);
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
