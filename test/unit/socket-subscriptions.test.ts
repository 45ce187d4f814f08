/**
 * gateway/subscriptions.ts with in-memory ports: a connection's subscribe/unsubscribe rules
 * (limits, book snapshot order and catch-up, late answers, the user token's generation and expiry).
 */
import {
  ConnectionSubscriptions,
  type BookChange,
  type BookDepth,
  type SubscriptionPorts,
  type TokenUser,
} from "../../gateway/subscriptions";
import { MAX_BOOK_SUBSCRIPTIONS, MAX_MARKET_SUBSCRIPTIONS, type ServerMessage } from "../../gateway/socket-protocol";

type Deferred<T> = { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void };
function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const level = (price: string, quantity: number) => ({ price, quantity: String(quantity), numOrders: 1 });
const depthOf = (seq: number): BookDepth => ({
  seq,
  yes: { bids: [level("0.40", 10)], asks: [level("0.60", 5)] },
  no: { bids: [level("0.40", 5)], asks: [level("0.60", 10)] },
});

/** A connection whose ports record what it did; depth and token answers are handed out by the test. */
function connection() {
  const rooms = new Set<string>();
  const sent: ServerMessage[] = [];
  const floors = new Map<string, number>();
  const lastBooks = new Map<string, BookChange>();
  const depths: Array<{ marketId: string; answer: Deferred<BookDepth | null> }> = [];
  const tokens: Array<{ token: string; answer: Deferred<TokenUser | null> }> = [];
  const timers = new Map<number, { fn: () => void; ms: number }>();
  let nextTimer = 0;
  let connected = true;
  const ports: SubscriptionPorts = {
    join: (names) => names.forEach((r) => rooms.add(r)),
    leave: (room) => void rooms.delete(room),
    send: (msg) => void sent.push(msg),
    connected: () => connected,
    depth: (marketId) => {
      const answer = deferred<BookDepth | null>();
      depths.push({ marketId, answer });
      return answer.promise;
    },
    resolveToken: (token) => {
      const answer = deferred<TokenUser | null>();
      tokens.push({ token, answer });
      return answer.promise;
    },
    lastBook: (marketId) => lastBooks.get(marketId),
    setFloor: (room, seq) => void floors.set(room, seq),
    dropFloor: (room) => void floors.delete(room),
    timers: {
      set: (fn, ms) => (timers.set(++nextTimer, { fn, ms }), nextTimer),
      clear: (h) => void timers.delete(h as number),
    },
    now: () => 1_000_000_000,
    warn: () => undefined,
  };
  const subs = new ConnectionSubscriptions(ports);
  return {
    subs,
    rooms,
    sent,
    floors,
    lastBooks,
    depths,
    tokens,
    timers,
    /** The socket is gone (socket.io says so before its `disconnect` event runs close()). */
    gone: () => void (connected = false),
    /** Let awaited answers run. */
    settle: () => new Promise((r) => setImmediate(r)),
  };
}

const user = (id: string, sid = `s-${id}`, exp = 1_000_000_000 / 1000 + 60): TokenUser => ({ id, wallet: "0:ab", sid, exp });

describe("market channel", () => {
  it("joins the rooms and answers subscribed; over the limit LIMIT_EXCEEDED and nothing joined", async () => {
    const c = connection();
    const ids = Array.from({ length: MAX_MARKET_SUBSCRIPTIONS }, (_, i) => `m${i}`);
    await c.subs.subscribe({ channel: "market", marketIds: ids });
    expect(c.sent).toEqual([{ type: "subscribed", channel: "market", marketIds: ids }]);
    expect(c.rooms.size).toBe(MAX_MARKET_SUBSCRIPTIONS);
    // Markets already held do not count twice.
    await c.subs.subscribe({ channel: "market", marketIds: ids.slice(0, 5) });
    expect(c.sent[1]).toEqual({ type: "subscribed", channel: "market", marketIds: ids.slice(0, 5) });
    await c.subs.subscribe({ channel: "market", marketIds: ["extra"] });
    expect(c.sent[2]).toMatchObject({ type: "error", code: "LIMIT_EXCEEDED", channel: "market" });
    expect(c.rooms.has("m:extra")).toBe(false);
  });

  it("unsubscribes the named markets, or all of them", async () => {
    const c = connection();
    await c.subs.subscribe({ channel: "market", marketIds: ["a", "b", "c"] });
    c.subs.unsubscribe({ channel: "market", marketIds: ["a"] });
    expect(c.sent[1]).toEqual({ type: "unsubscribed", channel: "market", marketIds: ["a"] });
    expect([...c.rooms]).toEqual(["m:b", "m:c"]);
    c.subs.unsubscribe({ channel: "market" });
    expect(c.sent[2]).toEqual({ type: "unsubscribed", channel: "market", marketIds: ["b", "c"] });
    expect(c.rooms.size).toBe(0);
  });

  it("answers a malformed payload with the validation error", async () => {
    const c = connection();
    await c.subs.subscribe({ channel: "nope" });
    c.subs.unsubscribe(null);
    expect(c.sent.map((m) => m.type === "error" && m.code)).toEqual(["VALIDATION_ERROR", "VALIDATION_ERROR"]);
  });
});

