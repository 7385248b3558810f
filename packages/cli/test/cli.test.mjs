// The `imghost` command line end to end (extensions.md § 6, issue 28): the real bin as a child process, with a
// temporary HOME and config folder, against `wrangler dev` with its local D1, R2, Durable Objects and queues.
// One user for the suite, with a read/upload/manage key; every run's output is checked for that key.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appVars, startWorker, within } from "../../../bench/lib/index.mjs";
import { benchUser } from "../../../bench/lib/users.mjs";
import { boundedFetch, scratchDir, suitePort } from "../../../test/browser/support.mjs";
import { api, configPath, imghost, jsonLines, revokedKey, writePngs } from "./support.mjs";

const PORT = suitePort(21);
const FINALIZE_FIELDS = ["fileId", "url", "cdnUrl", "mime", "bytes", "width", "height", "nsfwScore", "ageRestricted", "visibility", "expiresAt", "phash", "duplicates", "analysis"];

let worker;
let base;
let user;
let home;

beforeAll(async () => {
  // Uploads per hour are counted per user: the suite's few dozen stay far inside the multiplied limit.
  worker = await startWorker({ config: "wrangler.toml", port: PORT, vars: { ...appVars(PORT), ENVIRONMENT: "development", RATE_LIMIT_MULTIPLIER: "10" } });
  base = `${worker.url}/api/v1`;
  user = await within("signing up a user with a read/upload/manage key", benchUser(worker, ["read", "upload", "manage"]), 60_000);
  home = mkdtempSync(path.join(tmpdir(), "imghost-cli-home-"));
  const login = await run(["login", "--base", base, "--key", user.key]);
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await worker?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** `imghost ...args` as the logged-in user; no output may hold an API key. */
async function run(args, options = {}) {
  const result = await imghost(args, { home, ...options });
  for (const secret of [user.key, ...(options.secrets ?? [])]) {
    expect(result.stdout, "stdout holds no key").not.toContain(secret);
    expect(result.stderr, "stderr holds no key").not.toContain(secret);
  }
  return result;
}

/** The bytes behind a link, as a stranger fetches them. */
async function bytesAt(url) {
  const res = await boundedFetch(url);
  expect(res.status, url).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe("imghost against wrangler dev", () => {
  it("login keeps the base URL and the key in the config folder, mode 0600, checks the key, and never prints it", async () => {
    const file = configPath(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ baseUrl: base, apiKey: user.key });

    // The key piped in, as a script logs in without putting it on the command line.
    const piped = await run(["login", "--base", worker.url], { input: `${user.key}\n` });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain(`Logged in to ${base}`);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ baseUrl: base, apiKey: user.key });

    // A key the server refuses is not saved.
    const wrong = "pk_" + "1".repeat(32);
    const refused = await run(["login", "--base", base, "--key", wrong], { secrets: [wrong] });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Invalid API key.*code invalid_api_key, HTTP 401, request id \S+/);
    expect(JSON.parse(readFileSync(file, "utf8")).apiKey).toBe(user.key);
  });

  it("upload by path and by glob: a line with the link of each file, the bytes stored as sent", async () => {
    const dir = scratchDir("imghost-cli-glob-");
    const [single] = writePngs(dir, ["single.png"], 1);
    const globbed = writePngs(path.join(dir, "shots"), ["a.png", "b.png", "c.png"], 2);

    const result = await run(["upload", "single.png", "shots/*.png", "--concurrency", "2"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(4);
    const sources = [single, ...globbed];
    for (const [i, line] of lines.entries()) {
      expect(line).toContain(path.relative(dir, sources[i]));
      const link = /(http:\/\/\S+\/i\/file_\S+)/.exec(line)?.[1];
      expect(link, line).toBeDefined();
      expect((await bytesAt(link)).equals(readFileSync(sources[i]))).toBe(true);
    }
    expect(result.stderr).toMatch(/Uploaded 4 files \(.+\) in /);
  });

  it("upload --json prints one finalize body a line and nothing else on stdout; a folder uploads its images", async () => {
    const dir = scratchDir("imghost-cli-json-");
    const sources = writePngs(path.join(dir, "folder"), ["one.png", "two.png", "deeper/three.png"], 4);
    const result = await run(["upload", "folder", "--json", "--tags", "cli,json", "--visibility", "unlisted"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const bodies = jsonLines(result.stdout);
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      for (const field of FINALIZE_FIELDS) expect(body, field).toHaveProperty(field);
      expect(body).toMatchObject({ mime: "image/png", visibility: "unlisted" });
      const source = sources.find((s) => body.cdnUrl.endsWith(`/${path.basename(s)}`));
      expect(body.bytes).toBe(readFileSync(source).length);
      const stored = await api(base, user.key, "GET", `/files/${body.fileId}`);
      expect(stored.body).toMatchObject({ id: body.fileId, bytes: body.bytes, visibility: "unlisted", tags: ["cli", "json"] });
    }
  });

  it("ls --json lists every file over several pages", async () => {
    const dir = scratchDir("imghost-cli-ls-");
    writePngs(dir, ["l1.png", "l2.png", "l3.png"], 9);
    expect((await run(["upload", dir])).code).toBe(0);
    const listed = await api(base, user.key, "GET", "/files?limit=100");
    const expected = listed.body.files.map((f) => f.id).sort();
    expect(expected.length).toBeGreaterThanOrEqual(3);
    const result = await run(["ls", "--json", "--page-size", "2"]);
    expect(result.code, result.stderr).toBe(0);
    const files = jsonLines(result.stdout);
    expect(files.map((f) => f.id).sort()).toEqual(expected);
    expect(files[0]).toMatchObject({ id: expect.stringMatching(/^file_/), url: expect.any(String), bytes: expect.any(Number) });

    const table = await run(["ls"]);
    expect(table.code).toBe(0);
    for (const id of expected) expect(table.stdout).toContain(id);
    expect(table.stderr).toContain(`${expected.length} files`);
  });

  it("search prints the matching files with their snippets (--json: one object a line); ls --color orders by colour", async () => {
    const dir = scratchDir("imghost-cli-search-");
    writePngs(dir, ["s1.png", "s2.png"], 13);
    expect((await run(["upload", dir])).code).toBe(0);
    const ids = (await api(base, user.key, "GET", "/files?limit=2")).body.files.map((f) => f.id);
    expect((await api(base, user.key, "PATCH", `/files/${ids[0]}`, { title: "Lighthouse at dusk" })).status).toBe(200);
    const table = await run(["search", "lighthouse", "dus"], { env: { NO_COLOR: "1" } });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(ids[0]);
    expect(table.stdout).toContain("*Lighthouse* at *dusk*");
    const json = await run(["search", "--json", "lighthouse"]);
    expect(jsonLines(json.stdout)).toEqual([expect.objectContaining({ kind: "file", id: ids[0], snippet: "\u0002Lighthouse\u0003 at dusk" })]);
    const none = await run(["search", "nothing-like-this"]);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain("Nothing matches");
    const byColour = await run(["ls", "--json", "--color", "#ff0000"]);
    expect(byColour.code, byColour.stderr).toBe(0);
    expect(jsonLines(byColour.stdout).length).toBeGreaterThanOrEqual(2);
    expect((await run(["ls", "--color", "red"])).code).toBe(2);
  });

  it("rm deletes files; an unknown id fails with the contract's code and request id, the others still deleted", async () => {
    const dir = scratchDir("imghost-cli-rm-");
    writePngs(dir, ["gone.png"], 5);
    const [uploaded] = jsonLines((await run(["upload", "gone.png", "--json"], { cwd: dir })).stdout);
    const result = await run(["rm", "file_doesnotexist000000000", uploaded.fileId]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Deleted ${uploaded.fileId}`);
    expect(result.stderr).toMatch(/file_doesnotexist000000000: .*code file_not_found, HTTP 404, request id \S+/);
    expect([404, 410]).toContain((await api(base, user.key, "GET", `/files/${uploaded.fileId}`)).status);
  });

  it("album create, album add and upload --album put files in a new album", async () => {
    const dir = scratchDir("imghost-cli-album-");
    writePngs(dir, ["x.png", "y.png"], 6);
    const files = jsonLines((await run(["upload", "x.png", "y.png", "--json"], { cwd: dir })).stdout);
    const created = await run(["album", "create", "CLI album", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const [album] = jsonLines(created.stdout);
    expect(album).toMatchObject({ id: expect.stringMatching(/^alb_/), title: "CLI album" });

    const added = await run(["album", "add", album.id, ...files.map((f) => f.fileId)]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Added 2 files to ${album.id}`);
    const stored = await api(base, user.key, "GET", `/albums/${album.id}`);
    expect(stored.body.files.map((f) => f.id).sort()).toEqual(files.map((f) => f.fileId).sort());

    // upload --album puts new files there; an album that is not the caller's stops the upload before any file.
    writePngs(dir, ["z.png"], 16);
    const [third] = jsonLines((await run(["upload", "z.png", "--album", album.id, "--json"], { cwd: dir })).stdout);
    expect((await api(base, user.key, "GET", `/albums/${album.id}`)).body.files.map((f) => f.id)).toContain(third.fileId);
    const before = (await api(base, user.key, "GET", "/files?limit=1")).body.pagination.total;
    const wrongAlbum = await run(["upload", "z.png", "--album", "alb_notmine0000000000000"], { cwd: dir });
    expect(wrongAlbum.code).toBe(1);
    expect(wrongAlbum.stderr).toContain("album alb_notmine0000000000000 is not one of your albums");
    expect((await api(base, user.key, "GET", "/files?limit=1")).body.pagination.total).toBe(before);

    const human = await run(["album", "create", "Second"]);
    expect(human.stdout).toMatch(/^Created album alb_\S+ {2}http:\/\/\S+\/a\/alb_\S+\n$/);
  });

  it("a revoked key (over the saved one, from IMGHOST_API_KEY or --key) fails clearly, non-zero, without printing it", async () => {
    const dir = scratchDir("imghost-cli-revoked-");
    writePngs(dir, ["r1.png", "r2.png"], 7);
    const revoked = await revokedKey(base, user.access);
    const upload = await run(["upload", "r1.png", "r2.png"], { cwd: dir, env: { IMGHOST_API_KEY: revoked.key }, secrets: [revoked.key] });
    expect(upload.code).toBe(1);
    expect(upload.stdout).toBe("");
    expect(upload.stderr).toMatch(/API key has been revoked.*code api_key_revoked, HTTP 401, request id \S+.*imghost login/);
    expect(upload.stderr).toMatch(/Uploaded 0 of 2 files/);

    const list = await run(["--debug", "ls", "--key", revoked.key], { secrets: [revoked.key] });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain("debug: ← 401 GET");
    expect(list.stderr).toMatch(/API key has been revoked.*code api_key_revoked/);
  });

  it("a failing file among good ones: the others are uploaded, the exit status is 1 and stderr says why", async () => {
    const dir = scratchDir("imghost-cli-mixed-");
    const good = writePngs(dir, ["good1.png", "good2.png"], 8);
    writeFileSync(path.join(dir, "broken.png"), "this is text, not a PNG\n");
    const result = await run(["upload", "good1.png", "broken.png", "good2.png", "missing.png", "--json"], { cwd: dir });
    expect(result.code).toBe(1);
    const bodies = jsonLines(result.stdout);
    expect(bodies.map((b) => b.bytes).sort()).toEqual(good.map((g) => readFileSync(g).length).sort());
    for (const body of bodies) expect((await api(base, user.key, "GET", `/files/${body.fileId}`)).status).toBe(200);
    expect(result.stderr).toMatch(/broken\.png: .*code magic_mismatch, HTTP 415, request id \S+/);
    expect(result.stderr).toMatch(/missing\.png: no such file or folder/);
    expect(result.stderr).toMatch(/Uploaded 2 of 3 files .* 1 failed; 1 argument named no file\./);
  });

  it("open prints the file's page when no browser can be opened; an unknown id fails", async () => {
    const [file] = (await api(base, user.key, "GET", "/files?limit=1")).body.files;
    const opened = await run(["open", file.id]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe(`${worker.url}/f/${file.id}\n`);
    const unknown = await run(["open", "file_doesnotexist000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/code file_not_found, HTTP 404, request id \S+/);
  });

  it("--help reads like a CLI's help, for the program and each command", async () => {
    const top = await run(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: imghost \[options\] \[command\]/);
    for (const command of ["login", "upload", "ls", "rm", "open", "album"]) expect(top.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    const upload = await run(["upload", "--help"]);
    expect(upload.stdout).toMatch(/^Usage: imghost upload \[options\] <paths\.\.\.>/);
    expect(upload.stdout).toContain("(default: 4)");
    expect(upload.stdout).toContain("Examples:");
    const wrong = await run(["upload"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("missing required argument 'paths'");
  });
});
