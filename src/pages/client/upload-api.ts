// The upload page's calls to the JSON API, with a Bearer token from GET /app/token (the session cookie never
// reaches the API). Request and answer types are the API's own zod schemas (type-only imports: nothing of the
// server is bundled).
import type { z } from "@hono/zod-openapi";
import type { PresignRequest, PresignResponse, FinalizeRequest, FinalizeResponse, UrlUploadRequest } from "../../uploads/schemas";
import type { PatchFileRequest } from "../../files/schemas";
import type { LimitsBody } from "../../limits/schemas";
import type { ErrorBody } from "../../platform/openapi";
import { API_BASE, ENDPOINTS, endpointPath, type Endpoint } from "../../platform/api-endpoints";

type In<S extends z.ZodType> = z.input<S>;
type Out<S extends z.ZodType> = z.output<S>;
export type Finalized = Out<typeof FinalizeResponse>;
type ErrorAnswer = Partial<Out<typeof ErrorBody>>;


/** A refused request: its status (0: the network) and the API's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorAnswer = {},
  ) {
    super(body.message || `Request failed (${status})`);
  }
}

let token: string | null = null;

/** Fetches a fresh access token for this page's session (SameSite=Strict cookie + the custom header). */
export async function getToken(): Promise<string> {
  const r = await fetch("/app/token", { headers: { "X-Requested-With": "imghost" }, credentials: "same-origin" });
  if (!r.ok) throw new Error("Your session ended: log in again.");
  const j = (await r.json()) as { access_token: string };
  token = j.access_token;
  return token;
}

async function call<T>(endpoint: Endpoint, body?: unknown, params?: Record<string, string>): Promise<T> {
  const r = await fetch(API_BASE + endpointPath(endpoint, params), {
    method: endpoint.method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j: unknown = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, j as ErrorAnswer);
  return j as T;
}

export const uploadApi = {
  presign: (body: In<typeof PresignRequest>) => call<Out<typeof PresignResponse>>(ENDPOINTS.presign, body),
  finalize: (body: In<typeof FinalizeRequest>) => call<Finalized>(ENDPOINTS.finalize, body),
  /** The server fetches the image, stores and finalizes it (tags and album applied too). */
  uploadUrl: (body: In<typeof UrlUploadRequest>) => call<Finalized>(ENDPOINTS.uploadUrl, body),
  patchFile: (fileId: string, body: In<typeof PatchFileRequest>) => call<unknown>(ENDPOINTS.patchFile, body, { id: fileId }),
  limits: () => call<Out<typeof LimitsBody>>(ENDPOINTS.limits),
};

/** PUTs bytes with XMLHttpRequest, whose upload progress is observable (fetch's is not). */
export function put(url: string, blob: Blob, mime: string, onProgress: (loaded: number) => void): Promise<{ etag: string | null }> {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open("PUT", url);
    x.setRequestHeader("Authorization", `Bearer ${token}`);
    x.setRequestHeader("Content-Type", mime);
    x.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded);
    };
    x.onload = () => {
      let j: Record<string, unknown> = {};
      try {
        j = JSON.parse(x.responseText);
      } catch {
        /* not JSON: the status says enough */
      }
      if (x.status >= 200 && x.status < 300) resolve({ etag: x.getResponseHeader("ETag") });
      else reject(new ApiError(x.status, j as ErrorAnswer));
    };
    x.onerror = () => reject(new ApiError(0, { message: "Network error" }));
    x.send(blob);
  });
}
