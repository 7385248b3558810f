// Which URLs the worker may fetch on a user's behalf (extensions.md § 2 "What may be fetched"): webhook endpoints
// and upload from a URL. Pure functions over the WHATWG URL parser, which already normalises IPv4 written
// in decimal, hex or short forms ("http://2130706433/" is 127.0.0.1), so a literal is judged in its one form.
// Names that resolve to private addresses cannot be seen here (Workers have no DNS API): a Worker's fetch leaves
// from Cloudflare's network, not from inside ours, so the rules judge what the URL itself names.
import { config } from "../../config/env";

export type OutboundRules = {
  /** `host:port` pairs let through the address rules (OUTBOUND_ALLOW_HOSTS, development only). */
  allowHosts: ReadonlySet<string>;
  /** Production: https only. */
  httpsOnly: boolean;
};

export type OutboundCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * `httpInProduction`: plain http stays allowed in production. Webhooks carry signed payloads to the owner's own
 * endpoint, so they need https there (extensions.md § 4); upload from a URL reads public images, which § 2 allows
 * over http or https.
 */
export function outboundRules(env: Env, opts: { httpInProduction?: boolean } = {}): OutboundRules {
  const cfg = config(env);
  return { allowHosts: cfg.outboundAllowHosts, httpsOnly: cfg.environment === "production" && !opts.httpInProduction };
}

function ipv4Octets(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** Loopback, "this network", private, CGNAT, link-local, multicast and reserved (incl. broadcast). */
function isInternalIpv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224
  );
}

/** The eight 16-bit groups of a bracket-less IPv6 literal as the URL parser writes it (compressed, hex). */
function ipv6Groups(host: string): number[] | null {
  const halves = host.split("::");
  if (halves.length > 2) return null;
  const part = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  const groups = halves.length === 2 ? [...head, ...Array(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const embeddedIpv4 = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

function isInternalIpv6(groups: number[]): boolean {
  const [first, second] = groups;
  const zeroPrefix = groups.slice(0, 5).every((g) => g === 0);
  if (zeroPrefix && groups[5] === 0 && groups[6] === 0 && groups[7] <= 1) return true; // :: and ::1
  // An IPv4 address carried in IPv6 form is judged as that address: ::ffff:a.b.c.d (mapped), ::a.b.c.d
  // (compatible), ::ffff:0:a.b.c.d (translated), 64:ff9b::a.b.c.d (NAT64); 6to4 (2002:AABB:CCDD::) names it in
  // groups 1-2.
  if (zeroPrefix && (groups[5] === 0xffff || groups[5] === 0)) return isInternalIpv4(embeddedIpv4(groups[6], groups[7]));
  if (groups.slice(0, 4).every((g) => g === 0) && groups[4] === 0xffff && groups[5] === 0) return isInternalIpv4(embeddedIpv4(groups[6], groups[7]));
  if (first === 0x64 && second === 0xff9b) return isInternalIpv4(embeddedIpv4(groups[6], groups[7]));
  if (first === 0x2002) return isInternalIpv4(embeddedIpv4(groups[1], groups[2]));
  // unique local (fc00::/7), link-local (fe80::/10), site-local (fec0::/10, deprecated), multicast (ff00::/8)
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0 || (first & 0xff00) === 0xff00;
}

function internalHostReason(hostname: string): string | null {
  const host = hostname.replace(/\.$/, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return "localhost is not allowed";
  if (host.startsWith("[")) {
    const groups = ipv6Groups(host.slice(1, -1));
    return !groups || isInternalIpv6(groups) ? "the address is internal (loopback, private, link-local or multicast)" : null;
  }
  const octets = ipv4Octets(host);
  if (octets && isInternalIpv4(octets)) return "the address is internal (loopback, private, link-local, CGNAT or multicast)";
  return null;
}

/** The URL if the worker may fetch it, else why not (one sentence for the API's `invalid_url`-style answers). */
export function checkOutboundUrl(raw: string, rules: OutboundRules): OutboundCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "only http and https URLs are allowed" };
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not allowed" };
  const defaultPort = url.protocol === "https:" ? "443" : "80";
  // An allowed host:port passes whatever its address or scheme (a local test receiver); never in production.
  if (rules.allowHosts.has(`${url.hostname.toLowerCase()}:${url.port || defaultPort}`)) return { ok: true, url };
  if (rules.httpsOnly && url.protocol !== "https:") return { ok: false, reason: "only https URLs are allowed" };
  if (url.port !== "") return { ok: false, reason: "only the default port is allowed" };
  const internal = internalHostReason(url.hostname);
  return internal ? { ok: false, reason: internal } : { ok: true, url };
}