describe("book channel", () => {
  it("sends the snapshot, then subscribed, joins the room and records the snapshot's seq as floor", async () => {
    const c = connection();
    const done = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "NO" });
    expect(c.rooms.size).toBe(0); // not before the snapshot
    c.depths[0].answer.resolve(depthOf(7));
    await done;
    expect(c.sent).toEqual([
      { type: "snapshot", channel: "book", marketId: "mkt", outcome: "NO", seq: 7, data: depthOf(7).no },
      { type: "subscribed", channel: "book", marketId: "mkt", outcome: "NO" },
    ]);
    expect([...c.rooms]).toEqual(["b:mkt:NO"]);
    expect(c.floors.get("b:mkt:NO")).toBe(7);
  });

  it("sends a catch-up update when a newer change was heard meanwhile, and floors at its seq", async () => {
    const c = connection();
    const done = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "NO" });
    c.lastBooks.set("mkt", { marketId: "mkt", seq: 9, yes: { bids: [level("0.30", 2)], asks: [level("0.70", 3)] } });
    c.depths[0].answer.resolve(depthOf(7));
    await done;
    expect(c.sent.map((m) => m.type)).toEqual(["snapshot", "subscribed", "update"]);
    // The NO view of the YES levels.
    expect(c.sent[2]).toEqual({
      type: "update",
      channel: "book",
      marketId: "mkt",
      outcome: "NO",
      seq: 9,
      data: { marketId: "mkt", bids: [level("0.30", 3)], asks: [level("0.70", 2)] },
    });
    expect(c.floors.get("b:mkt:NO")).toBe(9);
  });

  it("sends no catch-up for a change the snapshot already holds", async () => {
    const c = connection();
    c.lastBooks.set("mkt", { marketId: "mkt", seq: 7, yes: depthOf(7).yes });
    const done = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    c.depths[0].answer.resolve(depthOf(7));
    await done;
    expect(c.sent.map((m) => m.type)).toEqual(["snapshot", "subscribed"]);
    expect(c.floors.get("b:mkt:YES")).toBe(7);
  });

  it("drops a subscription unsubscribed while its snapshot was on its way", async () => {
    const c = connection();
    const done = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    c.subs.unsubscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    c.depths[0].answer.resolve(depthOf(3));
    await done;
    expect(c.sent).toEqual([{ type: "unsubscribed", channel: "book", marketId: "mkt", outcome: "YES" }]);
    expect(c.rooms.size).toBe(0);
    expect(c.floors.size).toBe(0);
  });

  it("of two subscribes of the same book only the newer one's snapshot goes out", async () => {
    const c = connection();
    const first = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    const second = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    c.depths[1].answer.resolve(depthOf(5));
    c.depths[0].answer.resolve(depthOf(4));
    await Promise.all([first, second]);
    expect(c.sent.filter((m) => m.type === "snapshot")).toEqual([expect.objectContaining({ seq: 5 })]);
  });

  it("drops the snapshot of a socket gone meanwhile, or closed meanwhile", async () => {
    const c = connection();
    const done = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    c.gone();
    c.depths[0].answer.resolve(depthOf(3));
    await done;
    const d = connection();
    const closed = d.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    d.subs.close();
    d.depths[0].answer.resolve(depthOf(3));
    await closed;
    expect([...c.sent, ...d.sent]).toEqual([]);
    expect(c.rooms.size + d.rooms.size).toBe(0);
  });

  it("answers NOT_FOUND for an unknown market and UNAVAILABLE when the depth cannot be had", async () => {
    const c = connection();
    const missing = c.subs.subscribe({ channel: "book", marketId: "gone", outcome: "YES" });
    c.depths[0].answer.resolve(null);
    await missing;
    const down = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    c.depths[1].answer.reject(new Error("timeout"));
    await down;
    expect(c.sent).toEqual([
      { type: "error", code: "NOT_FOUND", message: "Market not found", channel: "book" },
      { type: "error", code: "UNAVAILABLE", message: "Order book unavailable, try again", channel: "book" },
    ]);
    expect(c.rooms.size).toBe(0);
  });

  it("limits the books per connection, pending ones included; a book already held does not count twice", async () => {
    const c = connection();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < MAX_BOOK_SUBSCRIPTIONS - 1; i++) {
      const p = c.subs.subscribe({ channel: "book", marketId: `m${i}`, outcome: "YES" });
      c.depths[i].answer.resolve(depthOf(1));
      await p;
    }
    // The last slot taken by a subscription still waiting for its snapshot.
    pending.push(c.subs.subscribe({ channel: "book", marketId: "last", outcome: "YES" }));
    await c.subs.subscribe({ channel: "book", marketId: "over", outcome: "YES" });
    expect(c.sent.at(-1)).toEqual({
      type: "error",
      code: "LIMIT_EXCEEDED",
      message: `At most ${MAX_BOOK_SUBSCRIPTIONS} order books per connection`,
      channel: "book",
    });
    // Held already (in place, and pending): asked again, not refused.
    pending.push(c.subs.subscribe({ channel: "book", marketId: "m0", outcome: "YES" }));
    pending.push(c.subs.subscribe({ channel: "book", marketId: "last", outcome: "YES" }));
    expect(c.depths.map((d) => d.marketId).slice(-3)).toEqual(["last", "m0", "last"]);
    c.depths.forEach((d) => d.answer.resolve(depthOf(2)));
    await Promise.all(pending);
    expect(c.sent.filter((m) => m.type === "error")).toHaveLength(1);
    // Unsubscribing frees a slot.
    c.subs.unsubscribe({ channel: "book", marketId: "m1", outcome: "YES" });
    const again = c.subs.subscribe({ channel: "book", marketId: "over", outcome: "YES" });
    c.depths.at(-1)!.answer.resolve(depthOf(2));
    await again;
    expect(c.sent.at(-1)).toEqual({ type: "subscribed", channel: "book", marketId: "over", outcome: "YES" });
  });

  it("unsubscribing leaves the room, drops the floor and answers unsubscribed", async () => {
    const c = connection();
    const done = c.subs.subscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    c.depths[0].answer.resolve(depthOf(3));
    await done;
    c.subs.unsubscribe({ channel: "book", marketId: "mkt", outcome: "YES" });
    expect(c.rooms.size).toBe(0);
    expect(c.floors.size).toBe(0);
    expect(c.sent.at(-1)).toEqual({ type: "unsubscribed", channel: "book", marketId: "mkt", outcome: "YES" });
  });
});

