/**
 * What a gateway pushes to its sockets from what the exchange published: a market's book and price
 * changes coalesced per market (gateway/socket-coalesce.ts) and fanned out together, one write per
 * socket with the frames of all its rooms; each message encoded once for every socket; a socket's
 * snapshot floor (updates it already has are not sent again); prices pushed only when the best
 * prices changed; users' balances and positions coalesced per key, their orders, trades and
 * notifications as they come; each execution once on its market's channel (gateway/public-tape.ts). Framework-free: gateway/socket.ts fills the ports with socket.io's
 * rooms, the encoder and each connection's writer.
 */
import type { EventPayload } from "../contract";
import { tradeRecordView } from "../engine/settlement";
import { livePrices } from "../trading/live-prices";
import { publicTrades } from "./public-tape";
import { Coalescer } from "./socket-coalesce";
import { batchOf, type Batch, type EncodedMessage, type FanoutPath } from "./socket-direct";
import { COALESCE_MS, noView, rooms, type MarketPrices, type PositionUpdate, type ServerMessage, type UserUpdate } from "./socket-protocol";

export type BookChangedEvent = EventPayload<"book.changed">;
export type PricesChangedEvent = EventPayload<"market.pricesChanged">;
/** A market's latest book and prices waiting to go out (each absent until its event arrives). */
export type MarketChange = { book: BookChangedEvent | null; prices: PricesChangedEvent | null };
type UserPush = { userId: string; data: UserUpdate };

export interface FanoutPorts {
  /** The sockets (ids) in a room now, if any. */
  members(room: string): ReadonlySet<string> | undefined;
  /** One message as the frame every socket gets. */
  encode(msg: ServerMessage): EncodedMessage;
  /** Writes a batch to one socket: the path it took, or nothing when the socket is gone. */
  write(socketId: string, batch: Batch): FanoutPath | null | undefined;
  /** One message to every socket of a room (socket.io's own broadcast). */
  toRoom(room: string, msg: ServerMessage): void;
  /** The writes of one fan-out, counted once. */
  counted(writes: Record<FanoutPath, number>): void;
  /**
   * The YES price a race's pool gives a market now (null: the market has no event pool). Asked
   * once per market whose price changes come without an AMM side before any pool trade was heard
   * (a gateway started after the last one); absent: never asked.
   */
  poolPrice?(marketId: string): Promise<{ num: string; den: string } | null>;
  coalesceMs?: number;
}

export class SocketFanout {
  /** The newest `book.changed` heard per market (snapshots of new subscribers start from it). */
  readonly lastBook = new Map<string, BookChangedEvent>();
  /**
   * Book room -> socket -> seq of the snapshot (or catch-up) it was sent on subscribing: updates
   * up to that seq still on their way (the coalescing window, a slower event) are not sent to it.
   * An entry lives until the socket's first newer update.
   */
  private readonly bookFloors = new Map<string, Map<string, number>>();
  /** The prices last pushed per market (a signature). */
  private readonly lastPrices = new Map<string, string>();
  /** The AMM side last heard per market (a pool's price comes with every change of its own market, an event pool's with its trades). */
  private readonly lastAmm = new Map<string, { num: string; den: string }>();
  /** Markets known to have no event pool (their AMM side, if any, comes with their own changes). */
  private readonly noPool = new Set<string>();
  /** The pool's price being asked for, per market. */
  private readonly asking = new Map<string, Promise<void>>();
  /** Price changes heard per market: one held back by the question is dropped when a newer one was heard. */
  private readonly heard = new Map<string, number>();
  private readonly marketPush: Coalescer<MarketChange>;
  private readonly userPush: Coalescer<UserPush>;

  constructor(private readonly ports: FanoutPorts) {
    const ms = ports.coalesceMs ?? COALESCE_MS;
    this.marketPush = new Coalescer<MarketChange>(
      ms,
      (marketId, change) => this.flushMarket(marketId, change),
      (pending, next) => ({ book: next.book ?? pending.book, prices: next.prices ?? pending.prices }),
    );
    this.userPush = new Coalescer<UserPush>(ms, (_k, p) => {
      if (this.hasMembers(rooms.user(p.userId))) this.ports.toRoom(rooms.user(p.userId), { type: "update", channel: "user", data: p.data });
    });
  }

  hasMembers(room: string): boolean {
    return (this.ports.members(room)?.size ?? 0) > 0;
  }

