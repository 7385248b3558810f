// Writes src/schema.gen.ts from the repository's docs/openapi.json (the committed copy of the live document) with
// openapi-typescript. `--check` writes nothing and fails when the committed file differs from what it would write,
// as the root's `types:check` does for worker-configuration.d.ts.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, "..");
const documentPath = path.resolve(packageDir, "../../docs/openapi.json");
const target = path.join(packageDir, "src/schema.gen.ts");
const check = process.argv.includes("--check");

// defaultNonNullable off: a property with a default is optional in a request body (the server fills it in); the
// document's `required` lists say what an answer always has.
const ast = await openapiTS(pathToFileURL(documentPath), { silent: true, defaultNonNullable: false });
const header = `${COMMENT_HEADER}// From docs/openapi.json. Do not edit: \`npm run types -w @imghost/client\` writes it again.\n\n`;
const fresh = header + astToString(ast);

if (!check) {
  writeFileSync(target, fresh);
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
} else {
  let committed = "";
  try {
    committed = readFileSync(target, "utf8");
  } catch {
    // missing counts as stale
  }
  if (committed.replace(/\r\n/g, "\n") !== fresh) {
    console.error("packages/client/src/schema.gen.ts is stale: run `npm run types -w @imghost/client` and commit the result.");
    process.exit(1);
  }
  console.log("packages/client/src/schema.gen.ts is up to date.");
}
