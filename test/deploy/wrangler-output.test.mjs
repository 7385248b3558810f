// The readers of wrangler's output, on the samples recorded from the installed wrangler (samples/record.mjs),
// and on output they must refuse rather than read as "nothing there".
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isWorkerNotFound, parseD1List, parseQueuesList, parseR2BucketList, parseSecretList, parseWhoami } from "../../scripts/deploy/wrangler-output.mjs";

const sample = (name) => readFileSync(new URL(`samples/${name}`, import.meta.url), "utf8");

describe("wrangler output readers", () => {
  it("whoami --json: logged in with its accounts, or logged out", () => {
    expect(parseWhoami(sample("whoami.json"))).toEqual({
      loggedIn: true,
      authType: "User API Token",
      email: "ops@example.com",
      accounts: [{ id: "0123456789abcdef0123456789abcdef", name: "Example Co" }],
    });
    expect(parseWhoami(sample("whoami-logged-out.json"))).toMatchObject({ loggedIn: false, accounts: [] });
  });

  it("d1 list --json: name to uuid, other projects' databases included", () => {
    const dbs = parseD1List(sample("d1-list.json"));
    expect(dbs.get("image-host")).toBe("5c1a7e9e-3d2b-4f0a-9a51-2b7f0c6d8e40");
    expect([...dbs.keys()]).toEqual(["image-host", "notes-app"]);
    expect(parseD1List("[]").size).toBe(0);
  });

  it("r2 bucket list: the labelled blocks' names; no bucket is an empty set", () => {
    expect(parseR2BucketList(sample("r2-bucket-list.txt"))).toEqual(new Set(["image-host-objects", "notes-attachments"]));
    expect(parseR2BucketList("Listing buckets...\n\n")).toEqual(new Set());
  });

  it("queues list: the name column of a page; a page past the end prints nothing", () => {
    expect(parseQueuesList(sample("queues-list-page-1.txt"))).toEqual(["image-jobs"]);
    expect(parseQueuesList(sample("queues-list-page-2.txt"))).toEqual(["notes-events"]);
    expect(parseQueuesList(sample("queues-list-page-3.txt"))).toEqual([]);
  });

  it("queues list: finds the name column when a jurisdiction column comes first", () => {
    const table = sample("queues-list-page-1.txt").replace("│ id ", "│ jurisdiction │ id ").replace("│ 7f3e", "│ eu │ 7f3e");
    expect(parseQueuesList(table)).toEqual(["image-jobs"]);
  });

  it("secret list --format json: names only", () => {
    expect(parseSecretList(sample("secret-list.json"))).toEqual(new Set(["JWT_SECRET", "TOTP_ENCRYPTION_SECRET", "CF_API_TOKEN"]));
  });

  it("a missing worker is told apart from every other failure of secret list", () => {
    expect(isWorkerNotFound(sample("secret-list-no-worker.stderr.txt"))).toBe(true);
    expect(isWorkerNotFound("✘ [ERROR] A request to the Cloudflare API (/accounts/x/workers/scripts/edge-image-host/secrets) failed.\n  Authentication error [code: 10000]")).toBe(false);
    expect(isWorkerNotFound("")).toBe(false);
  });

  it("refuses output it does not know instead of reading it as empty", () => {
    expect(() => parseD1List("✘ [ERROR] Authentication error")).toThrow(/no JSON/);
    expect(() => parseD1List('{"uuid":"x"}')).toThrow(/not an array/);
    expect(() => parseSecretList("[{\"type\":\"secret_text\"}]")).toThrow(/without a name/);
    expect(() => parseR2BucketList("✘ [ERROR] no access")).toThrow(/Listing buckets/);
    expect(() => parseQueuesList("Something else entirely")).toThrow(/no table/);
    expect(() => parseWhoami("")).toThrow(/no JSON/);
  });
});
