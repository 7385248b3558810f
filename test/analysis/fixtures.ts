/// <reference types="vite/client" />
// The committed image fixtures (test/fixtures/images), inlined at build time by Vite (`?inline` -> data URL),
// since tests run inside workerd without a file system. Expected hashes come from reference_phash.py.
import expected from "../fixtures/images/expected-phash.json";

// One lazily imported module per image, loaded here with top-level await: a single eager module holding
// every image would exceed the test pool's WebSocket message limit (1009 "Message is too large").
const loaders = import.meta.glob("../fixtures/images/*.{png,jpg,webp,gif,bmp}", { query: "?inline", import: "default" }) as Record<string, () => Promise<string>>;

const byName = new Map(await Promise.all(Object.entries(loaders).map(async ([path, load]) => [path.split("/").pop()!, await load()] as const)));

export const FIXTURE_NAMES = [...byName.keys()].sort();

/** A fresh copy of the fixture's bytes (callers may mutate it). */
export function fixture(name: string): Uint8Array {
  const url = byName.get(name);
  if (!url) throw new Error(`no fixture ${name}`);
  const binary = atob(url.slice(url.indexOf(",") + 1));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export const EXPECTED_PHASH: Record<string, string> = expected.hashes;
export const EXPECTED_RESIZED32: Record<string, string> = expected.resized32;

export function base64ToBytes(b64: string): Uint8Array {
  const binary = atob(b64);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

// Images over the 5 MP full-decode budget (test/fixtures/images/large), loaded only by the tests that use them.
import largeExpected from "../fixtures/images/large/expected-phash.json";

const largeLoaders = import.meta.glob("../fixtures/images/large/*.{png,jpg,webp,gif}", { query: "?inline", import: "default" }) as Record<string, () => Promise<string>>;

export const LARGE_FIXTURE_NAMES = Object.keys(largeLoaders).map((path) => path.split("/").pop()!).sort();
export const LARGE_EXPECTED_PHASH: Record<string, string> = largeExpected.hashes;

export async function largeFixture(name: string): Promise<Uint8Array> {
  const load = Object.entries(largeLoaders).find(([path]) => path.endsWith(`/${name}`))?.[1];
  if (!load) throw new Error(`no large fixture ${name}`);
  const url = await load();
  return base64ToBytes(url.slice(url.indexOf(",") + 1));
}

// Real photos (test/fixtures/images/photos, see generate.mjs there) and variants made from them, loaded on use.
const photoLoaders = import.meta.glob(["../fixtures/images/photos/*.jpg", "../fixtures/images/photos/variants/*.jpg"], { query: "?inline", import: "default" }) as Record<string, () => Promise<string>>;

/** `name`: "ladybird.jpg" or "variants/ladybird-rot3.jpg". */
export async function photo(name: string): Promise<Uint8Array> {
  const load = Object.entries(photoLoaders).find(([path]) => path.endsWith(`/photos/${name}`))?.[1];
  if (!load) throw new Error(`no photo ${name}`);
  const url = await load();
  return base64ToBytes(url.slice(url.indexOf(",") + 1));
}
