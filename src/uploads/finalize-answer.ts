// Finalize's answer, and what of it is stored (uploads.finalize_response) so a repeated finalize answers the same
// body (decisions.md § Uploads). Only what the files row may no longer hold is stored: what can change after finalize
// (visibility and expiry by PATCH, score and size by the analysis, the hints) and the exact duplicates' ids as found.
// The rest follows from the file's unchanging fields: ~130 bytes instead of ~450 an upload (bench/README.md § d1-bytes).
import type { FileRow } from "../db/schema";
import type { Duplicate } from "../analysis/duplicates";
import { cdnUrl, fileUrl } from "../platform/http/urls";

export type FinalizeResponse = {
  fileId: string;
  url: string;
  cdnUrl: string;
  mime: string;
  bytes: number;
  width: number | null;
  height: number | null;
  nsfwScore: number | null;
  ageRestricted: boolean;
  visibility: string;
  expiresAt: string | null;
  phash: string | null;
  duplicates: Duplicate[];
  /** The server's analysis: `pending` past the wait, `done` with its results, `failed` with the reason. */
  analysis: "pending" | "done" | "failed";
  analysisError: string | null;
  /** Base64 ThumbHash and `#rrggbb`, once the analysis is done (analysis/placeholder.ts). */
  placeholder: string | null;
  dominantColor: string | null;
};

/** What is stored of the answer finalize gave. */
export type StoredFinalize = Pick<FinalizeResponse, "width" | "height" | "nsfwScore" | "ageRestricted" | "visibility" | "expiresAt" | "phash"> & {
  /** The exact duplicates' file ids, in the answer's order. */
  duplicates: string[];
};

export function storedFinalize(body: FinalizeResponse): StoredFinalize {
  const { width, height, nsfwScore, ageRestricted, visibility, expiresAt, phash } = body;
  return { width, height, nsfwScore, ageRestricted, visibility, expiresAt, phash, duplicates: body.duplicates.map((d) => d.fileId) };
}

/** A whole answer stored by the code before the stored part shrank (migration 0007 converts the rows it found). */
const isWholeAnswer = (stored: object): stored is FinalizeResponse => "fileId" in stored;

/** The answer finalize gave for `file`, from what was stored of it. */
export function storedAnswer(env: Env, file: FileRow, stored: StoredFinalize | FinalizeResponse): FinalizeResponse {
  if (isWholeAnswer(stored)) return stored;
  return {
    fileId: file.id,
    url: fileUrl(env, file.id),
    cdnUrl: cdnUrl(env, file.storeKey),
    mime: file.mime,
    bytes: file.bytes,
    width: stored.width,
    height: stored.height,
    nsfwScore: stored.nsfwScore,
    ageRestricted: stored.ageRestricted,
    visibility: stored.visibility,
    expiresAt: stored.expiresAt,
    phash: stored.phash,
    duplicates: stored.duplicates.map((id) => ({ fileId: id, url: fileUrl(env, id), distance: 0, match: "exact" })),
    analysis: "pending",
    analysisError: null,
    placeholder: null,
    dominantColor: null,
  };
}
