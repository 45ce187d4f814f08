/**
 * Socket connections per client address: at most `max` engine.io connections at once from one
 * address (the rate limiter's client address, lib/proxies.ts), refused at the handshake
 * beyond that. Framework-free: gateway/socket.ts counts engine.io's connections into it.
 */
export class AddressConnections {
  private readonly open = new Map<string, number>();

  /** `max` 0: no limit. */
  constructor(readonly max: number) {}

  /** May one more connection from `address` be accepted now? */
  admits(address: string): boolean {
    return this.max === 0 || (this.open.get(address) ?? 0) < this.max;
  }

  opened(address: string): void {
    this.open.set(address, (this.open.get(address) ?? 0) + 1);
  }

  closed(address: string): void {
    const n = (this.open.get(address) ?? 0) - 1;
    // An address with nothing open takes no memory.
    if (n > 0) this.open.set(address, n);
    else this.open.delete(address);
  }

  /** Open connections of `address`. */
  count(address: string): number {
    return this.open.get(address) ?? 0;
  }

  /** Addresses with a connection open. */
  get addresses(): number {
    return this.open.size;
  }

  /** The refusal's text (engine.io sends it in its 403/400 answer to the handshake). */
  refusal(): string {
    return `Too many socket connections from this address (at most ${this.max})`;
  }
}
