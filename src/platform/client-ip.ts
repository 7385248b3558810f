// The caller's address as Cloudflare reports it. Principals, rate limits and album-password attempts all key
// on it, so it sits below all of them.
export function clientIp(req: Request): string {
  return req.headers.get("cf-connecting-ip") ?? "127.0.0.1";
}
