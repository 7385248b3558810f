// The search index stays right through every write of the indexed fields (migration 0019's triggers): upload,
// PATCH, album membership and album titles, delete, purge, account deletion and the owner's move between shards.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, PASSWORD, signup, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { shardOfUser } from "../support/shard-db";
import { finalize, presign, putDirect, SMALL_PNG } from "../uploads/helpers";
import { matchExpression, parseTerms } from "../../src/files/text-match";
import { scheduledTasks } from "../../src/jobs/scheduled";
import { moveOwner } from "../../src/admin/shard-move/move";
import { PURGE } from "../../src/config";

const binding = (shard: number): D1Database => (shard === 0 ? env.DB : env.SHARD_1);

/** How many of the owner's index rows on `shard` the words match (the index itself, not the API). */
async function indexed(userId: string, words: string, shard?: number): Promise<number> {
  const db = binding(shard ?? (await shardOfUser(userId)));
  const match = matchExpression(userId, parseTerms(words))!;
  return (await db.prepare("SELECT COUNT(*) AS n FROM files_fts WHERE files_fts MATCH ?").bind(match).first<number>("n"))!;
}
const found = async (user: TestUser, q: string) => ((await call(`/search?q=${encodeURIComponent(q)}`, { token: user.access })).body.files as { id: string }[]).map((f) => f.id);

describe("the search index through every write", () => {
  it("an upload's metadata is searchable from finalize on, alt text included", async () => {
    const user = await verifiedUser();
    const pre = await presign({ token: user.access, extra: { title: "Quayside market", alt: "Fishmongers under striped awnings", tags: ["saturday"] } });
    expect(pre.status).toBe(201);
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    expect((await finalize(pre.body, put.headers.get("etag")!, user.access)).status).toBe(200);
    expect(await found(user, "awnings")).toEqual([pre.body.fileId]);
    expect(await found(user, "saturday quay")).toEqual([pre.body.fileId]);
    expect((await call(`/files/${pre.body.fileId}`, { token: user.access })).body.alt).toBe("Fishmongers under striped awnings");
  });

  it("a PATCH replaces the old words with the new ones (title, description, alt, tags)", async () => {
    const user = await verifiedUser();
    const f = await seedFile(user.id, { title: "granite quarry", description: "dusty", tags: ["stone"], alt: "cliff face" });
    const patch = await call(`/files/${f.id}`, { method: "PATCH", token: user.access, body: { title: "marble", description: "clean", alt: "a smooth wall", tags: ["polished"] } });
    expect(patch.status).toBe(200);
    expect(patch.body.file.alt).toBe("a smooth wall");
    for (const gone of ["granite", "dusty", "stone", "cliff"]) expect(await indexed(user.id, gone), gone).toBe(0);
    for (const now of ["marble", "clean", "smooth", "polished"]) expect(await found(user, now), now).toEqual([f.id]);
    const long = await call(`/files/${f.id}`, { method: "PATCH", token: user.access, body: { alt: "x".repeat(1001) } });
    expect(long.status).toBe(400);
    expect(long.body.details.code).toBe("validation_error");
  });

  it("album membership, album titles and album deletion reach the files' entries", async () => {
    const user = await verifiedUser();
    const f = await seedFile(user.id, { title: "one" });
    const album = (await call("/albums", { token: user.access, body: { title: "Alpine hikes" } })).body.id;
    expect(await found(user, "alpine")).toEqual([]);
    expect((await call(`/albums/${album}/files`, { token: user.access, body: { fileIds: [f.id] } })).status).toBe(200);
    expect(await found(user, "alpine")).toEqual([f.id]);
    expect((await call(`/albums/${album}`, { method: "PATCH", token: user.access, body: { title: "Glacier walks" } })).status).toBe(200);
    expect(await found(user, "alpine")).toEqual([]);
    expect(await found(user, "glacier")).toEqual([f.id]);
    expect((await call(`/albums/${album}/files/${f.id}`, { method: "DELETE", token: user.access })).status).toBe(200);
    expect(await found(user, "glacier")).toEqual([]);
    expect((await call(`/albums/${album}/files`, { token: user.access, body: { fileIds: [f.id] } })).status).toBe(200);
    expect((await call(`/albums/${album}`, { method: "DELETE", token: user.access })).status).toBe(200);
    expect(await indexed(user.id, "glacier")).toBe(0);
    expect((await call(`/search?q=glacier&type=albums`, { token: user.access })).body.albums).toEqual([]);
  });

  it("a deleted file is no longer found; the purge removes its entry", async () => {
    const user = await verifiedUser();
    const f = await seedFile(user.id, { title: "ephemeral sandcastle" });
    expect(await found(user, "sandcastle")).toEqual([f.id]);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: user.access })).status).toBe(200);
    expect(await found(user, "sandcastle")).toEqual([]);
    expect(await indexed(user.id, "sandcastle")).toBe(1); // kept until the purge, as the row is
    await scheduledTasks.purgeGoneFiles(env, Date.now() + PURGE.retentionSeconds * 1000 + 60_000);
    expect(await indexed(user.id, "sandcastle")).toBe(0);
  });

  it("a deleted account's files are never found again", async () => {
    const user = await signup();
    await seedFile(user.id, { title: "farewell lantern" });
    expect(await indexed(user.id, "lantern")).toBe(1);
    expect((await call("/account", { method: "DELETE", token: user.access, body: { password: PASSWORD } })).status).toBe(200);
    await scheduledTasks.purgeGoneFiles(env, Date.now() + PURGE.retentionSeconds * 1000 + 60_000);
    expect(await indexed(user.id, "lantern")).toBe(0);
  });

  it("the index moves with its owner between shards, and back", async () => {
    const user = await signup();
    await env.DB.prepare("UPDATE users SET shard = 0 WHERE id = ?").bind(user.id).run();
    const f = await seedFile(user.id, { title: "nomad caravan", shard: 0 });
    const album = await call("/albums", { token: user.access, body: { title: "Desert crossing", fileIds: [f.id] } });
    expect(album.status).toBe(201);
    expect(await moveOwner(env, user.id, 1)).toMatchObject({ step: "done" });
    expect(await indexed(user.id, "caravan", 0)).toBe(0);
    expect(await indexed(user.id, "caravan desert", 1)).toBe(1);
    const fresh = await call("/auth/login", { body: { email: user.email, password: PASSWORD } });
    const token = fresh.body.session?.access_token ?? user.access;
    const res = await call("/search?q=desert", { token });
    expect(res.body.files.map((x: { id: string }) => x.id)).toEqual([f.id]);
    expect(res.body.albums.map((x: { id: string }) => x.id)).toEqual([album.body.id]);
    expect(await moveOwner(env, user.id, 0)).toMatchObject({ step: "done" });
    expect(await indexed(user.id, "caravan desert", 0)).toBe(1);
    expect(await indexed(user.id, "caravan", 1)).toBe(0);
  });
});
