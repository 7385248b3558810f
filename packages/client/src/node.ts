// @imghost/client for Node (package.json `exports`, condition "node"): the same API, and upload() also takes a file
// path, read by range from the file so a large file is never held in memory.
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { createClientWith } from "./client.js";
import type { OpenedInput } from "./source.js";
import type { ClientOptions, ImghostClient } from "./types.js";

export * from "./public.js";

async function openPath(path: string): Promise<OpenedInput> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const read = async (start: number, end: number) => {
      const bytes = new Uint8Array(end - start);
      for (let at = 0; at < bytes.length; ) {
        const { bytesRead } = await handle.read(bytes, at, bytes.length - at, start + at);
        if (bytesRead === 0) throw new Error(`${path} ended at ${start + at} bytes (it was ${size} when opened)`);
        at += bytesRead;
      }
      return bytes;
    };
    return { source: { size, read, close: () => handle.close() }, name: basename(path) };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

export function createClient(options: ClientOptions): ImghostClient {
  return createClientWith(options, openPath);
}
