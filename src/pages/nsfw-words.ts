// The NSFW analysis in words, as every page and the upload script say it. A raw score (0.52, 0.95) invites a
// reading the number cannot carry; what decides anything is whether the file is flagged (ageRestricted: the
// score at or above NSFW_THRESHOLD, or a moderator's call). Plain TypeScript: the browser script imports it too.

/** "flagged 18+" / "not flagged"; null when the file was never scored and nobody flagged it. */
export function nsfwWords(f: { nsfwScore: number | null; ageRestricted: boolean }): string | null {
  if (f.ageRestricted) return "flagged 18+";
  return f.nsfwScore === null ? null : "not flagged";
}
