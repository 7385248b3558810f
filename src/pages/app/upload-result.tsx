// What the upload pages say about each uploaded image: its thumbnail (an owner link: a private file's plain link
// is 404 to the browser), its links and what finalize's analysis found (size, the NSFW verdict in words,
// duplicates among the uploader's files), or that it is still being analysed. The JavaScript uploader
// (client/upload-result.ts) says the same in the browser.
import { GridImage, type LinkOf } from "../picture";
import { nsfwWords } from "../nsfw-words";
import { config } from "../../config/env";

/** The parts of POST /upload/form's answer (a finalize response) these pages show. */
export type UploadAnswer = {
  fileId: string;
  url: string;
  visibility: "public" | "unlisted" | "private";
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
  const nsfw = nsfwWords(a);
  if (nsfw) parts.push(`NSFW: ${nsfw}`);
  const n = a.duplicates.length;
  parts.push(n === 0 ? "no duplicates among your files" : n === 1 ? "1 duplicate among your files" : `${n} duplicates among your files`);
  return `${parts.join(" · ")}.`;
}

export function UploadResults(props: { env: Env; results: UploadOutcome[]; link: LinkOf }) {
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
        const page = `${config(props.env).siteUrl}/f/${r.answer.fileId}`;
        return (
          <li>
            <GridImage env={props.env} file={{ id: r.answer.fileId }} alt={`Preview of ${r.name}`} size={120} link={props.link} />
            <strong>{r.name}</strong>: uploaded: <a href={page}>{page}</a> (direct link <code>{r.answer.url}</code>)
            {r.answer.visibility === "private" ? <p class="muted">Private: its links answer “Not found” to everyone but you.</p> : null}
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
