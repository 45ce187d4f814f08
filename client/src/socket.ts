/**
 * The real-time client over Socket.IO at `/ws`: keeps the connection alive with a ping every 5 s,
 * typed subscriptions for the market, book and user channels (callbacks or async iterators), and
 * recovery: after any reconnection every subscription is sent again, and each order book is rebuilt
 * from the fresh snapshot the server sends on subscription.
 *
 * Book updates carry the full top-10 levels and a sequence number. The server coalesces bursts
 * (latest state wins), so a skipped number in a live stream loses nothing; updates older than the
 * book held are dropped, and with `resyncOnGap` any skip triggers a fresh snapshot as well.
 */
import { io, type Socket } from "socket.io-client";
import type { BookLevel, OrderBook, Outcome } from "./models";
import type { MarketPrices, ServerMessage, UserUpdate } from "./generated/socket";
import { Emitter, unrefTimer } from "./emitter";

type Timer = ReturnType<typeof setTimeout>;

export const SOCKET_PATH = "/ws";
export const DEFAULT_PING_INTERVAL_MS = 5_000;

export type Channel = "market" | "book" | "user";

// The payloads, generated from the server's contract (npm run contract:sdk).
export type {
  MarketPrices,
  PositionUpdate,
  OrderUpdate,
  TradeUpdate,
  UserUpdate,
  ServerMessage,
  SocketErrorCode,
  SubscribeRequest,
  UnsubscribeRequest,
} from "./generated/socket";

/** One side's view of a book: the top levels, best first. */
export type BookLevels = OrderBook;

/** A refusal or notice of the server (`code` says which). */
export type SocketErrorMessage = Extract<ServerMessage, { type: "error" }>;

export interface SocketOptions {
  /** The gateway origin, e.g. "http://localhost:3000". */
  url: string;
  path?: string;
  /** Default 5 s; the server drops clients silent for 10 s. */
  pingIntervalMs?: number;
  transports?: Array<"websocket" | "polling">;
  /** Access token for the user channel, read at every (re)subscription so refreshed tokens are used. */
  token?: () => string | undefined | null;
  /** Any sequence skip in a book stream also triggers a fresh snapshot (default false, see above). */
  resyncOnGap?: boolean;
  reconnectionDelayMs?: number;
  reconnectionDelayMaxMs?: number;
  /** How long ready promises wait for the server's confirmation (default 10 s). */
  confirmTimeoutMs?: number;
}

/** Local copy of one order book view. */
export interface BookState {
  marketId: string;
  outcome: Outcome;
  seq: number;
  bids: BookLevel[];
  asks: BookLevel[];
  /** False between a (re)connection and the fresh snapshot. */
  synced: boolean;
}

/**
 * A push queue that is also an async iterable: values arrive through push(); a slow consumer
 * either gets every value (queue) or only the newest (latestOnly, for whole-state feeds).
 */
