// View counting: aggregated in ViewCounter shards, flushed to D1 in batches; bots and HEAD ignored;
// concurrent hits lose nothing; a repeated flush counts nothing twice.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { signup } from "../support/api";
import { IMAGE, d1Count, fetchRaw, pause, pendingFor, seedFile, settledCount } from "../support/files";
import { viewCounterFor } from "../../src/serving/view-counter";
import { isPreviewBot } from "../../src/serving/byte-path";

describe("view counting on byte links", () => {
  it("counts 40 concurrent GETs exactly, through the alarm's batched flush", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    const replies = await Promise.all(Array.from({ length: 40 }, () => fetchRaw(`${IMAGE}/${f.id}`)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    // No D1 write per request: the hits wait in the shard, which has an alarm set to flush them together.
    // (Only if this machine is so slow that the alarm's 5 s passed already has part of it reached D1.)
    const stub = viewCounterFor(env, f.id);
    const deadline = Date.now() + 5_000;
    let pending = 0;
    let written = 0;
    while (Date.now() < deadline) {
      [pending, written] = [await pendingFor("file_view", f.id), await d1Count("file_view", f.id)];
      if (pending + written >= 40) break;
      await pause(20);
    }
    expect(pending + written).toBe(40);
    if (pending > 0) {
      expect(await runInDurableObject(stub, (_o, state) => state.storage.getAlarm())).not.toBeNull();
    }
    // The alarm writes them in one batch.
    await runDurableObjectAlarm(stub);
    await stub.drain();
    expect(await d1Count("file_view", f.id)).toBe(40);
    expect(await pendingFor("file_view", f.id)).toBe(0);
  });

  it("ignores HEAD, thumbnails, 304s and link-preview bots", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    const bots = [
      "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
      "Twitterbot/1.0",
      "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "TelegramBot (like TwitterBot)",
      "WhatsApp/2.23.20.0",
      "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    ];
    await Promise.all([
      ...bots.map((ua) => fetchRaw(`${IMAGE}/${f.id}`, { headers: { "user-agent": ua } })),
      fetchRaw(`${IMAGE}/${f.id}`, { method: "HEAD" }),
      fetchRaw(`${IMAGE}/${f.id}/thumb`),
      fetchRaw(`${IMAGE}/${f.id}`, { headers: { "if-none-match": `"${f.storeEtag}"` } }),
      fetchRaw(`${IMAGE}/${f.id}`, { headers: { range: "bytes=10-20" } }),
    ]);
    await fetchRaw(`${IMAGE}/${f.id}`, { headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0" } });
    expect(await settledCount("file_view", f.id, 1)).toBe(1);
    await pause(200);
    expect(await settledCount("file_view", f.id, 1)).toBe(1);
  });

  it("a range from byte 0 counts (a player's first request); later ranges do not", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    await fetchRaw(`${IMAGE}/${f.id}`, { headers: { range: "bytes=0-99" } });
    await fetchRaw(`${IMAGE}/${f.id}`, { headers: { range: "bytes=100-199" } });
    expect(await settledCount("file_view", f.id, 1)).toBe(1);
    await pause(100);
    expect(await settledCount("file_view", f.id, 1)).toBe(1);
  });

  it("a flush repeated after a crash does not count twice", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id);
    const stub = viewCounterFor(env, f.id);
    await stub.add("file_view", f.id, 7);
    await stub.drain();
    expect(await d1Count("file_view", f.id)).toBe(7);
    // Simulate a crash after the D1 batch but before the shard recorded it: the row is still unflushed.
    await stub.add("file_view", f.id, 3);
    await stub.drain();
    await runInDurableObject(stub, (_obj, state) => {
      state.storage.sql.exec("UPDATE counters SET flushed = 0 WHERE kind = 'file_view' AND id = ?", f.id);
    });
    await stub.drain(); // the retry rewrites the same absolute value
    expect(await d1Count("file_view", f.id)).toBe(10);
    await stub.add("file_view", f.id, 1);
    await stub.drain();
    expect(await d1Count("file_view", f.id)).toBe(11);
  });

  it("keeps counting correctly after its rows were dropped (base re-read from D1)", async () => {
    const owner = await signup();
    const f = await seedFile(owner.id, { viewCount: 100 });
    const stub = viewCounterFor(env, f.id);
    await stub.add("file_view", f.id, 2);
    await stub.drain();
    expect(await d1Count("file_view", f.id)).toBe(102);
    const rows = await runInDurableObject(stub, (_o, state) =>
      state.storage.sql.exec("SELECT COUNT(*) AS n FROM counters WHERE id = ?", f.id).one().n,
    );
    expect(rows).toBe(0);
    await stub.add("file_view", f.id, 5);
    await stub.drain();
    expect(await d1Count("file_view", f.id)).toBe(107);
  });

  it("drops counts for rows that no longer exist and ignores junk", async () => {
    const stub = viewCounterFor(env, "file_doesnotexist_________");
    await stub.add("file_view", "file_doesnotexist_________", 1);
    await stub.add("bogus" as never, "x", 1);
    await stub.drain();
    expect(await stub.pendingOf("file_view", "file_doesnotexist_________")).toBe(0);
  });
});

describe("isPreviewBot", () => {
  it("knows the unfurlers and leaves browsers alone", () => {
    expect(isPreviewBot("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Safari/605.1.15")).toBe(false);
    expect(isPreviewBot(undefined)).toBe(false);
    expect(isPreviewBot("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")).toBe(true);
    expect(isPreviewBot("Slack-ImgProxy (+https://api.slack.com/robots)")).toBe(true);
  });
});
