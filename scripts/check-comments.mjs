// Fails when a comment block under the given folders (default: src) is longer than 5 lines (issue 40 § 5: comments
// say why in at most 5 lines; what a subsystem is and how it works belongs in docs/, linked once). A block is a run
// of `//` lines, or one `/* ... */` block from its opening line to its closing one. Generated files (*.gen.ts,
// *.d.ts) are skipped. Usage: node scripts/check-comments.mjs [folder...]
import fs from "node:fs";
import path from "node:path";

const MAX_LINES = 5;

function sources(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts") && !e.name.includes(".gen.")) out.push(p);
  }
  return out;
}

function longBlocks(file) {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const found = [];
  let i = 0;
  while (i < lines.length) {
    const t = lines[i].trim();
    if (t.startsWith("//")) {
      let j = i;
      while (j < lines.length && lines[j].trim().startsWith("//")) j++;
      if (j - i > MAX_LINES) found.push({ line: i + 1, length: j - i });
      i = j;
      continue;
    }
    if (t.startsWith("/*")) {
      let j = i;
      while (j < lines.length && !lines[j].includes("*/")) j++;
      const n = j - i + 1;
      if (n > MAX_LINES) found.push({ line: i + 1, length: n });
      i = j + 1;
      continue;
    }
    i++;
  }
  return found;
}

const dirs = process.argv.slice(2);
const offending = [];
for (const dir of dirs.length ? dirs : ["src"]) {
  for (const file of sources(dir).sort()) {
    for (const b of longBlocks(file)) offending.push(`${file}:${b.line}: comment block of ${b.length} lines`);
  }
}
if (offending.length) {
  console.error(offending.join("\n"));
  const files = new Set(offending.map((o) => o.split(":")[0])).size;
  console.error(`\n${offending.length} comment block(s) over ${MAX_LINES} lines in ${files} file(s): keep the why, move the how to docs/.`);
  process.exit(1);
}
console.log(`No comment block over ${MAX_LINES} lines.`);
