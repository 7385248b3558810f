// `imghost album create` and `imghost album add`.
import { Option } from "commander";
import { describeError } from "../client.js";
import { fail, note, out } from "../output.js";
import { plural } from "../format.js";
import { EXIT, withClient } from "./shared.js";

/** @param {import("commander").Command} program */
export function registerAlbum(program) {
  const album = program
    .command("album")
    .summary("create albums and add files to them")
    .description("Create albums and add files to them (the API key needs the manage permission).")
    .addHelpText("after", "\nExamples:\n  $ imghost album create \"Holiday 2026\"\n  $ imghost album add alb_V1StGXR8_Z5jdHi6B-myT file_V1StGXR8_Z5jdHi6B-myT file_Uakgb_J5m9g-0JDMbcJqL");

  album
    .command("create")
    .summary("create an album")
    .description("Create an album and print its id and address.")
    .argument("<title>", "the album's title")
    .option("--description <text>", "a description shown on the album's page")
    .addOption(new Option("--visibility <visibility>", "who can see the album").choices(["public", "unlisted", "private"]))
    .option("--json", "print the created album as one JSON object")
    .addHelpText("after", "\nExamples:\n  $ imghost album create \"Holiday 2026\" --visibility unlisted\n  $ id=$(imghost album create Screenshots --json | jq -r .id)")
    .action(withClient(create));

  album
    .command("add")
    .summary("add files to an album")
    .description("Add files to an album you own.")
    .argument("<album>", "the album's id (alb_...)")
    .argument("<ids...>", "file ids (file_...)")
    .addHelpText("after", "\nExamples:\n  $ imghost album add alb_V1StGXR8_Z5jdHi6B-myT file_V1StGXR8_Z5jdHi6B-myT")
    .action(withClient(add));
}

/**
 * @param {import("./shared.js").CommandContext} context
 * @param {string} title
 * @param {{ description?: string; visibility?: string; json?: boolean }} options
 */
async function create({ client }, title, options) {
  const album = await client.albums.create({ title, description: options.description, visibility: options.visibility });
  if (options.json) out(JSON.stringify(album));
  else out(`Created album ${album.id}${typeof album.url === "string" ? `  ${album.url}` : ""}`);
  return EXIT.ok;
}

/**
 * The server skips ids it does not add (unknown, not the caller's, already there) and only counts them. When it
 * skipped some, the album's files tell which ids are in it; any other id failed, so the exit status is 1 (the
 * README's rule: anything that failed). Ids already in the album are not failures.
 * @param {import("./shared.js").CommandContext} context
 * @param {string} albumId
 * @param {string[]} ids
 */
async function add({ client }, albumId, ids) {
  const unique = [...new Set(ids)];
  const answer = /** @type {{ added?: unknown; requested?: unknown }} */ (await client.albums.addFiles(albumId, unique));
  const added = typeof answer?.added === "number" ? answer.added : unique.length;
  out(`Added ${plural(added, "file")} to ${albumId}`);
  if (added >= unique.length) return EXIT.ok;
  let missing;
  try {
    missing = await notInAlbum(client, albumId, unique);
  } catch (err) {
    // Without `read` the album cannot be looked at: the skipped ids may only have been there already.
    fail(`${unique.length - added} of ${plural(unique.length, "file id")} not added (already in the album, unknown, or not yours), and the album could not be read to tell which: ${describeError(err)}`);
    return EXIT.failed;
  }
  for (const id of missing) fail(`${id}: not added: no such file of yours (unknown, deleted, or someone else's)`);
  const already = unique.length - added - missing.length;
  if (already > 0) note(`${plural(already, "file")} ${already === 1 ? "was" : "were"} in the album already.`);
  return missing.length ? EXIT.failed : EXIT.ok;
}

/** The ids among `ids` that the album does not hold. */
async function notInAlbum(/** @type {import("./shared.js").ImghostClient} */ client, /** @type {string} */ albumId, /** @type {string[]} */ ids) {
  const wanted = new Set(ids);
  for await (const file of client.files.list({ albumId })) wanted.delete(file.id);
  return [...wanted];
}
