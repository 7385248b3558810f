// What the upload pages say about each uploaded image: its links and what finalize's analysis found (size,
// NSFW score, duplicates among the uploader's files), or that it is still being analysed. The JavaScript
// uploader (assets/client.ts, analysisSummary) says the same in the browser.

/** The parts of POST /upload/form's answer (a finalize response) these pages show. */
export type UploadAnswer = {
  fileId: string;
  url: string;
  width: number | null;
  height: number | null;
  nsfwScore: number | null;
  ageRestricted: boolean;
  duplicates: { fileId: string; distance: number; match: "exact" | "similar"; signal?: "phash" | "embedding" }[];
  analysis: "pending" | "done" | "failed";
  analysisError: string | null;
};

export type UploadOutcome = { name: string; ok: true; answer: UploadAnswer } | { name: string; ok: false; text: string };

export function analysisSummary(a: UploadAnswer): string {
  if (a.analysis === "failed") return `Not analysed: ${a.analysisError || "the image could not be read"}.`;
  if (a.analysis !== "done") return "Still being analysed: its page shows the result in a moment.";
  const parts = [`Analysed: ${a.width} × ${a.height}`];
  if (a.nsfwScore !== null) parts.push(`NSFW score ${a.nsfwScore.toFixed(2)}${a.ageRestricted ? " (age-restricted)" : ""}`);
  const n = a.duplicates.length;
  parts.push(n === 0 ? "no duplicates among your files" : n === 1 ? "1 duplicate among your files" : `${n} duplicates among your files`);
  return `${parts.join(" · ")}.`;
}

export function UploadResults(props: { siteUrl: string; results: UploadOutcome[] }) {
  return (
    <ul class="queue">
      {props.results.map((r) => {
        if (!r.ok) {
          return (
            <li class="failed">
              <strong>{r.name}</strong>: <span role="alert">{r.text}</span>
            </li>
          );
        }
        const page = `${props.siteUrl}/f/${r.answer.fileId}`;
        return (
          <li>
            <strong>{r.name}</strong>: uploaded: <a href={page}>{page}</a> (direct link <code>{r.answer.url}</code>)
            <p class="muted analysis">{analysisSummary(r.answer)}</p>
            {r.answer.duplicates.map((d) => (
              <p class="muted">
                {d.match === "exact" ? "Identical to " : d.signal === "embedding" ? "Similar (cropped or turned) to " : `Similar to (distance ${d.distance}) `}
                <a href={`/f/${d.fileId}`}>{d.fileId}</a>
              </p>
            ))}
          </li>
        );
      })}
    </ul>
  );
}
