// The caller's address as Cloudflare reports it, as the key of everything counted per IP. Principals, rate limits,
// the login guard and album-password attempts all key on it, so it sits below all of them. An IPv6 caller is keyed
// by its /64: one subscriber's network, in which a host picks any of 2^64 addresses at will (privacy addresses), so
// a per-address count would bound nothing. IPv4 is kept as it is.
export function clientIp(req: Request): string {
  return addressKey(req.headers.get("cf-connecting-ip") ?? "127.0.0.1");
}

/** IPv4 as given; IPv6 as its first four groups, written one way whatever the input (`2001:db8:0:1::/64`); anything else as given. */
export function addressKey(ip: string): string {
  if (!ip.includes(":")) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1];
  const groups = ipv6Groups(ip);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : ip;
}

/** The eight 16-bit groups of an IPv6 address (lower case, no leading zeros), or null when it is not one. */
function ipv6Groups(ip: string): string[] | null {
  const halves = ip.toLowerCase().split("::");
  if (halves.length > 2) return null;
  const part = (s: string) => (s === "" ? [] : s.split(":"));
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16).toString(16));
}
