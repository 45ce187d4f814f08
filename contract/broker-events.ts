/**
 * Every broker event the services send each other, written once: its name, its payload and how
 * it travels (`broadcast`: every node's handler runs, e.g. each gateway pushes to its own sockets;
 * `emit`: one handler per service). Senders go through `emit()` / `broadcast()` below and the
 * cores' sinks are slices of this map, so an unknown name, a wrong payload or the wrong delivery
 * does not compile; handlers get their `ctx.params` from it (mixins/service.ts `defineService`).
 * Nested shapes come from the contract's schemas or from models/ (type imports only; no core).
 */
import type { TradeRecord } from "../engine/settlement";
import type { IncidentKind } from "../models/chain";
import type {
  EventResolvedEvent,
  MarketCancelledEvent,
  MarketClosedEvent,
  MarketLifecycleEvent,
  MarketOpenedEvent,
  MarketResolutionFailedEvent,
  MarketResolvedEvent,
  MarketTradeEvent,
  ResolutionNoticeEvent,
} from "../models/catalog";
import type { NotificationItem } from "../models/notification";
import type { Model } from "./wire";
import type { SocketModel } from "./events";
import type { TopOfBook } from "../models/trading";

export interface BrokerEvents {
  // A market's actor after each committed command (trading/publication.ts).
  /** The YES view of the top levels; every gateway derives the NO view. */
  "book.changed": { marketId: string; seq: number; yes: Model<"OrderBook"> };
  "market.pricesChanged": { marketId: string } & TopOfBook;
  /** An order of `userId` changed (its owner's user channel). */
  "order.updated": SocketModel<"OrderUpdate"> & { userId: string };
  /** A price print per execution, every venue (price history and volume). */
  "market.trade": MarketTradeEvent;
  /**
   * What a node's market actors published since its last message, in order: one broadcast for the
   * book changes, prices and order updates of every command committed meanwhile (each item is one
   * of the three events above), instead of an event each.
   */
  "book.published": { events: BookMessage[] };
  /**
   * The order updates of the same message whose orders ended unfilled (cancelled, expired): what
   * the notifier tells users, without every book change and price it does not read (scaled out or
   * on the embedded side node, each message it listens to is encoded for it).
   */
  "orders.closed": { updates: Array<SocketModel<"OrderUpdate"> & { userId: string }> };
  /** The prints of the same commands, together (one catalog node records them). */
  "market.trades": { prints: MarketTradeEvent[] };
  // The ledger after each group commit (ledger/changes.ts).
  /** The durability watermark: sent to the engines that wait on an entry of it (`durableGroup`). */
  "ledger.durable": { instance: string; seq: number };
  /** Every balance, position and trade change of one group commit, in one broadcast (items as the events below). */
  "ledger.committed": { events: LedgerMessage[] };
  "ledger.balanceChanged": { userId: string; balance: Model<"Balance"> };
  "ledger.positionChanged": { userId: string; position: SocketModel<"PositionUpdate"> };
  "ledger.tradeCreated": { userId: string; trade: TradeRecord & { totalCostDecimal: string; at?: string } };
  // The catalog's market lifecycle (catalog/catalog.ts).
  "market.opened": MarketOpenedEvent;
  "market.closed": MarketClosedEvent;
  "market.cancelled": MarketCancelledEvent;
  "market.resolutionFailed": MarketResolutionFailedEvent;
  "market.resolved": MarketResolvedEvent;
  /** A mutually exclusive event resolved as one step (its markets' settlement is one ledger entry). */
  "event.resolved": EventResolvedEvent;
  /** A result was proposed (its dispute window opened), or first disputed: every holder is told. */
  "market.resolutionProposed": ResolutionNoticeEvent;
  "market.resolutionDisputed": ResolutionNoticeEvent;
  /** A market's status or resolution changed: every gateway tells the market channel. */
  "catalog.marketLifecycle": MarketLifecycleEvent;
  /** A market's status changed: every catalog node drops its cached copy. */
  "catalog.marketChanged": { marketId: string };
  // auth (auth/auth.ts)
  "auth.userCreated": { userId: string; walletAddress: string };
  "auth.telegramLinked": { userId: string; chatId: number };
  /** A session ended (logout, refresh): every gateway forgets it at once. */
  "auth.sessionRevoked": { sid: string; userId: string };
  /** The operator granted a user a rate tier: every gateway applies it from the next request. */
  "auth.tierChanged": { userId: string; tier: string };
  // notifier
  "notifier.created": { userId: string; notification: NotificationItem };
  // chain (amounts as digit strings of micro-USDT)
  "chain.depositCredited": { userId: string; amount: string; txHash: string };
  "chain.incident": { userId: string; kind: IncidentKind; txHash: string };
  "chain.withdrawalSent": { userId: string; withdrawalId: string; amount: string; txHash: string };
  "chain.withdrawalFailed": { userId: string; withdrawalId: string; amount: string; reason: string };
  "chain.redeemed": { userId: string; marketId: string; payout: string };
  /** A cancelled market paid out: per account what it got, and the dust its resolution account kept. */
  "chain.refunded": { marketId: string; yesPayout: number; refunds: Array<{ account: string; amount: string }>; dust: string };
}

