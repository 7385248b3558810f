// Which events are sent, from where (extensions.md § 4 "Events"): finalize (file.created), the analysis job
// (file.analyzed, file.flagged), moderation (file.flagged), file delete (file.deleted) and albums. Each goes
// only to its owner's enabled endpoints that asked for it; anonymous uploads have no owner to tell.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { call, signup, type TestUser } from "../support/api";
import { directUpload, makePng } from "../uploads/helpers";
import { freshIp, report, resolve, userWithRole } from "../support/moderation";
import { createWebhook, fakeReceiver, sentTo, type Receiver } from "./support";

let receiver: Receiver;
beforeAll(() => {
  receiver = fakeReceiver();
});
afterAll(() => receiver.restore());

type Event = { type: string; timestamp: string; data: Record<string, any> };

/** The verified events one endpoint received, waiting (bounded) until `done` holds. */
async function eventsAt(hook: { url: string; secret: string }, done: (events: Event[]) => boolean, timeout = 20_000): Promise<Event[]> {
  return vi.waitFor(
    () => {
      const events = sentTo(receiver, hook.url).map((r) => new Webhook(hook.secret).verify(r.body, r.headers) as Event);
      if (!done(events)) throw new Error(`not yet: ${events.map((e) => e.type).join(", ")}`);
      return events;
    },
    { timeout, interval: 100 },
  );
}
const ofType = (events: Event[], type: string, fileId?: string) => events.filter((e) => e.type === type && (!fileId || e.data.fileId === fileId || e.data.albumId === fileId));

describe("file events", () => {
  let user: TestUser;
  let all: { id: string; url: string; secret: string };
  beforeAll(async () => {
    user = await signup();
    all = await createWebhook(user);
  });

  it("finalize sends file.created, the analysis job file.analyzed with its results and duplicates", async () => {
    const onlyDeleted = await createWebhook(user, { events: ["file.deleted"] });
    const bytes = makePng(24, 24, 101);
    const first = await directUpload(user.access, bytes);
    const second = await directUpload(user.access, bytes); // the same bytes: an exact duplicate of the first
    const fileId = second.fin.body.fileId;
    const events = await eventsAt(all, (e) => ofType(e, "file.analyzed", fileId).length === 1 && ofType(e, "file.created", fileId).length === 1, 90_000);
    const [created] = ofType(events, "file.created", fileId);
    expect(created.data).toMatchObject({ fileId, url: second.fin.body.url, mime: "image/png", bytes: bytes.byteLength, visibility: second.fin.body.visibility });
    expect(new Date(created.timestamp).toISOString()).toBe(created.timestamp);
    const [analyzed] = ofType(events, "file.analyzed", fileId);
    expect(analyzed.data).toMatchObject({ fileId, analysis: "done", ageRestricted: expect.any(Boolean), width: 24, height: 24 });
    expect(analyzed.data.phash).toMatch(/^[0-9a-f]{16}$/);
    expect(analyzed.data).toHaveProperty("nsfwScore");
    expect(analyzed.data.duplicates.map((d: any) => d.fileId ?? d.id)).toContain(first.fin.body.fileId);
    // The endpoint that asked for file.deleted alone got nothing yet.
    expect(sentTo(receiver, onlyDeleted.url)).toEqual([]);
  });

  it("DELETE /files/:id sends file.deleted", async () => {
    const { fin } = await directUpload(user.access, makePng(8, 8, 102));
    expect((await call(`/files/${fin.body.fileId}`, { method: "DELETE", token: user.access })).status).toBe(200);
    const events = await eventsAt(all, (e) => ofType(e, "file.deleted", fin.body.fileId).length === 1);
    expect(ofType(events, "file.deleted", fin.body.fileId)[0].data).toEqual({ fileId: fin.body.fileId });
  });

  it("moderation: a high-priority report hides the file (file.flagged hidden), removal flags it removed", async () => {
    const { fin } = await directUpload(user.access, makePng(8, 8, 103));
    const fileId = fin.body.fileId;
    const filed = await report({ fileId, reason: "terrorism" }, { ip: freshIp() });
    expect(filed.status).toBe(201);
    await eventsAt(all, (e) => ofType(e, "file.flagged", fileId).some((f) => f.data.reason === "hidden"));
    const moderator = await userWithRole("moderator");
    const resolved = await resolve(moderator.access, filed.body.reportId, { action: "remove_file" });
    expect(resolved.status).toBe(200);
    const events = await eventsAt(all, (e) => ofType(e, "file.flagged", fileId).some((f) => f.data.reason === "removed"));
    expect(ofType(events, "file.flagged", fileId).map((e) => e.data)).toEqual([
      { fileId, reason: "hidden" },
      { fileId, reason: "removed" },
    ]);
  });
});

describe("album events", () => {
  it("create, update and delete each send their event", async () => {
    const user = await signup();
    const hook = await createWebhook(user, { events: ["album.created", "album.updated", "album.deleted"] });
    const created = await call("/albums", { token: user.access, body: { title: "Trip" } });
    expect(created.status).toBe(201);
    const albumId = created.body.id;
    expect((await call(`/albums/${albumId}`, { method: "PATCH", token: user.access, body: { title: "Trip 2" } })).status).toBe(200);
    expect((await call(`/albums/${albumId}`, { method: "DELETE", token: user.access })).status).toBe(200);
    const events = await eventsAt(hook, (e) => e.length === 3);
    const byType = Object.fromEntries(events.map((e) => [e.type, e.data]));
    expect(byType["album.created"].album).toMatchObject({ id: albumId, title: "Trip" });
    expect(byType["album.updated"].album).toMatchObject({ id: albumId, title: "Trip 2" });
    expect(byType["album.deleted"]).toEqual({ albumId });
  });
});

describe("who is told", () => {
  it("not another user's endpoints, not disabled ones, not for anonymous uploads", async () => {
    const owner = await signup();
    const stranger = await signup();
    const theirs = await createWebhook(stranger);
    const off = await createWebhook(owner, { enabled: false });
    const on = await createWebhook(owner, { events: ["album.created"] });
    await directUpload(undefined, makePng(8, 8, 104)); // anonymous
    const { fin } = await directUpload(owner.access, makePng(8, 8, 105));
    expect((await call(`/files/${fin.body.fileId}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    // A later event of the owner's, delivered: everything queued before it had its chance.
    expect((await call("/albums", { token: owner.access, body: { title: "marker" } })).status).toBe(201);
    await eventsAt(on, (e) => e.length === 1);
    expect(sentTo(receiver, theirs.url)).toEqual([]);
    expect(sentTo(receiver, off.url)).toEqual([]);
  });
});
