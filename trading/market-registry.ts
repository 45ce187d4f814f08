/**
 * The market actors one engine node runs: an actor is loaded on first use (its lease taken, its
 * book rebuilt from the ledger), only for markets this node owns in its view of the engines (the
 * ledger's leases arbitrate between views); a market that moved is dropped at once, and a fenced
 * actor (lost lease, unknown commit outcome) is rebuilt from what the ledger holds.
 */
import { Refusal, notFoundFault } from "../engine/refusal";

/** What the registry needs of an actor (trading/market-actor.ts's MarketActor). */
export interface RegisteredActor {
  /** Set when it must stop writing; the registry then loads a fresh one. */
  fenced: boolean;
  /** The market's status as the catalog gave it; null: a market the catalog does not know. */
  status: string | null;
  readonly queueDepth: number;
  drain(): Promise<void>;
}

export interface RegistryPorts<A extends RegisteredActor> {
  /** This node's id, and the market's owner among the engines it sees (null: none seen). */
  nodeID: string;
  ownerOf(marketId: string): string | null;
  /** Forget the cached view of the engines (they changed). */
  refreshOwners(): void;
  /** Take the market's lease and rebuild its book (MarketActor.load). */
  load(marketId: string): Promise<A>;
  /** A command ran on a market's actor: how long, and what waits behind it. */
  measured(marketId: string, ms: number, queueDepth: number): void;
  log(message: string): void;
}

export function marketMoved(marketId: string): Refusal {
  return new Refusal("moved", "MARKET_MOVED", `Market ${marketId} is served by another engine node; retry`);
}

export class MarketRegistry<A extends RegisteredActor> {
  private readonly actors = new Map<string, Promise<A>>();
  /** What each load resolved to, so that a command on a loaded market starts without waiting a turn. */
  private readonly settled = new WeakMap<Promise<A>, A>();

  constructor(private readonly ports: RegistryPorts<A>) {}

  /** Is this node the market's owner among the engines it sees? */
  owns(marketId: string): boolean {
    const owner = this.ports.ownerOf(marketId);
    return owner === null || owner === this.ports.nodeID;
  }

  /** The market's actor: its lease taken and its book rebuilt from the ledger on first use (also after a move). */
  actor(marketId: string): Promise<A> {
    let p = this.actors.get(marketId);
    if (!p) {
      // Only the owner in this node's view takes a market (the ledger arbitrates between views).
      if (!this.owns(marketId)) return Promise.reject(marketMoved(marketId));
      const loading = this.ports.load(marketId);
      p = loading;
      this.actors.set(marketId, loading);
      loading.then(
        (a) => void this.settled.set(loading, a),
        () => this.actors.delete(marketId),
      );
    }
    const loaded = p;
    return loaded.then((a) => {
      if (a.fenced) {
        // Lost the lease, or a commit's outcome is unknown: rebuild from what the ledger holds.
        if (this.actors.get(marketId) === loaded) this.actors.delete(marketId);
        return this.actor(marketId);
      }
      return a;
    });
  }

  /** Like actor(), but only for markets the catalog knows (null otherwise, nothing kept). */
  async existingActor(marketId: string): Promise<A | null> {
    const actor = await this.actor(marketId);
    if (actor.status === null) {
      this.actors.delete(marketId);
      return null;
    }
    return actor;
  }

  /** The actor if this node serves the market, else null (best prices: an empty answer, never an error). */
  async actorIfServed(marketId: string): Promise<A | null> {
    return this.existingActor(marketId).catch(() => null);
  }

  /** Stop writing at once to markets that moved to another node; their new owner takes the lease. */
  dropForeignMarkets(): void {
    this.ports.refreshOwners();
    for (const [marketId, p] of this.actors) {
      if (this.owns(marketId)) continue;
      this.actors.delete(marketId);
      p.then((a) => {
        a.fenced = true;
      }).catch(() => undefined);
      this.ports.log(`market ${marketId} moved to another engine node`);
    }
  }

  /**
   * Run a command on a market's actor (404 for a market the catalog does not know). A command
   * refused because the market moved ran nowhere: the caller (MarketRouting) retries it on the owner.
   */
  onMarket<T>(marketId: string, fn: (actor: A) => Promise<T>): Promise<T> {
    const p = this.actors.get(marketId);
    const ready = p && this.settled.get(p);
    // Loaded, still the writer and a market the catalog knows: what existingActor would answer.
    if (ready && !ready.fenced && ready.status !== null) return this.timed(marketId, ready, fn);
    return this.existingActor(marketId).then((actor) => {
      if (!actor) throw notFoundFault("Market");
      return this.timed(marketId, actor, fn);
    });
  }

  /** The market's actor when it is loaded and may take a command now (no load, no wait), else null. */
  ready(marketId: string): A | null {
    const p = this.actors.get(marketId);
    const a = p && this.settled.get(p);
    return a && !a.fenced && a.status !== null ? a : null;
  }

  /** A command ran on a market's actor outside onMarket (in the caller's turn): the same measure. */
  measured(marketId: string, ms: number, actor: A): void {
    this.ports.measured(marketId, ms, actor.queueDepth);
  }

  private timed<T>(marketId: string, actor: A, fn: (actor: A) => Promise<T>): Promise<T> {
    const t0 = process.hrtime.bigint();
    let run: Promise<T>;
    try {
      run = fn(actor);
    } catch (err) {
      run = Promise.reject(err);
    }
    return run.finally(() => this.ports.measured(marketId, Number(process.hrtime.bigint() - t0) / 1e6, actor.queueDepth));
  }

  /** The actors this node has loaded (a failed load is left out). */
  async loaded(): Promise<A[]> {
    const out: A[] = [];
    for (const p of [...this.actors.values()]) {
      const a = await p.catch(() => null);
      if (a && !a.fenced) out.push(a);
    }
    return out;
  }

  /** Let every actor finish the command it is running (graceful drain). */
  async drain(): Promise<void> {
    await Promise.all([...this.actors.values()].map((p) => p.then((a) => a.drain()).catch(() => undefined)));
  }
}
