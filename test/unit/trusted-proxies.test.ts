/** TRUSTED_PROXIES: exact addresses and CIDR ranges (lib/proxies.ts). */
import { parseTrustedProxyList, trustedProxies } from "../../lib/proxies";

test("addresses and ranges, IPv4 (also as seen on a dual-stack socket) and IPv6", () => {
  const t = trustedProxies(parseTrustedProxyList(" 10.244.0.0/16, 127.0.0.1 ,fd00::/8,::1"));
  expect(t.has("10.244.7.9")).toBe(true);
  expect(t.has("::ffff:10.244.7.9")).toBe(true);
  expect(t.has("10.245.0.1")).toBe(false);
  expect(t.has("127.0.0.1")).toBe(true);
  expect(t.has("127.0.0.2")).toBe(false);
  expect(t.has("fd12:3456::1")).toBe(true);
  expect(t.has("::1")).toBe(true);
  expect(t.has("2001:db8::1")).toBe(false);
  expect(t.has("unknown")).toBe(false);
  expect(t.has("")).toBe(false);
});

test("nothing is trusted by default; malformed entries are refused with the entry named", () => {
  expect(parseTrustedProxyList(undefined)).toEqual([]);
  expect(trustedProxies([]).has("127.0.0.1")).toBe(false);
  for (const bad of ["10.0.0.0/33", "10.0.0/8", "ingress", "10.0.0.1/8/1", "fd00::/129", "10.0.0.1/x"])
    expect(() => parseTrustedProxyList(bad)).toThrow(`"${bad}"`);
});
