// The outbound address rules (platform/outbound/outbound-address.ts, extensions.md § 2 "What may be fetched"): shared by
// webhook endpoints and, later, upload from a URL. Pure functions, no bindings.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { configAtEntry } from "../../src/config/env";
import { checkOutboundUrl, outboundRules, type OutboundRules } from "../../src/platform/outbound/outbound-address";

const open: OutboundRules = { allowHosts: new Set<string>(), httpsOnly: false };
const reason = (url: string, rules = open) => {
  const checked = checkOutboundUrl(url, rules);
  return checked.ok ? null : checked.reason;
};

describe("checkOutboundUrl", () => {
  it("lets public http and https URLs on the default ports through, normalised", () => {
    for (const url of ["https://hooks.example.com/in", "http://example.org", "https://93.184.215.14/x", "https://[2606:4700::1111]/", "https://example.com:443/a?b=c"]) {
      const checked = checkOutboundUrl(url, open);
      expect(checked.ok, url).toBe(true);
    }
  });

  it("refuses other schemes, other ports, credentials and what does not parse", () => {
    for (const url of ["ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)", "ws://example.com/", "https://example.com:8443/", "http://example.com:8080/", "https://user:pw@example.com/", "https://user@example.com/", "not a url", "", "//example.com"]) {
      expect(reason(url), url).not.toBeNull();
    }
  });

  it("refuses localhost and IP literals in loopback, private, link-local, CGNAT, multicast and unspecified ranges", () => {
    const refused = [
      "http://localhost/", "http://LOCALHOST./", "http://api.localhost/",
      "http://127.0.0.1/", "http://127.1.2.3/", "http://2130706433/", "http://0x7f.1/", "http://0.0.0.0/",
      "http://10.0.0.1/", "http://172.16.0.1/", "http://172.31.255.255/", "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data", "http://100.64.0.1/", "http://100.127.255.255/",
      "http://224.0.0.1/", "http://239.255.255.250/", "http://255.255.255.255/",
      "http://[::1]/", "http://[::]/", "http://[fe80::1]/", "http://[fc00::1]/", "http://[fd12:3456::1]/", "http://[ff02::1]/",
      "http://[::ffff:127.0.0.1]/", "http://[::ffff:10.0.0.1]/", "http://[::ffff:a9fe:a9fe]/",
      // IPv4 carried in other IPv6 forms: compatible, translated, NAT64, 6to4; and the old site-local range
      "http://[::7f00:1]/", "http://[::ffff:0:a00:1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:7f00:1::1]/", "http://[2002:a00:1::]/", "http://[fec0::1]/",
    ];
    for (const url of refused) expect(reason(url), url).not.toBeNull();
    // The ranges' neighbours are public.
    for (const url of ["http://172.32.0.1/", "http://100.128.0.1/", "http://11.0.0.1/", "http://169.255.0.1/", "http://[2001:db9::1]/", "http://[64:ff9b::808:808]/", "http://[2002:808:808::1]/"]) {
      expect(reason(url), url).toBeNull();
    }
  });

  it("https only when asked (production)", () => {
    const https = { allowHosts: new Set<string>(), httpsOnly: true };
    expect(reason("http://example.com/", https)).toMatch(/https/);
    expect(reason("https://example.com/", https)).toBeNull();
  });

  it("OUTBOUND_ALLOW_HOSTS lets exactly the listed host:port through, on http too", () => {
    const rules = outboundRules({ ...env, OUTBOUND_ALLOW_HOSTS: " 127.0.0.1:9123 , Localhost:8080," });
    expect([...rules.allowHosts].sort()).toEqual(["127.0.0.1:9123", "localhost:8080"]);
    expect(reason("http://127.0.0.1:9123/hook", rules)).toBeNull();
    expect(reason("http://localhost:8080/", rules)).toBeNull();
    expect(reason("http://127.0.0.1:9124/hook", rules)).not.toBeNull();
    expect(reason("http://127.0.0.1/hook", rules)).not.toBeNull();
    expect(reason("http://u:p@127.0.0.1:9123/hook", rules)).not.toBeNull();
  });
});

describe("outboundRules and the production refusal", () => {
  it("reads the config: https only in production; the allow list empty by default", () => {
    expect(outboundRules({ ...env, ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "" })).toEqual({ allowHosts: new Set(), httpsOnly: true });
    expect(outboundRules({ ...env, ENVIRONMENT: "development", OUTBOUND_ALLOW_HOSTS: "127.0.0.1:1" })).toEqual({ allowHosts: new Set(["127.0.0.1:1"]), httpsOnly: false });
  });

  it("refuses OUTBOUND_ALLOW_HOSTS in production, and says so", () => {
    const problem = (vars: Record<string, string>) => {
      const checked = configAtEntry({ ...env, ...vars });
      return checked.ok ? null : checked.problem;
    };
    expect(problem({ ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" })).toMatch(/OUTBOUND_ALLOW_HOSTS.*production/);
    expect(problem({ ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: " " })).toBeNull();
    expect(problem({ ENVIRONMENT: "production", OUTBOUND_ALLOW_HOSTS: "" })).toBeNull();
    expect(problem({ ENVIRONMENT: "development", OUTBOUND_ALLOW_HOSTS: "127.0.0.1:9000" })).toBeNull();
  });
});
