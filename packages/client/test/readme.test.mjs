// Issue 37: the README's client example, run as written (only its address is the test server's) with the key the
// README tells people to make (read and upload, no manage): the photo is uploaded with its title and tags and the
// caller learns its id. With `upload` alone the upload does the same (the listing after it needs `read`). And
// files.list() shows the caller's own age-restricted files, which the API leaves out by default.
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createClient } from "@imghost/client";
import { makePng, newUser, recordingFetch, startServer, uploadFlagged, within } from "./support.mjs";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PHOTO = path.join(ROOT, "test/fixtures/images/photos/coffee.jpg");

let server;

beforeAll(async () => {
  server = await startServer(32);
});

afterAll(async () => {
  await server?.worker.stop();
});

/** The README's TypeScript block under "### From code", as written. */
function readmeExample() {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### From code"));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("README.md: no ```ts block under ### From code");
  return block[1];
}

/**
 * Runs the example as a user's script: an .mjs file beside a `holiday.jpg` (a real photo), in a folder inside the
 * package so `@imghost/client` resolves as the workspace links it, with the key in IMGHOST_API_KEY.
 */
function runExample(key) {
  const code = readmeExample();
  expect(code).toContain('"http://localhost:8787/api/v1"');
  const dir = mkdtempSync(path.join(fileURLToPath(new URL("..", import.meta.url)), ".readme-example-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "example.mjs"), code.replace('"http://localhost:8787/api/v1"', JSON.stringify(server.baseUrl)));
  copyFileSync(PHOTO, path.join(dir, "holiday.jpg"));
  const child = spawn(process.execPath, ["example.mjs"], { cwd: dir, env: { PATH: process.env.PATH, IMGHOST_API_KEY: key }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  const done = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return within("the README example", done, 120_000, () => child.kill("SIGKILL"));
}

/** The id the example printed (`file.fileId, file.url`), and the file as its owner reads it. */
async function printedFile(stdout, access) {
  const line = stdout.split("\n").find((l) => /^file_\S+ http/.test(l));
  expect(line, stdout).toBeDefined();
  const [fileId, url] = line.split(" ");
  const res = await fetch(`${server.baseUrl}/files/${fileId}`, { headers: { authorization: `Bearer ${access}` } });
  expect(res.status).toBe(200);
  return { fileId, url, file: await res.json() };
}

describe("the README's client example", () => {
  it("with a read+upload key: uploads with title and tags, prints the id, lists the file by its tag; no error", async () => {
    const user = await newUser(server, ["read", "upload"]);
    const run = await runExample(user.key);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const size = readFileSync(PHOTO).length;
    expect(run.stdout).toContain(`${size} / ${size}`);
    const { fileId, url, file } = await printedFile(run.stdout, user.access);
    expect(file).toMatchObject({ id: fileId, url, title: "Holiday", tags: ["2026"] });
    expect(run.stdout).toMatch(new RegExp(`^${fileId} Holiday ${url.replace(/[.?]/g, "\\$&")}`, "m"));
  });

  it("with an `upload`-only key: the same upload, title, tags and id; only the listing after it is refused (403, needs read)", async () => {
    const user = await newUser(server, ["upload"]);
    const run = await runExample(user.key);
    expect(run.code).toBe(0);
    const { file } = await printedFile(run.stdout, user.access);
    expect(file).toMatchObject({ title: "Holiday", tags: ["2026"] });
    expect(run.stderr).toMatch(/^403 missing_permission .*read.* \(request \S+\)/);
  });
});

describe("files.list(): the caller's own 18+ files", () => {
  it("are listed, marked ageRestricted (excludeNsfw=false is sent); excludeNsfw: true leaves them out", async () => {
    const user = await newUser(server, ["read", "upload"]);
    const recorder = recordingFetch();
    const c = createClient({ baseUrl: server.baseUrl, apiKey: user.key, fetch: recorder.fetch });
    const plain = (await within("upload", c.upload(makePng(12, 12, 71), { filename: "plain.png" }), 60_000)).fileId;
    const flagged = await within("flagged upload", uploadFlagged(server.baseUrl, user.key, makePng(13, 12, 72)), 60_000);
    const all = [];
    for await (const f of c.files.list()) all.push(f);
    expect(all.map((f) => [f.id, f.ageRestricted])).toEqual([
      [flagged, true],
      [plain, false],
    ]);
    expect(new URL(recorder.requests.at(-1).url).searchParams.get("excludeNsfw")).toBe("false");
    const safe = [];
    for await (const f of c.files.list({ excludeNsfw: true })) safe.push(f.id);
    expect(safe).toEqual([plain]);
  });
});