  book(ev: BookChangedEvent): void {
    const prev = this.lastBook.get(ev.marketId);
    if (prev && prev.seq > ev.seq) return;
    this.lastBook.set(ev.marketId, ev);
    if (this.hasMembers(rooms.book(ev.marketId, "YES")) || this.hasMembers(rooms.book(ev.marketId, "NO")))
      this.marketPush.push(ev.marketId, { book: ev, prices: null });
  }

  prices(ev: PricesChangedEvent): void {
    const id = ev.marketId;
    const n = (this.heard.get(id) ?? 0) + 1;
    this.heard.set(id, n);
    // A race's pool is the ledger's: its book's changes come without it, so its last known price stays the AMM side.
    if (ev.ammYes) this.lastAmm.set(id, ev.ammYes);
    else if (this.lastAmm.has(id)) ev = { ...ev, ammYes: this.lastAmm.get(id)! };
    else if (this.ports.poolPrice && !this.noPool.has(id)) {
      // No pool trade heard since this gateway started: ask the pool once, then push unless a newer change came.
      void this.askPool(id).then(() => {
        if (this.heard.get(id) === n) this.push(this.lastAmm.has(id) ? { ...ev, ammYes: this.lastAmm.get(id)! } : ev);
      });
      return;
    }
    this.push(ev);
  }

  private push(ev: PricesChangedEvent): void {
    if (this.hasMembers(rooms.market(ev.marketId))) this.marketPush.push(ev.marketId, { book: null, prices: ev });
    else this.lastPrices.delete(ev.marketId);
  }

  /** The pool's price of a market, asked once (again after a failed question); a trade heard meanwhile is newer and stays. */
  private askPool(id: string): Promise<void> {
    let p = this.asking.get(id);
    if (!p) {
      p = this.ports.poolPrice!(id)
        .then((price) => {
          if (price && !this.lastAmm.has(id)) this.lastAmm.set(id, price);
          else if (!price) this.noPool.add(id);
        })
        .catch(() => undefined)
        .finally(() => this.asking.delete(id));
      this.asking.set(id, p);
    }
    return p;
  }

  balance({ userId, balance }: EventPayload<"ledger.balanceChanged">): void {
    this.user(userId, { balance: { available: balance.available, locked: balance.locked, total: balance.total } }, `bal:${userId}`);
  }

  position({ userId, position: p }: EventPayload<"ledger.positionChanged">): void {
    const position: PositionUpdate = {
      marketId: p.marketId,
      outcome: p.outcome,
      quantity: p.quantity,
      avgEntryPrice: p.avgEntryPrice,
      totalCost: p.totalCost,
      realizedPnl: p.realizedPnl,
    };
    this.user(userId, { position }, `pos:${userId}:${p.marketId}:${p.outcome}`);
  }

  trade({ userId, trade }: EventPayload<"ledger.tradeCreated">): void {
    this.user(userId, { trade: tradeRecordView(trade) });
  }

  /**
   * One commit's trade records (`ledger.committed`): each execution once on its market's channel,
   * as it comes (not coalesced: every print is news), to that market's subscribers only.
   */
  tape(trades: ReadonlyArray<EventPayload<"ledger.tradeCreated">["trade"]>): void {
    if (!trades.some((t) => this.hasMembers(rooms.market(t.marketId)))) return;
    for (const data of publicTrades(trades)) {
      const room = rooms.market(data.marketId);
      if (this.hasMembers(room)) this.ports.toRoom(room, { type: "trade", channel: "market", data });
    }
  }

  order(o: EventPayload<"order.updated">): void {
    this.user(o.userId, {
      order: {
        orderId: o.orderId,
        marketId: o.marketId,
        status: o.status,
        remainingQuantity: o.remainingQuantity,
        filledDelta: o.filledDelta,
        clientOrderId: o.clientOrderId ?? null,
        cancelReason: o.cancelReason ?? null,
      },
    });
  }

  /** A user's update: coalesced under `coalesceKey` (latest state wins), else sent as it comes. */
  user(userId: string, data: UserUpdate, coalesceKey?: string): void {
    if (!this.hasMembers(rooms.user(userId))) return;
    if (coalesceKey) this.userPush.push(coalesceKey, { userId, data });
    else this.ports.toRoom(rooms.user(userId), { type: "update", channel: "user", data });
  }

