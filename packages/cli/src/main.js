// The `imghost` program: its commands, global options and help (commander).
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerAlbum } from "./commands/album.js";
import { registerFiles } from "./commands/files.js";
import { registerLogin } from "./commands/login.js";
import { EXIT } from "./commands/shared.js";
import { registerSearch } from "./commands/search.js";
import { registerUpload } from "./commands/upload.js";
import { registerStats } from "./commands/stats.js";
import { redact } from "./output.js";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

export function buildProgram() {
  const program = new Command("imghost")
    .description("Upload, list and share images on an imghost server.")
    .version(version, "-V, --version", "print the version")
    .option("--base <url>", "the server's API address, e.g. https://img.example.com/api/v1 (else IMGHOST_BASE_URL, else what `imghost login` saved)")
    .option("--key <key>", "the API key (else IMGHOST_API_KEY, else what `imghost login` saved)")
    .option("--debug", "log each request (method, address, status, request id) to stderr; never the key")
    .helpOption("-h, --help", "show help for a command")
    .helpCommand("help [command]", "show help for a command")
    .showHelpAfterError("(run `imghost --help` or `imghost <command> --help` for usage)")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    // Everything commander writes passes the same filter as ours: a key typed in the wrong place is not echoed.
    .configureOutput({ writeOut: (s) => process.stdout.write(redact(s)), writeErr: (s) => process.stderr.write(redact(s)) })
    .exitOverride();

  registerLogin(program);
  registerUpload(program);
  registerFiles(program);
  registerSearch(program);
  registerAlbum(program);
  registerStats(program);

  program.addHelpText(
    "after",
    `
Examples:
  $ imghost login
  $ imghost upload ./holiday --tags holiday
  $ imghost upload "shots/*.png" --json | jq -r .url
  $ imghost ls
  $ imghost search harbour dawn
  $ imghost open file_V1StGXR8_Z5jdHi6B-myT
  $ imghost stats

Settings: --base and --key, else IMGHOST_BASE_URL and IMGHOST_API_KEY, else what \`imghost login\` saved.
Exit status: 0 when everything succeeded, 1 when anything failed (stderr says why), 2 for a wrong command line.`,
  );
  return program;
}

/** Runs the command line; returns the exit status. */
export async function main(/** @type {string[]} */ argv) {
  const program = buildProgram();
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with code 0; every other commander error is a wrong command line.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw err;
  }
  return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
}
