// Sending a recipe's request, keeping what is compared of its answer, and running a move to its end.
// An answer is compared as { status, the headers in KEPT_HEADERS, the body }: JSON parsed, other bytes as their
// SHA-256, HTML as its length class only (its nonce changes per request). Normalised, in both answers alike:
// - ids: a fixture id becomes its name (a twin's id and its other twin's share one), any other file, album,
//   upload or report id (one the request made) its kind, e.g. "<alb_>";
// - times (keys ending in At, Expires) become "<time>" unless null, counts (viewCount, downloadCount: the test's
//   own reads count) "<count>", and a signed link's exp and sig "<signed>";
// - the x-d1-bookmark header and every header not kept are left out.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import worker from "../../../src/index";
import { recordsOn } from "../../support/records";
import { moveOwner, type MoveProgress } from "../../../src/admin/shard-move/move";

/** `d1`: the test configuration (edge records off, every read decided from D1); `records`: production's, records on. */
export type Mode = "d1" | "records";
export type Req = { method: string; url: string; token?: string; body?: unknown; raw?: Uint8Array; headers?: Record<string, string> };
export type Answer = { status: number; headers: Record<string, string>; body: unknown };

const KEPT_HEADERS = ["content-type", "content-disposition", "location", "upload-offset", "upload-length", "upload-metadata", "upload-file-id", "upload-file-url"];

export async function send(req: Req, mode: Mode): Promise<Answer> {
  const headers: Record<string, string> = { ...req.headers };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  let body: BodyInit | undefined = req.raw;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers["content-type"] ??= "application/json";
  }
  const request = new Request(req.url, { method: req.method, headers, body });
  if (mode === "d1") return answerOf(await exports.default.fetch(request));
  const ctx = createExecutionContext();
  const answer = await answerOf(await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, recordsOn, ctx));
  await waitOnExecutionContext(ctx); // the records are written after the response
  return answer;
}

async function answerOf(res: Response): Promise<Answer> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get("content-type") ?? "";
  let body: unknown = "";
  if (type.includes("json")) body = JSON.parse(new TextDecoder().decode(bytes));
  else if (type.startsWith("text/html")) body = bytes.length > 0 ? "<html>" : "";
  else if (bytes.length > 0) body = `${bytes.length} bytes, sha256 ${await sha256Hex(bytes)}`;
  const headers: Record<string, string> = {};
  for (const h of KEPT_HEADERS) if (res.headers.has(h)) headers[h] = res.headers.get(h)!;
  return { status: res.status, headers, body };
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const ID = /(?<![A-Za-z0-9_-])(file|alb|upl|rep)_[A-Za-z0-9_-]{21}(?![A-Za-z0-9_-])/g;
const TIME_KEY = /(At|Expires|expires)$/;
const COUNT_KEY = /^(viewCount|downloadCount)$/;

function normaliseText(s: string, names: Map<string, string>): string {
  return s.replace(ID, (id, kind) => names.get(id) ?? `<${kind}_>`).replace(/([?&])(exp|sig)=[^&"\s]*/g, "$1$2=<signed>");
}

export function normalise(value: unknown, names: Map<string, string>, key = ""): unknown {
  if (value === null || value === undefined) return value;
  if (TIME_KEY.test(key)) return "<time>";
  if (COUNT_KEY.test(key) && typeof value === "number") return "<count>";
  if (typeof value === "string") return normaliseText(value, names);
  if (Array.isArray(value)) return value.map((v) => normalise(v, names));
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, names, k)]));
  return value;
}

export const normalised = (a: Answer, names: Map<string, string>): Answer => ({
  status: a.status,
  headers: normalise(a.headers, names) as Record<string, string>,
  body: normalise(a.body, names),
});

/** Waits (bounded) until none of the owner's files on `db` awaits its analysis: the copy waits for them. */
export async function analysesLanded(db: D1Database, userId: string, step: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const n = await db.prepare("SELECT COUNT(*) AS n FROM files WHERE user_id = ? AND analysis = 'pending'").bind(userId).first<number>("n");
    if (n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${step}: the owner's analyses did not land within 15 s`);
}

/**
 * Runs the move to its end, as `npm run shard:move` does (call again until done). It may wait for analyses (the
 * writes before the move start some); any other wait is a failure of the scenario, named.
 */
export async function moveToEnd(userId: string, toShard: number): Promise<MoveProgress> {
  for (let call = 0; call < 50; call++) {
    const progress = await moveOwner(env, userId, toShard);
    if (progress.step === "done") return progress;
    if (progress.waitingFor?.endsWith("analyses pending")) await analysesLanded([env.DB, env.SHARD_1][progress.fromShard], userId, "the move's copy");
    else if (progress.waitingFor) throw new Error(`the move waits for ${progress.waitingFor}`);
  }
  throw new Error("the move did not finish within 50 calls");
}
