// @imghost/client for browsers, Workers and any runtime with fetch: no Node-only import on this path. A file path
// as upload input needs the Node entry (node.ts), which package.json's `exports` gives Node.
import { createClientWith } from "./client.js";
import type { ClientOptions, ImghostClient } from "./types.js";

export * from "./public.js";

export function createClient(options: ClientOptions): ImghostClient {
  return createClientWith(options);
}
