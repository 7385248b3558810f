// Headers set on the answer after the handler, by middleware that runs around it (CORS, the rate limit).
import type { Context } from "hono";

/** Sets `headers` on `c.res`; a response passed through from a binding (e.g. fetch) has immutable headers: copied once. */
export function setAnswerHeaders(c: Context, headers: readonly (readonly [string, string])[]): void {
  try {
    for (const [name, value] of headers) c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    for (const [name, value] of headers) c.res.headers.set(name, value);
  }
}
