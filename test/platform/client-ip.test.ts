// Per-IP limits key an IPv6 caller by its /64 (one subscriber's network: a host picks any address in it at will),
// an IPv4 caller by its address.
import { afterEach, describe, expect, it } from "vitest";
import { clientIp } from "../../src/platform/http/client-ip";
import { call, uniqueEmail } from "../support/api";
import { startOfNextWindow } from "../support/clock";
import { PASSWORD_RESET } from "../../src/config/auth";

const from = (ip: string | null) => clientIp(new Request("http://localhost/", { headers: ip === null ? {} : { "cf-connecting-ip": ip } }));

describe("clientIp", () => {
  it("IPv4 as it is", () => {
    expect(from("203.0.113.9")).toBe("203.0.113.9");
    expect(from(null)).toBe("127.0.0.1");
  });

  it("IPv6 by its /64, however it is written", () => {
    const key = from("2001:db8:1:2::1");
    expect(key).toBe(from("2001:0db8:0001:0002:ffff:ffff:ffff:ffff"));
    expect(key).toBe(from("2001:DB8:1:2:aaaa::"));
    expect(key).not.toBe(from("2001:db8:1:3::1"));
    expect(from("::1")).toBe(from("::2"));
    expect(from("2001:db8::1")).not.toBe(from("2001:db9::1"));
  });

  it("an IPv4 address mapped into IPv6 is the IPv4 address", () => {
    expect(from("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });
});

describe("a per-IP limit with IPv6 callers", () => {
  let restore: () => void = () => {};
  afterEach(() => restore());

  it("two addresses in one /64 share a bucket; another /64 has its own", async () => {
    restore = startOfNextWindow(PASSWORD_RESET.windowSeconds);
    const [a, b] = [Math.floor(Math.random() * 0xffff), Math.floor(Math.random() * 0xffff)];
    const net = `2001:db8:${a.toString(16)}:${b.toString(16)}`;
    const otherNet = `2001:db8:${a.toString(16)}:${((b + 1) % 0x10000).toString(16)}`;
    const forgot = (ip: string) => call("/auth/password/forgot", { body: { email: uniqueEmail("v6") }, ip });
    for (let i = 0; i < PASSWORD_RESET.perIp; i++) expect((await forgot(`${net}::${(i + 1).toString(16)}`)).status, `request ${i + 1}`).toBe(202);
    expect((await forgot(`${net}:dead:beef:1:2`)).status).toBe(429);
    expect((await forgot(`${otherNet}::1`)).status).toBe(202);
  });
});
