// Writes src/schema.gen.ts from the repository's docs/openapi.json (the committed copy of the live document) with
// openapi-typescript, and src/operations.gen.ts, each operationId's method and path (operations.ts's door). `--check`
// writes nothing and fails when a committed file differs from what it would write, as the root's `types:check` does
// for worker-configuration.d.ts.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, "..");
const documentPath = path.resolve(packageDir, "../../docs/openapi.json");
const schemaTarget = path.join(packageDir, "src/schema.gen.ts");
const operationsTarget = path.join(packageDir, "src/operations.gen.ts");
const check = process.argv.includes("--check");

// defaultNonNullable off: a property with a default is optional in a request body (the server fills it in); the
// document's `required` lists say what an answer always has.
const ast = await openapiTS(pathToFileURL(documentPath), { silent: true, defaultNonNullable: false });
const header = `${COMMENT_HEADER}// From docs/openapi.json. Do not edit: \`npm run types -w @imghost/client\` writes it again.\n\n`;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const document = JSON.parse(readFileSync(documentPath, "utf8"));
const operations = Object.entries(document.paths).flatMap(([route, item]) =>
  METHODS.filter((m) => item[m]?.operationId).map((m) => `  ${JSON.stringify(item[m].operationId)}: { method: "${m}", path: ${JSON.stringify(route)} },`),
);
const files = [
  [schemaTarget, header + astToString(ast)],
  [
    operationsTarget,
    `// From docs/openapi.json by scripts/generate-types.mjs. Do not edit: \`npm run types -w @imghost/client\` writes it again.\n\nimport type { paths } from "./schema.gen.js";\n\n/** Each operationId of the API, its method and its path. */\nexport const operations = {\n${operations.join("\n")}\n} as const satisfies Record<string, { method: string; path: keyof paths }>;\n`,
  ],
];

for (const [target, fresh] of files) {
  if (!check) {
    writeFileSync(target, fresh);
    console.log(`wrote ${path.relative(process.cwd(), target)}`);
    continue;
  }
  let committed = "";
  try {
    committed = readFileSync(target, "utf8");
  } catch {
    // missing counts as stale
  }
  const name = path.relative(packageDir, target);
  if (committed.replace(/\r\n/g, "\n") !== fresh) {
    console.error(`packages/client/${name} is stale: run \`npm run types -w @imghost/client\` and commit the result.`);
    process.exit(1);
  }
  console.log(`packages/client/${name} is up to date.`);
}
