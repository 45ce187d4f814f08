/**
 * One socket connection's subscriptions: the rules of `subscribe` / `unsubscribe` on the market,
 * book and user channels (limits, snapshot then `subscribed`, the catch-up update, the user token's
 * generation and expiry). Framework-free: gateway/socket.ts fills the ports with socket.io rooms and
 * broker calls.
 */
import type { ActionResult, EventPayload } from "../contract";
import {
  MAX_BOOK_SUBSCRIPTIONS,
  MAX_MARKET_SUBSCRIPTIONS,
  noView,
  parseSubscribe,
  parseUnsubscribe,
  rooms,
  type ErrorMessage,
  type ServerMessage,
  type Subscription,
} from "./socket-protocol";

export type BookDepth = ActionResult<"book.depth">;
export type TokenUser = NonNullable<ActionResult<"auth.resolveToken">>;
export type BookChange = EventPayload<"book.changed">;

/** What the connection's subscriptions need from the socket and the services behind it. */
export interface SubscriptionPorts {
  join(rooms: string[]): void;
  leave(room: string): void;
  send(msg: ServerMessage): void;
  /** False once the socket is gone: a late answer is then dropped. */
  connected(): boolean;
  /** The book's depth, null when the market does not exist; throws when it cannot be had now. */
  depth(marketId: string): Promise<BookDepth | null>;
  /** The token's user, null when invalid or expired; throws when auth cannot answer now. */
  resolveToken(token: string): Promise<TokenUser | null>;
  /** The newest `book.changed` this gateway heard for the market. */
  lastBook(marketId: string): BookChange | undefined;
  /** Updates of `room` up to `seq` are not sent to this socket (already in its snapshot). */
  setFloor(room: string, seq: number): void;
  dropFloor(room: string): void;
  timers: { set(fn: () => void, ms: number): unknown; clear(handle: unknown): void };
  now(): number;
  warn(msg: string, err: unknown): void;
}

export const errorMsg = (code: ErrorMessage["code"], message: string, channel?: ErrorMessage["channel"]): ErrorMessage =>
  channel ? { type: "error", code, message, channel } : { type: "error", code, message };

export class ConnectionSubscriptions {
  private readonly markets = new Set<string>();
  /** `${marketId}:${outcome}` of book subscriptions in place. */
  private readonly books = new Set<string>();
  /** Book subscriptions waiting for their snapshot; an unsubscribe meanwhile cancels them. */
  private readonly pendingBooks = new Map<string, number>();
  private bookGen = 0;
  private user: { userId: string; sid: string; expiry: unknown } | null = null;
  /** Bumped by every user subscribe/unsubscribe so a slow token check cannot win over a newer one. */
  private userGen = 0;

  constructor(private readonly ports: SubscriptionPorts) {}

  /** The user channel's session id, if subscribed. */
  get sid(): string | null {
    return this.user?.sid ?? null;
  }

  async subscribe(payload: unknown): Promise<void> {
    const parsed = parseSubscribe(payload);
    if (!parsed.ok) return this.ports.send(parsed.error);
    const sub = parsed.value;
    if (sub.channel === "market") {
      const fresh = sub.marketIds.filter((id) => !this.markets.has(id));
      if (this.markets.size + fresh.length > MAX_MARKET_SUBSCRIPTIONS) {
        return this.ports.send(errorMsg("LIMIT_EXCEEDED", `At most ${MAX_MARKET_SUBSCRIPTIONS} markets per connection`, "market"));
      }
      for (const id of fresh) this.markets.add(id);
      this.ports.join(sub.marketIds.map(rooms.market));
      return this.ports.send({ type: "subscribed", channel: "market", marketIds: sub.marketIds });
    }
    if (sub.channel === "book") return this.subscribeBook(sub);
    return this.subscribeUser(sub.token);
  }

