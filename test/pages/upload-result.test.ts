// What the upload result pages say about finalize's analysis (the JavaScript uploader says the same).
import { describe, expect, it } from "vitest";
import { analysisSummary, type UploadAnswer } from "../../src/pages/app/upload-result";

const done: UploadAnswer = {
  fileId: "file_x",
  url: "http://localhost:8787/i/file_x",
  visibility: "public",
  width: 640,
  height: 480,
  nsfwScore: 0.0312,
  ageRestricted: false,
  duplicates: [{ fileId: "file_y", distance: 2, match: "similar" }],
  analysis: "done",
  analysisError: null,
};

describe("analysisSummary", () => {
  it("done: size, the NSFW verdict in words (never the raw score) and duplicates", () => {
    expect(analysisSummary(done)).toBe("Analysed: 640 × 480 · NSFW: not flagged · 1 duplicate among your files.");
    expect(analysisSummary({ ...done, nsfwScore: 0.91, ageRestricted: true, duplicates: [] })).toBe(
      "Analysed: 640 × 480 · NSFW: flagged 18+ · no duplicates among your files.",
    );
    // A moderator's flag on a file the model never scored; a file nobody scored nor flagged says nothing.
    expect(analysisSummary({ ...done, nsfwScore: null, ageRestricted: true, duplicates: [] })).toBe("Analysed: 640 × 480 · NSFW: flagged 18+ · no duplicates among your files.");
    expect(analysisSummary({ ...done, nsfwScore: null, duplicates: [] })).toBe("Analysed: 640 × 480 · no duplicates among your files.");
  });

  it("pending and failed", () => {
    expect(analysisSummary({ ...done, analysis: "pending" })).toBe("Still being analysed: its page shows the result in a moment.");
    expect(analysisSummary({ ...done, analysis: "failed", analysisError: "image too large: 20000x20000 is over 40 megapixels" })).toBe(
      "Not analysed: image too large: 20000x20000 is over 40 megapixels.",
    );
  });
});
