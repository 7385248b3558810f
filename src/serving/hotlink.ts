// Hotlink policy (decisions.md § Files and albums): who may embed a file, judged by the Referer.
//   allow     anyone
//   whitelist no Referer, our own site, or a host listed in the file's hotlinkDomains
//   block     no Referer or our own site only
import type { FileRow } from "../db/schema";

/** Hosts that count as "our own site": the site and the image/CDN hosts themselves (a page on any of them). */
export function ownHosts(env: Pick<Env, "SITE_URL" | "IMAGE_URL" | "CDN_URL" | "BASE_URL">): Set<string> {
  return new Set([env.SITE_URL, env.IMAGE_URL, env.CDN_URL, env.BASE_URL].map((u) => new URL(u).host.toLowerCase()));
}

export function hotlinkAllowed(
  file: Pick<FileRow, "hotlinkPolicy" | "hotlinkDomains">,
  referer: string | null | undefined,
  own: Set<string>,
): boolean {
  if (file.hotlinkPolicy === "allow") return true;
  const value = referer?.trim();
  // No Referer (typed address, privacy settings, apps): always allowed, as with every image host.
  if (!value) return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false; // an unparseable Referer cannot prove it is ours
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (own.has(url.host.toLowerCase())) return true;
  if (file.hotlinkPolicy === "block") return false;
  const hostname = url.hostname.toLowerCase();
  return file.hotlinkDomains.some((d) => d.toLowerCase() === hostname);
}