  private async subscribeBook(sub: Extract<Subscription, { channel: "book" }>): Promise<void> {
    const { ports } = this;
    const key = `${sub.marketId}:${sub.outcome}`;
    const taken = new Set([...this.books, ...this.pendingBooks.keys()]);
    if (!taken.has(key) && taken.size >= MAX_BOOK_SUBSCRIPTIONS) {
      return ports.send(errorMsg("LIMIT_EXCEEDED", `At most ${MAX_BOOK_SUBSCRIPTIONS} order books per connection`, "book"));
    }
    const gen = ++this.bookGen;
    this.pendingBooks.set(key, gen);
    const depth = await ports.depth(sub.marketId).catch(() => "unavailable" as const);
    if (depth === null || depth === "unavailable") {
      if (this.pendingBooks.get(key) === gen) this.pendingBooks.delete(key);
      return ports.send(
        depth === null
          ? errorMsg("NOT_FOUND", "Market not found", "book")
          : errorMsg("UNAVAILABLE", "Order book unavailable, try again", "book"),
      );
    }
    // Unsubscribed, resubscribed or gone while the snapshot was on its way.
    if (this.pendingBooks.get(key) !== gen || !ports.connected()) return;
    this.pendingBooks.delete(key);
    // From here to the end nothing awaits: no update can slip in between snapshot and room.
    this.books.add(key);
    const room = rooms.book(sub.marketId, sub.outcome);
    ports.join([room]);
    const data = sub.outcome === "YES" ? depth.yes : depth.no;
    ports.send({
      type: "snapshot",
      channel: "book",
      marketId: sub.marketId,
      outcome: sub.outcome,
      seq: depth.seq,
      data: { bids: data.bids, asks: data.asks },
    });
    ports.send({ type: "subscribed", channel: "book", marketId: sub.marketId, outcome: sub.outcome });
    // A change this node heard while the snapshot was fetched would otherwise be missed.
    const last = ports.lastBook(sub.marketId);
    let floor = depth.seq;
    if (last && last.seq > depth.seq) {
      const levels = sub.outcome === "YES" ? last.yes : noView(last.yes);
      ports.send({
        type: "update",
        channel: "book",
        marketId: sub.marketId,
        outcome: sub.outcome,
        seq: last.seq,
        data: { marketId: sub.marketId, bids: levels.bids, asks: levels.asks },
      });
      floor = last.seq;
    }
    ports.setFloor(room, floor);
  }

  private async subscribeUser(token: string): Promise<void> {
    const { ports } = this;
    const gen = ++this.userGen;
    let user: TokenUser | null;
    try {
      user = await ports.resolveToken(token);
    } catch (err) {
      ports.warn("auth.resolveToken failed", err);
      if (gen === this.userGen) ports.send(errorMsg("UNAVAILABLE", "Authentication unavailable, try again", "user"));
      return;
    }
    if (gen !== this.userGen || !ports.connected()) return;
    if (!user) return ports.send(errorMsg("UNAUTHORIZED", "Invalid or expired token", "user"));
    const prev = this.user;
    if (prev) {
      ports.timers.clear(prev.expiry);
      if (prev.userId !== user.id) ports.leave(rooms.user(prev.userId));
    }
    // The subscription ends with the token: past `exp` the session no longer authorizes anything.
    const expiry = ports.timers.set(
      () => {
        this.endUser(errorMsg("SESSION_ENDED", "Token expired; subscribe again with a fresh token", "user"));
      },
      Math.max(0, user.exp * 1000 - ports.now()),
    );
    this.user = { userId: user.id, sid: user.sid, expiry };
    ports.join([rooms.user(user.id)]);
    ports.send({ type: "subscribed", channel: "user", userId: user.id });
  }

  unsubscribe(payload: unknown): void {
    const { ports } = this;
    const parsed = parseUnsubscribe(payload);
    if (!parsed.ok) return ports.send(parsed.error);
    const u = parsed.value;
    if (u.channel === "market") {
      const ids = u.marketIds ?? [...this.markets];
      for (const id of ids) {
        this.markets.delete(id);
        ports.leave(rooms.market(id));
      }
      return ports.send({ type: "unsubscribed", channel: "market", marketIds: ids });
    }
    if (u.channel === "book") {
      const key = `${u.marketId}:${u.outcome}`;
      this.pendingBooks.delete(key);
      this.books.delete(key);
      ports.leave(rooms.book(u.marketId, u.outcome));
      ports.dropFloor(rooms.book(u.marketId, u.outcome));
      return ports.send({ type: "unsubscribed", channel: "book", marketId: u.marketId, outcome: u.outcome });
    }
    const userId = this.endUser(null);
    ports.send({ type: "unsubscribed", channel: "user", userId });
  }

  /** Leave the user channel; with an error, tell the client why (logout, refresh, expiry). */
  endUser(error: ErrorMessage | null): string | null {
    this.userGen++;
    const prev = this.user;
    if (!prev) return null;
    this.ports.timers.clear(prev.expiry);
    this.user = null;
    this.ports.leave(rooms.user(prev.userId));
    if (error) this.ports.send(error);
    return prev.userId;
  }

  /** The socket is gone: answers still on their way are dropped, the expiry timer stops. */
  close(): void {
    this.stopTimers();
    this.userGen++;
    this.pendingBooks.clear();
  }

  stopTimers(): void {
    if (this.user) this.ports.timers.clear(this.user.expiry);
  }
}