/** How each event travels (the keys are exactly the map's: a test lists them against the handlers). */
export const BROKER_EVENTS = {
  "book.changed": "broadcast",
  "market.pricesChanged": "broadcast",
  "order.updated": "broadcast",
  "market.trade": "emit",
  "book.published": "broadcast",
  "orders.closed": "broadcast",
  "market.trades": "emit",
  "ledger.durable": "broadcast",
  "ledger.committed": "broadcast",
  "ledger.balanceChanged": "broadcast",
  "ledger.positionChanged": "broadcast",
  "ledger.tradeCreated": "broadcast",
  "market.opened": "emit",
  "market.closed": "emit",
  "market.cancelled": "emit",
  "market.resolutionFailed": "emit",
  "market.resolved": "emit",
  "event.resolved": "emit",
  "market.resolutionProposed": "emit",
  "market.resolutionDisputed": "emit",
  "catalog.marketLifecycle": "broadcast",
  "catalog.marketChanged": "broadcast",
  "auth.userCreated": "emit",
  "auth.telegramLinked": "emit",
  "auth.sessionRevoked": "broadcast",
  "auth.tierChanged": "broadcast",
  "notifier.created": "emit",
  "chain.depositCredited": "emit",
  "chain.incident": "emit",
  "chain.withdrawalSent": "emit",
  "chain.withdrawalFailed": "emit",
  "chain.redeemed": "emit",
  "chain.refunded": "emit",
} as const satisfies { readonly [E in keyof BrokerEvents]: "emit" | "broadcast" };

export type EventName = keyof BrokerEvents;
/** What the event carries (a handler's `ctx.params`). */
export type EventPayload<E extends EventName> = BrokerEvents[E];
export type BroadcastEvent = { [E in EventName]: (typeof BROKER_EVENTS)[E] extends "broadcast" ? E : never }[EventName];
export type EmittedEvent = Exclude<EventName, BroadcastEvent>;
/** The events of one sender, by name prefix (`EventsOf<"chain">`): what a core's sink takes. */
export type EventsOf<Prefix extends string> = { [E in EventName as E extends `${Prefix}.${string}` ? E : never]: BrokerEvents[E] };
/** One event as a value (name and payload together), for cores that hand their events over as a list. */
export type EventMessage<E extends EventName = EventName> = { [K in E]: { name: K; payload: BrokerEvents[K] } }[E];

/** A market actor's publication, one item of `book.published`. */
export type BookMessage = EventMessage<"book.changed" | "market.pricesChanged" | "order.updated">;
/** A group commit's change for a user, one item of `ledger.committed`. */
export type LedgerMessage = EventMessage<"ledger.balanceChanged" | "ledger.positionChanged" | "ledger.tradeCreated">;

/**
 * The event group under which an engine node hears `ledger.durable`: the ledger emits each
 * watermark to the groups of the engines waiting on it, not to every engine of the cluster (a
 * broadcast, after a refused write, still reaches every group).
 */
export const durableGroup = (nodeID: string): string => `durable:${nodeID}`;

/** What can send an event: a Moleculer Context or ServiceBroker (structurally; no Moleculer import). */
export interface Emitter {
  emit(eventName: string, data?: unknown, opts?: object): unknown;
}
export interface Broadcaster {
  broadcast(eventName: string, data?: unknown, opts?: object): unknown;
}

/** Sends an emitted event (one handler per listening service). */
export function emit<E extends EmittedEvent>(from: Emitter, event: E, payload: BrokerEvents[E]): void {
  void from.emit(event, payload);
}

/** Sends the watermark to the engine nodes given (one handler each, under its `durableGroup`). */
export function emitDurable(from: Emitter, payload: BrokerEvents["ledger.durable"], nodeIDs: readonly string[]): void {
  if (nodeIDs.length) void from.emit("ledger.durable", payload, { groups: nodeIDs.map(durableGroup) });
}

/** Sends a broadcast event (every listening node's handler). */
export function broadcast<E extends BroadcastEvent>(from: Broadcaster, event: E, payload: BrokerEvents[E]): void {
  void from.broadcast(event, payload);
}