describe("user channel", () => {
  async function subscribed(c: ReturnType<typeof connection>, u: TokenUser) {
    const done = c.subs.subscribe({ channel: "user", token: `t-${u.id}` });
    c.tokens.at(-1)!.answer.resolve(u);
    await done;
  }

  it("joins the user's room and answers subscribed; an invalid token UNAUTHORIZED", async () => {
    const c = connection();
    const bad = c.subs.subscribe({ channel: "user", token: "junk" });
    c.tokens[0].answer.resolve(null);
    await bad;
    expect(c.sent).toEqual([{ type: "error", code: "UNAUTHORIZED", message: "Invalid or expired token", channel: "user" }]);
    expect(c.rooms.size).toBe(0);
    await subscribed(c, user("alice"));
    expect(c.sent.at(-1)).toEqual({ type: "subscribed", channel: "user", userId: "alice" });
    expect([...c.rooms]).toEqual(["u:alice"]);
    expect(c.subs.sid).toBe("s-alice");
  });

  it("answers UNAVAILABLE when auth cannot answer", async () => {
    const c = connection();
    const done = c.subs.subscribe({ channel: "user", token: "t" });
    c.tokens[0].answer.reject(new Error("down"));
    await done;
    expect(c.sent).toEqual([{ type: "error", code: "UNAVAILABLE", message: "Authentication unavailable, try again", channel: "user" }]);
  });

  it("ignores a slow token check overtaken by a newer subscribe", async () => {
    const c = connection();
    const slow = c.subs.subscribe({ channel: "user", token: "old" });
    const fresh = c.subs.subscribe({ channel: "user", token: "new" });
    c.tokens[1].answer.resolve(user("bob"));
    await fresh;
    c.tokens[0].answer.resolve(user("alice"));
    await slow;
    expect(c.sent).toEqual([{ type: "subscribed", channel: "user", userId: "bob" }]);
    expect([...c.rooms]).toEqual(["u:bob"]);
  });

  it("ignores a slow token check (answer or failure) overtaken by an unsubscribe", async () => {
    const c = connection();
    const slow = c.subs.subscribe({ channel: "user", token: "t" });
    const failing = c.subs.subscribe({ channel: "user", token: "t2" });
    c.subs.unsubscribe({ channel: "user" });
    c.tokens[0].answer.resolve(user("alice"));
    c.tokens[1].answer.reject(new Error("down"));
    await Promise.all([slow, failing]);
    expect(c.sent).toEqual([{ type: "unsubscribed", channel: "user", userId: null }]);
    expect(c.rooms.size).toBe(0);
    expect(c.timers.size).toBe(0);
  });

  it("ends the subscription with SESSION_ENDED when the token expires", async () => {
    const c = connection();
    await subscribed(c, user("alice", "s1", 1_000_000_000 / 1000 + 90));
    expect([...c.timers.values()].map((t) => t.ms)).toEqual([90_000]);
    [...c.timers.values()][0].fn();
    expect(c.sent.at(-1)).toEqual({
      type: "error",
      code: "SESSION_ENDED",
      message: "Token expired; subscribe again with a fresh token",
      channel: "user",
    });
    expect(c.rooms.size).toBe(0);
    expect(c.subs.sid).toBeNull();
    c.subs.unsubscribe({ channel: "user" });
    expect(c.sent.at(-1)).toEqual({ type: "unsubscribed", channel: "user", userId: null });
  });

  it("re-subscribing as another user leaves the old room and replaces the expiry timer", async () => {
    const c = connection();
    await subscribed(c, user("alice"));
    await subscribed(c, user("bob"));
    expect([...c.rooms]).toEqual(["u:bob"]);
    expect(c.timers.size).toBe(1);
    // The same user again keeps its room.
    await subscribed(c, user("bob"));
    expect([...c.rooms]).toEqual(["u:bob"]);
    expect(c.timers.size).toBe(1);
  });

  it("unsubscribing leaves the room, stops the timer and answers with the user id", async () => {
    const c = connection();
    await subscribed(c, user("alice"));
    c.subs.unsubscribe({ channel: "user" });
    expect(c.sent.at(-1)).toEqual({ type: "unsubscribed", channel: "user", userId: "alice" });
    expect(c.rooms.size).toBe(0);
    expect(c.timers.size).toBe(0);
  });

  it("a revoked session ends with the error given; closing stops the timer and drops late answers", async () => {
    const c = connection();
    await subscribed(c, user("alice"));
    expect(c.subs.endUser({ type: "error", code: "SESSION_ENDED", message: "x", channel: "user" })).toBe("alice");
    expect(c.sent.at(-1)).toMatchObject({ code: "SESSION_ENDED" });
    await subscribed(c, user("alice"));
    const late = c.subs.subscribe({ channel: "user", token: "t" });
    c.subs.close();
    expect(c.timers.size).toBe(0);
    c.tokens.at(-1)!.answer.resolve(user("bob"));
    await late;
    expect(c.sent.at(-1)).toEqual({ type: "subscribed", channel: "user", userId: "alice" });
    // A socket gone (not yet closed) drops a late token answer too.
    const d = connection();
    const gone = d.subs.subscribe({ channel: "user", token: "t" });
    d.gone();
    d.tokens[0].answer.resolve(user("bob"));
    await gone;
    expect(d.sent).toEqual([]);
    expect(d.rooms.size).toBe(0);
  });
});