class Feed<T> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private readonly waiters: Array<{ resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }> = [];
  private done = false;
  private failure: unknown = null;

  constructor(
    private readonly latestOnly: boolean,
    private readonly onReturn: () => void,
  ) {}

  push(v: T): void {
    if (this.done) return;
    const w = this.waiters.shift();
    if (w) return w.resolve({ value: v, done: false });
    if (this.latestOnly) this.queue.length = 0;
    this.queue.push(v);
  }

  end(err?: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failure = err ?? null;
    for (const w of this.waiters.splice(0)) {
      if (err) w.reject(err);
      else w.resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const v = this.queue.shift();
        if (v !== undefined) return Promise.resolve({ value: v, done: false });
        if (this.done) return this.failure ? Promise.reject(this.failure) : Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
      },
      return: () => {
        this.onReturn();
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** A promise settled once, with a timeout; re-armed on each (re)subscription. */
class Confirm<T> {
  promise!: Promise<T>;
  private resolveFn!: (v: T) => void;
  private rejectFn!: (e: unknown) => void;
  private timer: Timer | null = null;
  settled = false;

  constructor() {
    this.arm();
  }

  arm(): void {
    this.settled = false;
    this.promise = new Promise<T>((res, rej) => {
      this.resolveFn = res;
      this.rejectFn = rej;
    });
    this.promise.catch(() => undefined);
  }

  start(ms: number, what: string): void {
    this.clear();
    this.timer = setTimeout(() => this.reject(new Error(`${what}: no confirmation within ${ms} ms`)), ms);
    unrefTimer(this.timer);
  }

  resolve(v: T): void {
    this.clear();
    if (this.settled) return;
    this.settled = true;
    this.resolveFn(v);
  }

  reject(e: unknown): void {
    this.clear();
    if (this.settled) return;
    this.settled = true;
    this.rejectFn(e);
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

export class SocketSubscriptionError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly channel: Channel | undefined,
  ) {
    super(message);
    this.name = "SocketSubscriptionError";
  }
}

/**
 * What every channel subscription shares: a callback and any number of async iterators fed the
 * same updates, a confirmation, and leaving (by the user) or ending (the socket closed).
 */
abstract class Subscription<T, R> implements AsyncIterable<T> {
  abstract readonly channel: Channel;
  readonly confirm = new Confirm<R>();
  private readonly feeds = new Set<Feed<T>>();
  active = true;

  constructor(
    protected readonly owner: PmxSocket,
    private readonly onUpdate: ((v: T) => void) | undefined,
    /** Iterators see only the newest value (book states) instead of every update. */
    private readonly latestOnly: boolean,
    /** Whether ending also fails a confirmation still pending. */
    private readonly rejectOnEnd: boolean,
  ) {}

  /** Resolves when the server confirmed (for books: after the first snapshot). */
  get ready(): Promise<R> {
    return this.confirm.promise;
  }

  deliver(v: T): void {
    this.onUpdate?.(v);
    for (const f of this.feeds) f.push(v);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    const feed: Feed<T> = new Feed<T>(this.latestOnly, () => this.feeds.delete(feed));
    this.feeds.add(feed);
    return feed[Symbol.asyncIterator]();
  }

  unsubscribe(): void {
    if (!this.active) return;
    this.active = false;
    this.owner.drop(this as Subscription<unknown, unknown>);
    for (const f of this.feeds) f.end();
  }

  end(err?: unknown): void {
    this.active = false;
    if (this.rejectOnEnd) this.confirm.reject(err ?? new Error("closed"));
    for (const f of this.feeds) f.end(err);
  }
}

export class MarketSubscription extends Subscription<MarketPrices, string[]> {
  readonly channel = "market" as const;

  constructor(
    owner: PmxSocket,
    readonly marketIds: string[],
    onUpdate?: (p: MarketPrices) => void,
  ) {
    super(owner, onUpdate, false, false);
  }
}

export interface BookStats {
  snapshots: number;
  updates: number;
  /** Updates older than the book already held (dropped). */
  stale: number;
  /** Sequence skips seen in the live stream. */
  gaps: number;
  /** Fresh snapshots requested after a reconnection, a gap (resyncOnGap) or resync(). */
  resyncs: number;
}

export class BookSubscription extends Subscription<BookState, BookState> {
  readonly channel = "book" as const;
  readonly stats: BookStats = { snapshots: 0, updates: 0, stale: 0, gaps: 0, resyncs: 0 };
  private state: BookState;

  constructor(
    owner: PmxSocket,
    readonly marketId: string,
    readonly outcome: Outcome,
    onUpdate?: (b: BookState) => void,
  ) {
    // Book iterators see the newest state, never a backlog.
    super(owner, onUpdate, true, true);
    this.state = { marketId, outcome, seq: -1, bids: [], asks: [], synced: false };
  }

  get key(): string {
    return `${this.marketId}:${this.outcome}`;
  }

  /** The current local book (a copy). */
  get book(): BookState {
    return { ...this.state, bids: this.state.bids.map((l) => ({ ...l })), asks: this.state.asks.map((l) => ({ ...l })) };
  }

  /** Forget the local book and ask the server for a fresh snapshot. */
  resync(): void {
    if (!this.active) return;
    this.stats.resyncs++;
    this.state = { ...this.state, synced: false };
    this.owner.resubscribeBook(this);
  }

  markUnsynced(): void {
    this.state = { ...this.state, synced: false };
  }

  applySnapshot(seq: number, data: BookLevels): void {
    // A snapshot always wins: it is what the server holds at subscription time.
    this.stats.snapshots++;
    this.state = { marketId: this.marketId, outcome: this.outcome, seq, bids: data.bids, asks: data.asks, synced: true };
    this.publish();
    this.confirm.resolve(this.book);
  }

  applyUpdate(seq: number, data: BookLevels, resyncOnGap: boolean): void {
    if (!this.state.synced) return;
    if (seq <= this.state.seq) {
      this.stats.stale++;
      return;
    }
    this.stats.updates++;
    const gap = seq > this.state.seq + 1;
    if (gap) this.stats.gaps++;
    this.state = { ...this.state, seq, bids: data.bids, asks: data.asks };
    this.publish();
    if (gap && resyncOnGap) this.resync();
  }

  private publish(): void {
    this.deliver(this.book);
  }
}

export class UserSubscription extends Subscription<UserUpdate, string> {
  readonly channel = "user" as const;
  userId: string | null = null;
  /** The token last sent, so a refreshed one can be told apart. */
  sentToken: string | null = null;

  constructor(
    owner: PmxSocket,
    readonly fixedToken: string | undefined,
    onUpdate?: (u: UserUpdate) => void,
  ) {
    super(owner, onUpdate, false, true);
  }
}

export interface PmxSocketEvents {
  connect: [];
  /** After the first connection: every subscription has been sent again. */
  reconnect: [];
  disconnect: [reason: string];
  message: [msg: ServerMessage];
  error: [err: SocketErrorMessage];
  pong: [];
  close: [];
}

export class PmxSocket extends Emitter<PmxSocketEvents> {
  readonly socket: Socket;
  private readonly opts: SocketOptions;
  private readonly markets = new Set<MarketSubscription>();
  private readonly books = new Map<string, BookSubscription>();
  private user: UserSubscription | null = null;
  private pinger: Timer | null = null;
  private connectedOnce = false;
  private closed = false;
  private reconnectTimer: Timer | null = null;
  /** Connections made so far (1 after the first connect). */
  connections = 0;

  constructor(opts: SocketOptions) {
    super();
    this.opts = opts;
    this.socket = io(opts.url, {
      path: opts.path ?? SOCKET_PATH,
      transports: opts.transports ?? ["websocket", "polling"],
      forceNew: true,
      autoConnect: false,
      reconnection: true,
      reconnectionDelay: opts.reconnectionDelayMs ?? 500,
      reconnectionDelayMax: opts.reconnectionDelayMaxMs ?? 5_000,
    });
    this.socket.on("connect", () => this.onConnect());
    this.socket.on("disconnect", (reason) => this.onDisconnect(reason));
    this.socket.on("message", (m: ServerMessage) => this.onMessage(m));
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /** Connect; resolves on the first connection (rejects if it cannot be made). */
  connect(): Promise<void> {
    if (this.socket.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const ok = () => {
        this.socket.off("connect_error", fail);
        resolve();
      };
      const fail = (err: Error) => {
        this.socket.off("connect", ok);
        this.socket.disconnect();
        reject(err);
      };
      this.socket.once("connect", ok);
      this.socket.once("connect_error", fail);
      this.socket.connect();
    });
  }

  /** Stop for good: no reconnection, every subscription ends. */
  close(): void {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.stopPing();
    for (const s of this.markets) s.end();
    for (const s of this.books.values()) s.end();
    this.user?.end();
    this.markets.clear();
    this.books.clear();
    this.user = null;
    this.socket.disconnect();
    this.emit("close");
  }

  ping(): void {
    if (this.socket.connected) this.socket.emit("ping");
  }

  subscribeMarkets(marketIds: string[], onUpdate?: (p: MarketPrices) => void): MarketSubscription {
    const sub = new MarketSubscription(this, [...new Set(marketIds)], onUpdate);
    this.markets.add(sub);
    this.sendMarket(sub);
    return sub;
  }

  /** One book view (YES by default); an existing subscription of the same view is returned as is. */
  subscribeBook(marketId: string, opts: { outcome?: Outcome; onUpdate?: (b: BookState) => void } = {}): BookSubscription {
    const outcome = opts.outcome ?? "YES";
    const existing = this.books.get(`${marketId}:${outcome}`);
    if (existing) return existing;
    const sub = new BookSubscription(this, marketId, outcome, opts.onUpdate);
    this.books.set(sub.key, sub);
    this.sendBook(sub);
    return sub;
  }

  /** The caller's balance, position, order, trade and notification updates. */
  subscribeUser(opts: { token?: string; onUpdate?: (u: UserUpdate) => void } = {}): UserSubscription {
    this.user?.end(new Error("replaced by a new user subscription"));
    const sub = new UserSubscription(this, opts.token, opts.onUpdate);
    this.user = sub;
    this.sendUser(sub);
    return sub;
  }

  /** The token changed (refresh, new login): the user channel is subscribed again with it. */
  tokenChanged(): void {
    const u = this.user;
    if (!u || !u.active) return;
    const token = this.currentToken(u);
    if (token && token !== u.sentToken) this.sendUser(u);
  }

  resubscribeBook(sub: BookSubscription): void {
    if (!this.socket.connected) return; // the reconnection will do it
    this.socket.emit("unsubscribe", { channel: "book", marketId: sub.marketId, outcome: sub.outcome });
    this.sendBook(sub);
  }

  drop(sub: Subscription<unknown, unknown>): void {
    if (sub instanceof MarketSubscription) {
      this.markets.delete(sub);
      // Leave only the markets no other subscription still follows.
      const still = new Set([...this.markets].flatMap((m) => m.marketIds));
      const gone = sub.marketIds.filter((id) => !still.has(id));
      if (gone.length && this.socket.connected) this.socket.emit("unsubscribe", { channel: "market", marketIds: gone });
    } else if (sub instanceof BookSubscription) {
      this.books.delete(sub.key);
      if (this.socket.connected) this.socket.emit("unsubscribe", { channel: "book", marketId: sub.marketId, outcome: sub.outcome });
    } else if (sub instanceof UserSubscription && this.user === sub) {
      this.user = null;
      if (this.socket.connected) this.socket.emit("unsubscribe", { channel: "user" });
    }
  }

  private confirmMs(): number {
    return this.opts.confirmTimeoutMs ?? 10_000;
  }

  private sendMarket(sub: MarketSubscription): void {
    if (sub.confirm.settled) sub.confirm.arm();
    if (!this.socket.connected) return;
    sub.confirm.start(this.confirmMs(), "market subscription");
    this.socket.emit("subscribe", { channel: "market", marketIds: sub.marketIds });
  }

  private sendBook(sub: BookSubscription): void {
    sub.markUnsynced();
    if (!this.socket.connected) return;
    if (!sub.confirm.settled) sub.confirm.start(this.confirmMs(), `book subscription ${sub.key}`);
    this.socket.emit("subscribe", { channel: "book", marketId: sub.marketId, outcome: sub.outcome });
  }

  private currentToken(sub: UserSubscription): string | undefined {
    return sub.fixedToken ?? this.opts.token?.() ?? undefined;
  }

  private sendUser(sub: UserSubscription): void {
    if (!this.socket.connected) return;
    const token = this.currentToken(sub);
    if (!token) {
      sub.end(new SocketSubscriptionError("The user channel needs an access token: log in first", "UNAUTHORIZED", "user"));
      if (this.user === sub) this.user = null;
      return;
    }
    if (!sub.confirm.settled) sub.confirm.start(this.confirmMs(), "user subscription");
    sub.sentToken = token;
    this.socket.emit("subscribe", { channel: "user", token });
  }

  private onConnect(): void {
    this.connections++;
    this.startPing();
    const again = this.connectedOnce;
    this.connectedOnce = true;
    this.emit("connect");
    // A new connection has no subscriptions server-side: send them all again; books get fresh snapshots.
    for (const s of this.markets) this.sendMarket(s);
    for (const s of this.books.values()) {
      if (again) s.stats.resyncs++;
      this.sendBook(s);
    }
    if (this.user) this.sendUser(this.user);
    if (again) this.emit("reconnect");
  }

  private onDisconnect(reason: string): void {
    this.stopPing();
    for (const s of this.books.values()) s.markUnsynced();
    this.emit("disconnect", reason);
    // socket.io does not reconnect after a server-side disconnect (idle timeout, shutdown): we do.
    if (!this.closed && reason === "io server disconnect") {
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        if (!this.closed) this.socket.connect();
      }, this.opts.reconnectionDelayMs ?? 500);
      unrefTimer(this.reconnectTimer);
    }
  }

  private startPing(): void {
    this.stopPing();
    this.pinger = setInterval(() => this.ping(), this.opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS);
    unrefTimer(this.pinger);
  }

  private stopPing(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
  }

  private bookOf(marketId: string, outcome: Outcome | undefined): BookSubscription | undefined {
    return this.books.get(`${marketId}:${outcome ?? "YES"}`);
  }

  private onMessage(m: ServerMessage): void {
    if (!m || typeof m !== "object") return;
    this.emit("message", m);
    switch (m.type) {
      case "pong":
        this.emit("pong");
        return;
      case "snapshot":
        this.bookOf(m.marketId, m.outcome)?.applySnapshot(m.seq, m.data);
        return;
      case "subscribed":
        if (m.channel === "market") {
          for (const s of this.markets) if (s.marketIds.every((id) => m.marketIds.includes(id))) s.confirm.resolve(m.marketIds);
        } else if (m.channel === "user" && this.user) {
          this.user.userId = m.userId;
          this.user.confirm.resolve(m.userId);
        }
        return;
      case "unsubscribed":
        return;
      case "update":
        if (m.channel === "book") this.bookOf(m.marketId, m.outcome)?.applyUpdate(m.seq, m.data, this.opts.resyncOnGap ?? false);
        else if (m.channel === "market") {
          for (const s of this.markets) if (s.marketIds.includes(m.data.marketId)) s.deliver(m.data);
        } else if (m.channel === "user") this.user?.deliver(m.data);
        return;
      case "error":
        this.onError(m);
        return;
    }
  }

  private onError(m: SocketErrorMessage): void {
    const err = new SocketSubscriptionError(m.message, m.code, m.channel);
    if (m.channel === "user" && this.user) {
      const u = this.user;
      // A refresh ends the old session: if a newer token is at hand, carry on with it.
      const token = this.currentToken(u);
      if (m.code === "SESSION_ENDED" && token && token !== u.sentToken) this.sendUser(u);
      else if (!u.confirm.settled) u.confirm.reject(err);
    } else if (m.channel === "book") {
      const pending = [...this.books.values()].find((b) => !b.confirm.settled);
      pending?.confirm.reject(err);
    } else if (m.channel === "market") {
      const pending = [...this.markets].find((s) => !s.confirm.settled);
      pending?.confirm.reject(err);
    }
    if (this.listenerCount("error") > 0) this.emit("error", m);
  }
}
