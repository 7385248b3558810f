// Resuming a tus upload across reloads and restarts: the upload's address is remembered under a key that names the
// file, so the same file sent again asks the server where it stands (HEAD) and sends only the rest.
import type { ResumeStore } from "./types.js";

/** Where every remembered upload's key starts (the same prefix tus-js-client used, so its leftovers are found too). */
export const RESUME_PREFIX = "tus::";

/** Uploads sending now in this process: the same file sent twice at once must not resume one upload twice. */
export const inFlight = new Set<string>();

/**
 * The key of a File as browsers give it: its name, type, size and last-modified time (bytes without those could be
 * another content of the same size, so they resume only with a key the caller gives).
 */
export function fileKey(input: unknown, name: string, mime: string, size: number): string | undefined {
  const lastModified = (input as { lastModified?: unknown } | null)?.lastModified;
  return typeof lastModified === "number" ? [name, mime, size, lastModified].join("|") : undefined;
}

/** The store key of an upload at an endpoint: one file uploaded to two services is two uploads. */
export const storeKey = (endpoint: string, key: string) => `${RESUME_PREFIX}${endpoint}::${key}`;

/** Unfinished uploads kept in the browser's localStorage (none where there is none, e.g. in Workers). */
export function localStorageResumeStore(storage: Storage | undefined = (globalThis as { localStorage?: Storage }).localStorage): ResumeStore {
  return {
    get: (key) => {
      try {
        return storage?.getItem(key) ?? null;
      } catch {
        return null; // storage refused (private mode, a full quota): no resume, the upload still goes
      }
    },
    set: (key, url) => {
      try {
        storage?.setItem(key, url);
      } catch {
        // as above
      }
    },
    remove: (key) => storage?.removeItem(key),
  };
}