  /** Updates of `room` up to `seq` are not sent to `socketId` (already in its snapshot). */
  setFloor(room: string, socketId: string, seq: number): void {
    let floors = this.bookFloors.get(room);
    if (!floors) this.bookFloors.set(room, (floors = new Map()));
    floors.set(socketId, seq);
  }

  dropFloor(room: string, socketId: string): void {
    this.bookFloors.get(room)?.delete(socketId);
  }

  /** A socket closed: its floors go. */
  socketGone(socketId: string): void {
    for (const [room, floors] of this.bookFloors) if (floors.delete(socketId) && !floors.size) this.bookFloors.delete(room);
  }

  /** Rooms with floors kept now. */
  get floorRooms(): number {
    return this.bookFloors.size;
  }

  clear(): void {
    this.marketPush.clear();
    this.userPush.clear();
  }

  flushMarket(marketId: string, change: MarketChange): void {
    const targets: string[] = [];
    const msgs: ServerMessage[] = [];
    const ev = change.book;
    if (ev) {
      for (const outcome of ["YES", "NO"] as const) {
        const room = rooms.book(marketId, outcome);
        if (!this.hasMembers(room)) continue;
        const levels = outcome === "YES" ? ev.yes : noView(ev.yes);
        targets.push(room);
        msgs.push({
          type: "update",
          channel: "book",
          marketId,
          outcome,
          seq: ev.seq,
          data: { marketId, bids: levels.bids, asks: levels.asks },
        });
      }
    }
    const price = change.prices && this.priceUpdate(change.prices);
    if (price && this.hasMembers(rooms.market(marketId))) {
      targets.push(rooms.market(marketId));
      msgs.push(price);
    }
    if (msgs.length) this.fanOut(targets, msgs);
  }

  private priceUpdate(ev: PricesChangedEvent): ServerMessage | null {
    // The same prices as REST (best of book and pool), so the socket and GET /markets/:id agree.
    const data: MarketPrices = {
      marketId: ev.marketId,
      ...livePrices({ yesBid: ev.yesBid, yesAsk: ev.yesAsk, ammYes: ev.ammYes ?? null }),
    };
    // Most book changes leave the best prices alone: push only real changes.
    const sig = `${data.buyYesPrice}|${data.buyNoPrice}|${data.sellYesPrice}|${data.sellNoPrice}`;
    if (this.lastPrices.get(ev.marketId) === sig) return null;
    this.lastPrices.set(ev.marketId, sig);
    return { type: "update", channel: "market", data };
  }

  /**
   * `msgs[i]` to every socket in room `roomNames[i]`; a socket in several of them gets its messages
   * in that order in one write. Each message is encoded once for all sockets (Socket.IO's own
   * broadcast does the same for one message).
   */
  fanOut(roomNames: string[], msgs: ServerMessage[]): void {
    const none = new Set<string>();
    const members = roomNames.map((r) => this.ports.members(r) ?? none);
    const encoded = msgs.map((msg) => this.ports.encode(msg));
    // By room combination: its messages, in order.
    const byMask = new Map<number, Batch>();
    const mine = (mask: number) => {
      let batch = byMask.get(mask);
      if (!batch) byMask.set(mask, (batch = batchOf(encoded.filter((_, k) => mask & (1 << k)))));
      return batch;
    };
    const floors = roomNames.map((r) => this.bookFloors.get(r));
    const writes: Record<FanoutPath, number> = { websocket: 0, "engine-io": 0 };
    for (let i = 0; i < members.length; i++) {
      next: for (const id of members[i]) {
        for (let j = 0; j < i; j++) if (members[j].has(id)) continue next; // served with room j
        let mask = 1 << i;
        for (let j = i + 1; j < members.length; j++) if (members[j].has(id)) mask |= 1 << j;
        for (let k = 0; k < floors.length; k++) {
          const floor = mask & (1 << k) ? floors[k]?.get(id) : undefined;
          if (floor === undefined) continue;
          const seq = (msgs[k] as { seq?: number }).seq;
          if (seq !== undefined && seq <= floor)
            mask &= ~(1 << k); // already in its snapshot
          else floors[k]?.delete(id);
        }
        if (!mask) continue;
        const path = this.ports.write(id, mine(mask));
        if (path) writes[path]++;
      }
    }
    roomNames.forEach((r, k) => floors[k]?.size === 0 && this.bookFloors.delete(r));
    this.ports.counted(writes);
  }
}
