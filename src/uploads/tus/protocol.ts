// tus 1.0.0's headers (https://tus.io/protocols/resumable-upload), read and written: pure functions, so each rule
// is tested on its own (test/uploads/tus/protocol.test.ts). What the server offers is extensions.md § 1.
import { ApiError } from "../../platform/errors/errors";
import type { ChecksumAlgorithm } from "./assembly";

export const TUS_VERSION = "1.0.0";
export const TUS_EXTENSIONS = "creation,creation-with-upload,termination,expiration,checksum";
export const TUS_CHECKSUM_ALGORITHMS = "sha1,sha256";
export const OFFSET_OCTET_STREAM = "application/offset+octet-stream";

const badHeader = (header: string, message: string) => new ApiError("invalid_tus_header", message, { header });

/** Tus-Resumable must name the one version served; anything else is 412 (with Tus-Version, set by the router). */
export function assertTusResumable(value: string | undefined) {
  if (value?.trim() !== TUS_VERSION) {
    throw new ApiError("tus_version_unsupported", `Send Tus-Resumable: ${TUS_VERSION}`, { supported: [TUS_VERSION] });
  }
}

/** A non-negative integer header (Upload-Length, Upload-Offset), digits only. */
export function readSize(header: string, value: string | undefined): number {
  if (value === undefined) throw badHeader(header, `${header} is required`);
  const text = value.trim();
  const n = Number(text);
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(n)) throw badHeader(header, `${header} must be a non-negative integer`);
  return n;
}

/** Upload-Metadata past `max` bytes is 400 validation_error, checked before it is read (extensions.md § 1). */
export function assertMetadataSize(value: string | undefined, max: number) {
  if (value !== undefined && new TextEncoder().encode(value).byteLength > max) {
    throw new ApiError("validation_error", `Upload-Metadata is at most ${max} bytes`, { fields: [{ path: "Upload-Metadata", message: `At most ${max} bytes` }] });
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(value: string): Uint8Array | null {
  if (!BASE64.test(value) || value.length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(value), (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Upload-Metadata: comma-separated `key base64value` pairs (a key alone is an empty value). Keys are unique and
 * free of spaces and commas; values are UTF-8.
 */
export function parseMetadata(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (value === undefined || value.trim() === "") return out;
  for (const pair of value.split(",")) {
    const [key, encoded, extra] = pair.trim().split(" ");
    if (!key || extra !== undefined) throw badHeader("Upload-Metadata", "Upload-Metadata is `key base64value` pairs separated by commas");
    if (out.has(key)) throw badHeader("Upload-Metadata", `Upload-Metadata names ${key} twice`);
    const bytes = decodeBase64(encoded ?? "");
    if (!bytes) throw badHeader("Upload-Metadata", `The value of ${key} in Upload-Metadata is not base64`);
    try {
      out.set(key, new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
    } catch {
      throw badHeader("Upload-Metadata", `The value of ${key} in Upload-Metadata is not UTF-8`);
    }
  }
  return out;
}

const ALGORITHMS: Record<string, ChecksumAlgorithm> = { sha1: "SHA-1", sha256: "SHA-256" };

/** Upload-Checksum: `<algorithm> <base64 digest>`; an algorithm not offered is 400 (tus checksum extension). */
export function parseChecksum(value: string | undefined): { algorithm: ChecksumAlgorithm; digest: Uint8Array } | null {
  if (value === undefined) return null;
  const [name, encoded, extra] = value.trim().split(" ");
  const algorithm = ALGORITHMS[name?.toLowerCase() ?? ""];
  if (!algorithm) throw badHeader("Upload-Checksum", `Upload-Checksum algorithms are ${TUS_CHECKSUM_ALGORITHMS}`);
  const digest = extra === undefined ? decodeBase64(encoded ?? "") : null;
  const expected = algorithm === "SHA-1" ? 20 : 32;
  if (!digest || digest.byteLength !== expected) throw badHeader("Upload-Checksum", `Upload-Checksum is \`${name} <base64 of the ${expected}-byte digest>\``);
  return { algorithm, digest };
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export const mediaType = (value: string | undefined) => value?.split(";")[0].trim().toLowerCase() ?? "";

/** Upload-Expires: an RFC 9110 HTTP-date. */
export const httpDate = (ms: number) => new Date(ms).toUTCString();
