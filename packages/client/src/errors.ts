// The one error type the client throws for a refused request: the contract's body (`{ error, message, details }`,
// or `{ error, retryAfter, remaining }` for 429) read into fields a program can branch on.

export type ImghostErrorInit = {
  status: number;
  code: string;
  message: string;
  requestId?: string | null;
  details?: Record<string, unknown>;
  body?: unknown;
  cause?: unknown;
};

export class ImghostError extends Error {
  /** The HTTP status; 0 when no answer came (a network failure after every retry). */
  readonly status: number;
  /** The contract's `details.code`; "rate_limited" for 429, "network_error" for no answer, `http_<status>` for an answer without a code. */
  readonly code: string;
  /** The X-Request-Id of the answer, to quote when asking the operator about it. */
  readonly requestId: string | null;
  /** The contract's `details` (for 429: `retryAfter` and `remaining`). */
  readonly details: Record<string, unknown>;
  /** The answer's body as received (parsed JSON, or text). */
  readonly body: unknown;

  constructor(init: ImghostErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ImghostError";
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.details = init.details ?? {};
    this.body = init.body;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The error for an answer whose body is already read (`body`: parsed JSON when it was JSON, else its text). */
export function errorFromBody(response: Response, body: unknown): ImghostError {
  const requestId = response.headers.get("x-request-id");
  const status = response.status;
  if (status === 429) {
    const b = isRecord(body) ? body : {};
    const retryAfter = typeof b.retryAfter === "number" ? b.retryAfter : Number(response.headers.get("retry-after")) || undefined;
    const message = typeof b.message === "string" ? b.message : `Too many requests; try again in ${retryAfter ?? "a while"} s`;
    return new ImghostError({ status, code: "rate_limited", message, requestId, details: { retryAfter, remaining: b.remaining ?? 0 }, body });
  }
  if (isRecord(body)) {
    const details = isRecord(body.details) ? body.details : {};
    const code = typeof details.code === "string" ? details.code : `http_${status}`;
    const text = typeof body.message === "string" ? body.message : typeof body.error === "string" ? body.error : `HTTP ${status}`;
    return new ImghostError({ status, code, message: text, requestId, details, body });
  }
  const text = typeof body === "string" && body.trim() ? body.trim().slice(0, 200) : `HTTP ${status} ${response.statusText}`.trim();
  return new ImghostError({ status, code: `http_${status}`, message: text, requestId, body });
}

/** Reads a refused answer's body and makes its error. */
export async function errorFromResponse(response: Response): Promise<ImghostError> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // A body that breaks off still has a status and headers worth reporting.
  }
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return errorFromBody(response, body);
}

/** No answer at all, after every try. */
export function networkError(cause: unknown, what: string): ImghostError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ImghostError({ status: 0, code: "network_error", message: `${what}: no answer from the server (${reason})`, cause });
}
