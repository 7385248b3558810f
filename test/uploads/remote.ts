// A stand-in for the web that POST /upload/url fetches from: the global fetch, spied (as test/webhooks/support.ts
// does), so no request ever leaves the machine. Hosts under example.com answer through `answer`; any other URL
// reaching fetch fails loudly (the address rules should have refused it first).
import { vi } from "vitest";
import { call } from "../support/api";
import { randomIp } from "./helpers";

export type Remote = { fetched: string[]; restore(): void };
export type Answer = (url: URL, init: RequestInit | undefined) => Response | Promise<Response>;

export function fakeRemote(answer: Answer): Remote {
  const remote: Remote = { fetched: [], restore: () => spy.mockRestore() };
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    remote.fetched.push(url.href);
    if (url.hostname !== "example.com" && !url.hostname.endsWith(".example.com")) throw new Error(`test: unexpected outbound fetch to ${url.href}`);
    return answer(url, init);
  });
  return remote;
}

/** An image answered with a Content-Length, as most servers send one. */
export const image = (bytes: Uint8Array, type = "image/png") => new Response(bytes, { headers: { "content-type": type, "content-length": String(bytes.byteLength) } });

/** A body of unknown length: a stream, so no Content-Length goes with it. */
export const chunked = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });

/** `first`, then chunks of zeros for as long as anyone reads (the upload's cap must stop it). */
export function endless(first: Uint8Array, chunkBytes = 1024 * 1024): { stream: ReadableStream<Uint8Array>; sent: () => number } {
  let sent = 0;
  let started = false;
  const zeros = new Uint8Array(chunkBytes);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = started ? zeros : first;
      started = true;
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, sent: () => sent };
}

/** `first`, then nothing ever again (a remote that stalls mid-body). */
export const stalled = (first: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first);
    },
  });

export function uploadUrl(body: Record<string, unknown>, token?: string, ip = token ? undefined : randomIp()) {
  return call("/upload/url", { token, ip, body });
}
