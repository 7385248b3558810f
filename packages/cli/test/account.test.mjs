// Issue 37's command-line items, against `wrangler dev`: `ls` lists the account's own 18+ files (marked), `album
// add` with an unknown file id exits 1, `login` says whose key it saved and `logout` that the key stays valid, and
// an `upload`-only key uploads with tags and an album (no `manage`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { appVars, startWorker, within } from "../../../bench/lib/index.mjs";
import { benchUser } from "../../../bench/lib/users.mjs";
import { makePng } from "../../../bench/lib/png.mjs";
import { scratchDir, suitePort } from "../../../test/browser/support.mjs";
import { uploadFlagged } from "../../client/test/support.mjs";
import { api, imghost, jsonLines, writePngs } from "./support.mjs";

const PORT = suitePort(22);

let worker;
let base;
/** A user with a read/upload/manage key, as the README tells people to make one for albums. */
let user;

beforeAll(async () => {
  worker = await startWorker({ config: "wrangler.toml", port: PORT, vars: { ...appVars(PORT), ENVIRONMENT: "development", FINALIZE_WAIT_MS: "0", RATE_LIMIT_MULTIPLIER: "10" } });
  base = `${worker.url}/api/v1`;
  user = await within("signing up a user with a read/upload/manage key", benchUser(worker, ["read", "upload", "manage"]), 60_000);
});

afterAll(async () => {
  await worker?.stop();
});

/** A fresh HOME for one test, removed after it. */
function freshHome() {
  const home = mkdtempSync(path.join(tmpdir(), "imghost-cli-account-"));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

/** `imghost ...args` with `key` given on the command line; no output may hold it. */
async function run(args, { key = user.key, home = freshHome(), cwd } = {}) {
  const result = await imghost([...args, "--base", base, "--key", key], { home, cwd });
  expect(result.stdout + result.stderr, "no output holds the key").not.toContain(key);
  return result;
}

describe("imghost ls: the account's own 18+ files", () => {
  it("lists an age-restricted file with the others, marked 18+ in the table and ageRestricted in --json", async () => {
    const plain = jsonLines((await run(["upload", ...writePngs(scratchDir("imghost-ls18-"), ["plain.png"], 31), "--json"])).stdout)[0].fileId;
    const flagged = await within("an 18+ upload", uploadFlagged(base, user.key, makePng(33, 21, 32)), 60_000);
    // The API's own default leaves it out of GET /files (excludeNsfw=true, api-v1.md): the CLI must ask for it.
    expect((await api(base, user.key, "GET", "/files")).body.files.map((f) => f.id)).not.toContain(flagged);

    const table = await run(["ls"]);
    expect(table.code, table.stderr).toBe(0);
    const line = (id) => table.stdout.split("\n").find((l) => l.startsWith(id));
    expect(line(flagged)).toMatch(/ 18\+$/);
    expect(line(plain)).not.toContain("18+");
    expect(table.stderr).toContain("(1 flagged 18+)");
    const json = jsonLines((await run(["ls", "--json"])).stdout);
    expect(json.find((f) => f.id === flagged)).toMatchObject({ ageRestricted: true });
    expect(json.find((f) => f.id === plain)).toMatchObject({ ageRestricted: false });
  });
});

describe("imghost album add", () => {
  it("an unknown file id exits 1 and names it; the others are added; an id already there is no failure", async () => {
    const [good] = jsonLines((await run(["upload", ...writePngs(scratchDir("imghost-albumadd-"), ["in.png"], 34), "--json"])).stdout);
    const [album] = jsonLines((await run(["album", "create", "Add test", "--json"])).stdout);
    const unknown = "file_doesnotexist000000000";
    const result = await run(["album", "add", album.id, good.fileId, unknown]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Added 1 file to ${album.id}`);
    expect(result.stderr).toContain(`${unknown}: not added`);
    expect(result.stderr).not.toContain(`${good.fileId}: not added`);
    expect((await api(base, user.key, "GET", `/albums/${album.id}`)).body.files.map((f) => f.id)).toEqual([good.fileId]);

    const again = await run(["album", "add", album.id, good.fileId]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("1 file was in the album already.");
  });
});

describe("imghost login and logout", () => {
  it("login says whose key it saved, and which commands the key cannot run; logout says the key stays valid", async () => {
    const { body: me } = await api(base, user.access, "GET", "/account");
    const home = freshHome();
    const login = await run(["login"], { home });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe(`Logged in to ${base} as ${me.user.username} (${me.user.email}) with the key "bench".\n`);
    expect(login.stderr).not.toContain("warning");

    const created = await api(base, user.access, "POST", "/keys", { name: "ci uploads", permissions: ["upload"] });
    const limited = await run(["login"], { key: created.body.key, home });
    expect(limited.stdout).toContain(`as ${me.user.username} (${me.user.email}) with the key "ci uploads"`);
    expect(limited.stderr).toMatch(/warning: this key may not read files/);
    expect(limited.stderr).toMatch(/warning: this key may not change files or albums/);

    const logout = await imghost(["logout"], { home });
    expect(logout.code).toBe(0);
    expect(logout.stdout).toMatch(/^Logged out: the API key was removed from /);
    expect(logout.stderr).toContain(`The key stays valid until it is revoked: revoke it in the web app's API keys page (${worker.url}/app/keys).`);
  });
});

describe("imghost upload with an `upload`-only key", () => {
  it("sets tags and puts the files in an album of the account: no manage, no read", async () => {
    const { body: created } = await api(base, user.access, "POST", "/keys", { name: "upload only", permissions: ["upload"] });
    const [album] = jsonLines((await run(["album", "create", "Upload-only", "--json"])).stdout);
    const dir = scratchDir("imghost-uploadonly-");
    writePngs(dir, ["u1.png", "u2.png"], 35);
    const result = await run(["upload", "u1.png", "u2.png", "--tags", "cli,only", "--album", album.id, "--json"], { key: created.key, cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const ids = jsonLines(result.stdout).map((b) => b.fileId);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect((await api(base, user.key, "GET", `/files/${id}`)).body.tags).toEqual(["cli", "only"]);
    expect((await api(base, user.key, "GET", `/albums/${album.id}`)).body.files.map((f) => f.id).sort()).toEqual([...ids].sort());

    // Someone else's album: every file refused at creation (404 album_not_found), none stored.
    const other = await within("another user", benchUser(worker, ["read", "upload", "manage"]), 60_000);
    const theirs = (await api(base, other.key, "POST", "/albums", { title: "Theirs" })).body.id;
    const refused = await run(["upload", "u1.png", "--album", theirs], { key: created.key, cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/code album_not_found, HTTP 404/);
  });
});
