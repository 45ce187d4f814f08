/**
 * The book's cores wired to one set of edge ports (what the book service gives them: the broker's
 * calls, events and metrics): the market actors' registry, the order desk, the owner's desk (what
 * a market's owner answers on its actors), and the durability watch that acknowledges commands on
 * the ledger's watermark. Each core is unit-tested on its own ports; this only connects them.
 */
import type { FeeSchedule } from "../engine/money";
import { newId } from "../lib/ids";
import type { MarketLease } from "../models/trading";
import { DurabilityWatch } from "./durability";
import { MarketActor, marketInfo, type Committed, type MarketPorts } from "./market-actor";
import type { Settled } from "./commands";
import type { PlaceResult, PlaceTerms } from "../models/trading";
import { MarketRegistry, type RegistryPorts } from "./market-registry";
import { OrderDesk, type OrderDeskPorts } from "./order-desk";
import { OwnerDesk, type OwnerDeskPorts } from "./owner-desk";
import { publishCommitted, type PublicationSink } from "./publication";
import { ExchangeModes, type ModeSetting } from "./trading-modes";

export interface BookEdges<C> {
  nodeID: string;
  fees: FeeSchedule;
  ammFeeBps: number;
  /** The engine nodes as this node sees them: a market's owner (HRW), and a refresh when they change. */
  engines: { ownerOf(marketId: string): string | null; refresh(): void };
  /** The catalog's record of a market; null when it does not know it. */
  market(marketId: string): Promise<{ status: string; ammLiquidity?: string; tradingMode?: ModeSetting } | null>;
  /** The exchange-wide trading mode as the catalog stores it (asked once, then each change is told); null: not known there. */
  exchangeMode(): Promise<ModeSetting | null>;
  /** Until when (ms since the epoch) every market trades post-only after this node's start; 0: not at all. */
  reopenUntil: number;
  ledger: Omit<MarketPorts["ledger"], "acquire" | "durable"> & {
    /** The market's writer lease for this node. */
    acquire(marketId: string, node: string): Promise<MarketLease & { instance: string }>;
    /** Ask the ledger whether entry `seq` of process `instance` is durable (when no watermark came). */
    sync(seq: number, instance: string): Promise<void>;
  };
  /** Where a committed command's events go (trading/publication.ts). */
  out: PublicationSink;
  measured: RegistryPorts<MarketActor>["measured"];
  log(message: string): void;
  /** The desks' calls under a request. */
  requests: Omit<OrderDeskPorts<C>, "now" | "owns" | "place" | "placeMany" | "quotes"> & Pick<OwnerDeskPorts<C, MarketActor>, "topOnOwner">;
}

/**
 * A batch's orders on markets this node owns: an order whose actor is loaded and idle is planned
 * and committed at once, in this turn, with the ledger on this node (no queue trip, no promise per
 * order); the rest of its market's orders follow in request order, and so does every order of a
 * market that cannot take them now (loading, busy, ledger elsewhere), in one turn of its queue.
 * One durability wait per market; each order's answer or refusal in its place.
 */
export async function placeMany(registry: MarketRegistry<MarketActor>, ps: PlaceTerms[]): Promise<Array<Settled<PlaceResult>>> {
  const out: Array<Settled<PlaceResult>> = new Array(ps.length);
  const now = new Map<MarketActor, Array<{ i: number; c: Committed }>>();
  const queued = new Map<string, Array<{ i: number; p: PlaceTerms }>>();
  const t0 = process.hrtime.bigint();
  ps.forEach((p, i) => {
    const actor = queued.has(p.marketId) ? null : registry.ready(p.marketId);
    let placed: ReturnType<MarketActor["placeNow"]>;
    try {
      placed = actor?.placeNow(p);
    } catch (error) {
      out[i] = { ok: false, error };
      return;
    }
    if (!actor || !placed) {
      const list = queued.get(p.marketId);
      if (list) list.push({ i, p });
      else queued.set(p.marketId, [{ i, p }]);
      return;
    }
    out[i] = { ok: true, value: placed.value };
    const list = now.get(actor);
    if (list) list.push({ i, c: placed.committed });
    else now.set(actor, [{ i, c: placed.committed }]);
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await Promise.all([
    ...[...now].map(([actor, list]) => {
      registry.measured(actor.marketId, ms, actor);
      return actor.acknowledge(list.map((x) => x.c)).then((failed) =>
        failed.forEach((error, k) => {
          if (error !== undefined) out[list[k].i] = { ok: false, error };
        }),
      );
    }),
    ...[...queued].map(([marketId, list]) =>
      registry
        .onMarket(marketId, (actor) => actor.placeMany(list.map((x) => x.p)))
        .then(
          (rs) => rs.forEach((r, k) => (out[list[k].i] = r)),
          (error: unknown) => list.forEach((x) => (out[x.i] = { ok: false, error })),
        ),
    ),
  ]);
  return out;
}

export class BookCores<C> {
  readonly durability: DurabilityWatch;
  readonly registry: MarketRegistry<MarketActor>;
  readonly desk: OrderDesk<C>;
  readonly owner: OwnerDesk<C, MarketActor>;
  readonly modes: ExchangeModes;

  constructor(e: BookEdges<C>) {
    const modes = (this.modes = new ExchangeModes(() => Date.now(), e.reopenUntil));
    // The exchange-wide mode is read once, however many markets load at the same time (a start).
    let modesLoading: Promise<void> | null = null;
    const learnModes = (): Promise<void> =>
      (modesLoading ??= e
        .exchangeMode()
        .then((s) => void (s && modes.learn(s)))
        .finally(() => (modesLoading = null)));
    const durability = (this.durability = new DurabilityWatch((seq, instance) => e.ledger.sync(seq, instance)));
    const actorPorts: MarketPorts = {
      fees: e.fees,
      ammFeeBps: e.ammFeeBps,
      newId,
      nodeID: e.nodeID,
      // A catalog that is down is not "no such market": that error goes up (503).
      market: async (marketId) => {
        if (!modes.loaded) await learnModes();
        return marketInfo(await e.market(marketId));
      },
      modes,
      ledger: {
        acquire: (marketId) => e.ledger.acquire(marketId, e.nodeID),
        restingOrders: e.ledger.restingOrders,
        lease: e.ledger.lease,
        post: e.ledger.post,
        ...(e.ledger.postNow ? { postNow: e.ledger.postNow } : {}),
        durable: (seq, instance) => durability.wait(seq, instance),
      },
      publish(doc, actor) {
        publishCommitted(doc, actor, e.out);
        actor.forgetClosed(doc.orders);
      },
    };
    const registry = (this.registry = new MarketRegistry<MarketActor>({
      nodeID: e.nodeID,
      ownerOf: e.engines.ownerOf,
      refreshOwners: e.engines.refresh,
      load: (marketId) => MarketActor.load(marketId, actorPorts),
      measured: e.measured,
      log: e.log,
    }));
    this.desk = new OrderDesk<C>({
      ...e.requests,
      now: () => Date.now(),
      owns: (marketId) => registry.owns(marketId),
      place: (p, render) => registry.onMarket(p.marketId, (actor) => actor.place(p, render)),
      placeMany: (ps) => placeMany(registry, ps),
      quotes: (q, render) => registry.onMarket(q.marketId, (actor) => actor.quotes(q, render)),
    });
    this.owner = new OwnerDesk<C, MarketActor>({
      nodeID: e.nodeID,
      actors: registry,
      modes,
      journaled: e.requests.journaled,
      topOnOwner: e.requests.topOnOwner,
    });
  }
}
