import type { AddressInfo } from "node:net";

/** A wildcard or loopback bind is reached as `localhost` from this machine (browser, CLI). */
function isLocalBind(address: string): boolean {
  return address === "0.0.0.0" || address === "::" || address === "::1" || /^(?:::ffff:)?127\.\d+\.\d+\.\d+$/.test(address);
}

/**
 * The host:port a client on this machine uses to reach a server listening on `addr`: what a
 * browser puts in a ton_proof's domain (URL host, so port 80 is left out) and what the
 * start-up banner prints. `APP_DOMAIN` overrides it for proofs (a proxy, a public name).
 */
export function listenHost(addr: AddressInfo): string {
  const host = isLocalBind(addr.address) ? "localhost" : addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return addr.port === 80 ? host : `${host}:${addr.port}`;
}

/** The domain a ton_proof must be signed for: APP_DOMAIN when set, else the listening address. */
export function proofDomain(appDomain: string | undefined, addr: AddressInfo | null): string | undefined {
  return appDomain ?? (addr ? listenHost(addr) : undefined);
}
