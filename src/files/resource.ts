// The File resource as the API shows it: the full resource (GET/PATCH /files/:id) and the list item
// (GET /files, album `files`). Timestamps leave as ISO strings, URLs are built from the configured addresses.
import type { FileRow } from "../db/schema";
import { cdnUrl, fileUrl, thumbnailUrl } from "../platform/http/urls";
import { isAgeRestricted } from "../serving/access";
import type { Duplicate } from "./duplicates";
import { ladderUrls } from "../serving/variants";

/** The analysis column has a `none` state for files whose analysis was never queued; clients see `pending`. */
function analysisState(f: FileRow): "pending" | "done" | "failed" {
  return f.analysis === "done" || f.analysis === "failed" ? f.analysis : "pending";
}

/** The server's score once analysis ran; until then the client's hint (never lower than the server's). */
function nsfwScore(f: FileRow): number | null {
  if (f.nsfwScore === null) return f.clientNsfwScore ?? null;
  return Math.max(f.nsfwScore, f.clientNsfwScore ?? 0);
}

export function fileResource(env: Env, f: FileRow, extra: { duplicates: Duplicate[]; owner: boolean }) {
  return {
    id: f.id,
    url: fileUrl(env, f.id),
    cdnUrl: cdnUrl(env, f.storeKey),
    thumbnailUrl: thumbnailUrl(env, f.id),
    title: f.title,
    description: f.description,
    alt: f.alt,
    mime: f.mime,
    bytes: f.bytes,
    width: f.width,
    height: f.height,
    visibility: f.visibility,
    viewCount: f.viewCount,
    downloadCount: f.downloadCount,
    nsfwScore: nsfwScore(f),
    ageRestricted: isAgeRestricted(f),
    tags: f.tags,
    hotlinkPolicy: f.hotlinkPolicy,
    // The owner's list of allowed sites is theirs to know.
    ...(extra.owner ? { hotlinkDomains: f.hotlinkDomains } : {}),
    phash: f.phash ?? f.clientPhash ?? null,
    duplicates: extra.duplicates,
    analysis: analysisState(f),
    placeholder: f.placeholder,
    dominantColor: f.dominantColor,
    variants: ladderUrls(env, f),
    createdAt: f.createdAt.toISOString(),
    expiresAt: f.expiresAt ? f.expiresAt.toISOString() : null,
  };
}

export type FileResource = ReturnType<typeof fileResource>;

export type FileListRow = Pick<FileRow, "id" | "title" | "mime" | "bytes" | "width" | "height" | "viewCount" | "visibility" | "placeholder" | "dominantColor" | "createdAt" | "ageRestricted">;

export function fileListItem(env: Env, f: FileListRow) {
  return {
    id: f.id,
    url: fileUrl(env, f.id),
    thumbnailUrl: thumbnailUrl(env, f.id),
    title: f.title,
    mime: f.mime,
    bytes: f.bytes,
    width: f.width,
    height: f.height,
    viewCount: f.viewCount,
    visibility: f.visibility,
    placeholder: f.placeholder,
    dominantColor: f.dominantColor,
    ageRestricted: f.ageRestricted,
    createdAt: f.createdAt.toISOString(),
  };
}

export type FileListItem = ReturnType<typeof fileListItem>;
