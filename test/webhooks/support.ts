// Webhook test helpers: a receiver standing in for the outside world (the global fetch, spied, so no request
// ever reaches a real network), endpoints made through the API, and reads of what was tried.
import { vi } from "vitest";
import { call, type TestUser } from "../support/api";

export type Received = { url: string; headers: Record<string, string>; body: string };
export type Receiver = { received: Received[]; answer: (req: Request) => Response | Promise<Response>; restore(): void };

/** Hosts under example.com reach the receiver; anything else fails loudly instead of leaving the machine. */
export function fakeReceiver(answer: Receiver["answer"] = () => new Response("ok")): Receiver {
  const receiver: Receiver = { received: [], answer, restore: () => spy.mockRestore() };
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input, init);
    const host = new URL(req.url).hostname;
    if (host !== "example.com" && !host.endsWith(".example.com")) throw new Error(`test: unexpected outbound fetch to ${req.url}`);
    receiver.received.push({ url: req.url, headers: Object.fromEntries(req.headers), body: await req.text() });
    return receiver.answer(req);
  });
  return receiver;
}

export const ALL_EVENTS = ["file.created", "file.analyzed", "file.flagged", "file.deleted", "album.created", "album.updated", "album.deleted"];

let hook = 0;
export async function createWebhook(user: TestUser, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string; url: string }> {
  hook += 1;
  const res = await call("/webhooks", { token: user.access, body: { url: `https://hooks.example.com/in/${hook}-${crypto.randomUUID()}`, events: ALL_EVENTS, ...body } });
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
  return { id: res.body.id, secret: res.body.secret, url: res.body.url };
}

export async function attemptsOf(user: TestUser, webhookId: string): Promise<any[]> {
  const res = await call(`/webhooks/${webhookId}/deliveries?limit=100`, { token: user.access });
  if (res.status !== 200) throw new Error(`deliveries failed: ${res.status} ${res.text}`);
  return res.body.deliveries;
}

/** The requests the receiver got for one endpoint URL. */
export const sentTo = (receiver: Receiver, url: string) => receiver.received.filter((r) => r.url === url);
