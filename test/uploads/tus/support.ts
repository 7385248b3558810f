// Helpers for the tus tests: the protocol's requests, written out as a client sends them.
import { call, type Reply } from "../../support/api";
import { randomIp } from "../helpers";

export const TUS = { "tus-resumable": "1.0.0" };
export const MiB = 1024 * 1024;

/** Upload-Metadata from plain values. */
export function metadata(fields: Record<string, string>): string {
  const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
  return Object.entries(fields)
    .map(([k, v]) => (v === "" ? k : `${k} ${b64(v)}`))
    .join(",");
}

export type Caller = { token?: string; ip?: string };

export async function create(caller: Caller, length: number, fields: Record<string, string> = { filename: "big.png" }, extra: { headers?: Record<string, string>; body?: Uint8Array } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...TUS, "upload-length": String(length), "upload-metadata": metadata(fields), ...extra.headers };
  if (extra.body) headers["content-type"] ??= "application/offset+octet-stream";
  return call("/upload/tus", { method: "POST", token: caller.token, ip: caller.ip ?? (caller.token ? undefined : randomIp()), headers, raw: extra.body as BodyInit | undefined });
}

/** The path of the upload a creation answered (Location is absolute). */
export const pathOf = (res: Reply) => new URL(res.headers.get("location")!).pathname.replace("/api/v1", "");

export function patch(caller: Caller, path: string, offset: number, bytes: Uint8Array | ReadableStream, headers: Record<string, string> = {}): Promise<Reply> {
  return call(path, {
    method: "PATCH",
    token: caller.token,
    ip: caller.ip,
    headers: { ...TUS, "content-type": "application/offset+octet-stream", "upload-offset": String(offset), ...headers },
    raw: bytes as BodyInit,
  });
}

export const head = (caller: Caller, path: string, headers: Record<string, string> = TUS) => call(path, { method: "HEAD", token: caller.token, ip: caller.ip, headers });
export const status = (caller: Caller, path: string) => call(path, { token: caller.token, ip: caller.ip });
export const terminate = (caller: Caller, path: string) => call(path, { method: "DELETE", token: caller.token, ip: caller.ip, headers: TUS });

/** Sends `bytes` from `from` in chunks of `chunk` bytes; answers the last reply. */
export async function sendChunks(caller: Caller, path: string, bytes: Uint8Array, chunk: number, from = 0): Promise<Reply> {
  let res: Reply | undefined;
  for (let at = from; at < bytes.length; at += chunk) {
    res = await patch(caller, path, at, bytes.subarray(at, Math.min(bytes.length, at + chunk)));
    if (res.status !== 204) return res;
  }
  return res!;
}

export async function sha1Base64(bytes: Uint8Array): Promise<string> {
  return btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-1", bytes))));
}
