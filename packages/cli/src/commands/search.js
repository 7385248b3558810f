// `imghost search <words>`: one page of GET /search, your files and albums best first, the matches highlighted.
import { note, out, pc } from "../output.js";
import { plural } from "../format.js";
import { EXIT, parseCount, withClient } from "./shared.js";

/** A snippet's marks (\u0002…\u0003) as bold on a terminal, or as *…* when colour is off. */
const highlight = (/** @type {string} */ snippet) => snippet.replace(/\u0002([^\u0003]*)\u0003/g, (_, word) => (pc.isColorSupported ? pc.bold(pc.yellow(word)) : `*${word}*`));

/** @param {import("commander").Command} program */
export function registerSearch(program) {
  program
    .command("search")
    .summary("find your files and albums by words")
    .description(
      'Search your files and albums: every word must match (title, description, tags, filename, alt text, album titles), the last one also as a prefix; "quoted phrases" as phrases. Best matches first.',
    )
    .argument("<words...>", "what to look for")
    .option("--json", "print one JSON object per line: each file and album as GET /search answers it, with kind: file or album")
    .option("--limit <n>", "at most this many files and this many albums (1 to 50)", (v) => parseCount(v, 1, 50), 20)
    .addHelpText("after", "\nExamples:\n  $ imghost search harbour dawn\n  $ imghost search '\"red fox\"' --json | jq -r .id")
    .action(withClient((context, words, options) => search(context, words.join(" "), options)));
}

/**
 * @param {import("./shared.js").CommandContext} context
 * @param {string} q
 * @param {{ json?: boolean; limit: number }} options
 */
async function search({ client }, q, options) {
  const { files, albums, pagination } = await client.search(q, { limit: options.limit });
  if (options.json) {
    for (const file of files) out(JSON.stringify({ kind: "file", ...file }));
    for (const album of albums) out(JSON.stringify({ kind: "album", ...album }));
    return EXIT.ok;
  }
  for (const file of files) out(`${file.id}  ${highlight(file.snippet)}${file.ageRestricted ? `  ${pc.yellow("18+")}` : ""}  ${pc.dim(file.url)}`);
  for (const album of albums) out(`${album.id}  ${pc.dim("album")}  ${highlight(album.snippet)}  ${pc.dim(plural(album.fileCount, "file"))}`);
  note(files.length + albums.length ? `${plural(pagination.total, "match", "matches")}${pagination.hasMore ? " (more: --limit)" : ""}` : `Nothing matches ${JSON.stringify(q)}.`);
  return EXIT.ok;
}
