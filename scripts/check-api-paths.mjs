// `npm run check:paths` (CI): routes are said once (issue 40 § 1). The route files' createRoute (and registerPath)
// `path:` and their mountAt() base are the only API paths written in src/; everything else names an operation
// (@imghost/client's call/pathOf) or reads the routes. Fails on any other string, template or regex literal in
// src/ that starts with an API path prefix, taken from docs/openapi.json. It first checks itself against
// test/fixtures/api-paths/ (each `// planted` line must be found, nothing else).
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ALLOWED_FILES = new Set([]);
const ROUTE_CALLS = new Set(["createRoute", "defineRoute", "registerPath", "mountAt"]);
/** An expression that names the API's address (BASE_URL, API_BASE, a baseUrl), which a path may follow. */
const BASE = /(BASE_URL|API_BASE|base_?url|apiBase)\W*$/i;

/** The first segments of the document's paths: /files, /albums, /upload... */
export function apiPrefixes(document) {
  return [...new Set(Object.keys(document.paths).map((p) => p.split("/")[1]).filter(Boolean))].sort();
}

function pathPattern(prefixes) {
  const alt = prefixes.map((p) => p.replace(/[-.]/g, "\\$&")).join("|");
  return new RegExp(`^(/api/v1)?/(${alt})([/?{#]|$)`);
}

/** The call whose argument (or argument's property) `node` is: createRoute's `path:`, mountAt's base. */
function inRouteDeclaration(node) {
  let at = node.parent;
  if (ts.isPropertyAssignment(at)) {
    if (at.name.getText() !== "path") return false;
    at = at.parent?.parent; // object literal -> call
  }
  if (!at || !ts.isCallExpression(at)) return false;
  const callee = at.expression;
  const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : "";
  return ROUTE_CALLS.has(name);
}

/** Each literal of `text` (a .ts/.tsx file) that starts with an API path: { line, text }. */
export function findApiPaths(fileName, text, prefixes) {
  const pattern = pathPattern(prefixes);
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const report = (node, value) => found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: value });
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (pattern.test(node.text) && !inRouteDeclaration(node)) report(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      // `${env.BASE_URL}/files/${id}` builds one as surely as "/files/" + id does; `/app/albums/${id}/files` is a page.
      if (pattern.test(node.head.text)) report(node, node.head.text);
      for (const span of node.templateSpans) if (BASE.test(span.expression.getText()) && pattern.test(span.literal.text)) report(node, span.literal.text);
    } else if (ts.isRegularExpressionLiteral(node)) {
      const body = node.text.slice(1, node.text.lastIndexOf("/")).replace(/\\\//g, "/");
      const alternatives = body.replace(/^\^/, "").replace(/^\(/, "").split("|");
      if (alternatives.some((a) => pattern.test(a.replace(/^\^?\(?/, "")) || /api\/v1\//.test(a))) report(node, node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => path.join(e.parentPath, e.name));
}

function scan(dir, prefixes) {
  return sourceFiles(dir).flatMap((file) => {
    const rel = path.relative(root, file);
    if (ALLOWED_FILES.has(rel)) return [];
    return findApiPaths(file, readFileSync(file, "utf8"), prefixes).map((f) => ({ file: rel, ...f }));
  });
}

function selfTest(prefixes) {
  const dir = path.join(root, "test/fixtures/api-paths");
  const found = scan(dir, prefixes);
  const planted = sourceFiles(dir).flatMap((file) =>
    readFileSync(file, "utf8").split("\n").flatMap((l, i) => (l.includes("// planted") ? [`${path.relative(root, file)}:${i + 1}`] : [])),
  );
  const got = [...new Set(found.map((f) => `${f.file}:${f.line}`))];
  const missed = planted.filter((p) => !got.includes(p));
  const extra = got.filter((g) => !planted.includes(g));
  if (planted.length === 0 || missed.length || extra.length) {
    console.error(`check-api-paths's self-test failed: missed ${missed.join(", ") || "none"}; wrongly found ${extra.join(", ") || "none"}`);
    process.exit(2);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const prefixes = apiPrefixes(JSON.parse(readFileSync(path.join(root, "docs/openapi.json"), "utf8")));
  selfTest(prefixes);
  const found = scan(path.join(root, "src"), prefixes);
  for (const f of found) console.error(`${f.file}:${f.line}: an API path written by hand: ${f.text}`);
  if (found.length) {
    console.error(`\n${found.length} hand-written API path(s): name the operation (@imghost/client's call/pathOf) or read the routes.`);
    process.exit(1);
  }
  console.log(`No hand-written API path in src/ (prefixes from docs/openapi.json: /${prefixes.join(", /")}).`);
}
