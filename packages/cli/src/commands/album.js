// `imghost album create` and `imghost album add`.
import { Option } from "commander";
import { note, out } from "../output.js";
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
 * The server skips ids it does not add (unknown, not the caller's, already there): the count tells.
 * @param {import("./shared.js").CommandContext} context
 * @param {string} albumId
 * @param {string[]} ids
 */
async function add({ client }, albumId, ids) {
  const answer = /** @type {{ added?: unknown; requested?: unknown }} */ (await client.albums.addFiles(albumId, ids));
  const added = typeof answer?.added === "number" ? answer.added : ids.length;
  out(`Added ${plural(added, "file")} to ${albumId}`);
  const skipped = ids.length - added;
  if (skipped > 0) note(`${skipped} of ${plural(ids.length, "file id")} ${skipped === 1 ? "was" : "were"} not added: already in the album, unknown, or not yours.`);
  return EXIT.ok;
}
