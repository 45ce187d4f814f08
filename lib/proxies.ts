/**
 * Which peers may tell the client's address (`X-Forwarded-For`): exact addresses and CIDR ranges,
 * IPv4 and IPv6 (`TRUSTED_PROXIES`). A range is what a proxy with changing addresses needs, e.g. an
 * ingress controller whose pods get addresses from the cluster's pod range.
 */
import { BlockList, isIP } from "node:net";

export interface TrustedProxies {
  /** The peer at this address is a proxy we run. */
  has(address: string): boolean;
}

/** Entries of a TRUSTED_PROXIES value: `a.b.c.d`, `a.b.c.d/n`, `x::y`, `x::/n`; anything else throws. */
export function parseTrustedProxyList(raw: string | undefined): string[] {
  const entries = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const e of entries) {
    const [addr, bits, extra] = e.split("/");
    const family = isIP(addr);
    const max = family === 4 ? 32 : 128;
    const ok = family !== 0 && extra === undefined && (bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= max));
    if (!ok) throw new Error(`TRUSTED_PROXIES: "${e}" is not an IP address or a CIDR range (e.g. 10.0.0.7, 10.244.0.0/16, fd00::/8)`);
  }
  return entries;
}

export function trustedProxies(entries: string[]): TrustedProxies {
  const list = new BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split("/");
    const type = isIP(addr) === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return {
    has(address) {
      const family = isIP(address);
      // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d; BlockList matches it to IPv4 rules.
      return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/** The client's address: the peer's, unless the peer is a proxy we run; then the last X-Forwarded-For hop that is not one. */
export function clientAddress(remote: string | undefined, forwardedFor: unknown, proxies: TrustedProxies): string {
  const peer = remote ?? "unknown";
  // X-Forwarded-For is client-controlled unless the hop that sent it is a proxy we run.
  if (!proxies.has(peer)) return peer;
  const chain = String(forwardedFor ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) if (!proxies.has(chain[i])) return chain[i];
  return peer;
}
