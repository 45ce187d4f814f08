/**
 * Room broadcasts at a larger scale than the other socket tests: many sockets in the same rooms
 * (and in several rooms at once) get every push of their rooms exactly once, in order, the same
 * stream for all; a user's pushes reach all of that user's sockets and no other socket.
 */
import { isDeepStrictEqual } from "node:util";
import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";
import { connectSocket, type Msg, type TestSocket } from "../support/socket";
import { waitFor } from "../support/chain";

type Outcome = "YES" | "NO";
type U = { token: string; userId: string };
type Levels = { bids: unknown[]; asks: unknown[] };
type BookUpdate = Extract<Msg, { type: "update"; channel: "book" }>;
type MarketUpdate = Extract<Msg, { type: "update"; channel: "market" }>;
type UserUpdate = Extract<Msg, { type: "update"; channel: "user" }>;

const TIMEOUT = 15_000;

describe("socket room broadcasts: exactly once, in order, never to the wrong socket", () => {
  let srv: TestServer;
  const open: TestSocket[] = [];

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "10000", RATE_LIMIT_READ: "10000" });
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(() => srv.stop());

  const connect = async (transport: "websocket" | "polling") => {
    const s = await connectSocket(srv.url, { transports: [transport], autoPingMs: 3000 });
    open.push(s);
    return s;
  };
  const funded = async () => {
    const u = await srv.login();
    await fund(srv.broker, u.userId, 1000 * SHARE);
    return u;
  };
  const order = async (u: U, marketId: string, outcome: Outcome, price: number, shares = 1) => {
    const res = await srv.http("POST", "/api/v1/orders", {
      token: u.token,
      body: { marketId, side: "BUY", outcome, orderType: "GTC", price, quantity: shares * SHARE },
    });
    if (res.status !== 200) throw new Error(`order failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as { orderId: string };
  };
  const restBook = async (marketId: string, outcome: Outcome): Promise<Levels> => {
    const res = await srv.http("GET", `/api/v1/markets/${marketId}/orderbook?outcome=${outcome}`);
    expect(res.status).toBe(200);
    return { bids: res.body.data.bids, asks: res.body.data.asks };
  };
  const bookUpdates = (s: TestSocket, marketId: string, outcome: Outcome) =>
    s.messages.filter(
      (m): m is BookUpdate => m.type === "update" && m.channel === "book" && m.marketId === marketId && m.outcome === outcome,
    );
  const marketUpdates = (s: TestSocket, marketId: string) =>
    s.messages.filter((m): m is MarketUpdate => m.type === "update" && m.channel === "market" && m.data.marketId === marketId);
  const levels = (u: BookUpdate): Levels => ({ bids: u.data.bids, asks: u.data.asks });
  const subscribed = (s: TestSocket, pred: (m: Extract<Msg, { type: "subscribed" }>) => boolean) =>
    s.waitFor((m) => m.type === "subscribed" && pred(m), { timeoutMs: TIMEOUT });

  test("48 sockets in one market's rooms get each book and price change exactly once, in order, as the same stream", async () => {
    const A = await createMarket(srv, "Broadcast market A");
    const B = await createMarket(srv, "Broadcast market B");
    const makers = [await funded(), await funded()];

    // 24 sockets in all three rooms of A (18 websocket, 6 polling), 12 only in A's YES book,
    // 12 in B's rooms (nothing of A may reach them).
    const all: TestSocket[] = [];
    const yesOnly: TestSocket[] = [];
    const others: TestSocket[] = [];
    for (let i = 0; i < 48; i++) {
      const s = await connect(i % 4 === 3 ? "polling" : "websocket");
      if (i < 24) {
        s.subscribe({ channel: "market", marketIds: [A] });
        s.subscribe({ channel: "book", marketId: A, outcome: "YES" });
        s.subscribe({ channel: "book", marketId: A, outcome: "NO" });
        await subscribed(s, (m) => m.channel === "book" && m.outcome === "NO");
        all.push(s);
      } else if (i < 36) {
        s.subscribe({ channel: "book", marketId: A, outcome: "YES" });
        await subscribed(s, (m) => m.channel === "book");
        yesOnly.push(s);
      } else {
        s.subscribe({ channel: "market", marketIds: [B] });
        s.subscribe({ channel: "book", marketId: B, outcome: "YES" });
        await subscribed(s, (m) => m.channel === "book");
        others.push(s);
      }
    }

    // Each order is a new best bid or ask of A, so each change is recognisable by content. The
    // next order waits until a probe has both pushes of the change: nothing is coalesced away.
    const plan: Array<[Outcome, number]> = [
      ["YES", 0.2],
      ["NO", 0.3], // YES ask 0.70
      ["YES", 0.21],
      ["NO", 0.31], // YES ask 0.69
      ["YES", 0.22],
      ["YES", 0.23],
    ];
    const states: Array<{ YES: Levels; NO: Levels; sellYes: string }> = [];
    const probe = all[0];
    for (const [i, [outcome, price]] of plan.entries()) {
      const mark = probe.messages.length;
      await order(makers[i % 2], A, outcome, price);
      const now = { YES: await restBook(A, "YES"), NO: await restBook(A, "NO") };
      const sellYes = (now.YES.bids[0] as { price: string }).price;
      states.push({ ...now, sellYes });
      await probe.waitFor(
        (m) => m.type === "update" && m.channel === "book" && m.outcome === "NO" && isDeepStrictEqual(levels(m), now.NO),
        { from: mark, timeoutMs: TIMEOUT },
      );
      await probe.waitFor(
        (m) =>
          m.type === "update" &&
          m.channel === "market" &&
          m.data.sellYesPrice === sellYes &&
          m.data.buyYesPrice === ((now.YES.asks[0] as { price: string } | undefined)?.price ?? null),
        { from: mark, timeoutMs: TIMEOUT },
      );
    }
    const last = states[states.length - 1];
    for (const s of [...all, ...yesOnly]) {
      await waitFor(
        "every socket to hold the last YES book",
        async () => {
          const u = bookUpdates(s, A, "YES");
          return u.length > 0 && isDeepStrictEqual(levels(u[u.length - 1]), last.YES);
        },
        TIMEOUT,
        20,
      );
    }
    for (const s of all) {
      await waitFor(
        "every socket to hold the last NO book and prices",
        async () => {
          const u = bookUpdates(s, A, "NO");
          const p = marketUpdates(s, A);
          return (
            u.length > 0 &&
            isDeepStrictEqual(levels(u[u.length - 1]), last.NO) &&
            p.length > 0 &&
            p[p.length - 1].data.sellYesPrice === last.sellYes
          );
        },
        TIMEOUT,
        20,
      );
    }
    for (const s of [...all, ...yesOnly, ...others]) await s.sync();

    // Exactly one update per change and channel, in the order of the changes, with rising seq.
    const expectedYes = states.map((x) => x.YES);
    const expectedNo = states.map((x) => x.NO);
    const expectedSellYes = states.map((x) => x.sellYes);
    const stream = (s: TestSocket) => ({
      yes: bookUpdates(s, A, "YES").map((u) => ({ seq: u.seq, levels: levels(u) })),
      no: bookUpdates(s, A, "NO").map((u) => ({ seq: u.seq, levels: levels(u) })),
      market: marketUpdates(s, A).map((u) => u.data),
    });
    const reference = stream(all[0]);
    expect(reference.yes.map((u) => u.levels)).toEqual(expectedYes);
    expect(reference.no.map((u) => u.levels)).toEqual(expectedNo);
    expect(reference.market.map((d) => d.sellYesPrice)).toEqual(expectedSellYes);
    for (let i = 1; i < reference.yes.length; i++) expect(reference.yes[i].seq).toBeGreaterThan(reference.yes[i - 1].seq);
    expect(reference.no.map((u) => u.seq)).toEqual(reference.yes.map((u) => u.seq));
    all.forEach((s, i) => expect({ socket: i, ...stream(s) }).toEqual({ socket: i, ...reference }));
    yesOnly.forEach((s, i) => expect({ socket: i, ...stream(s) }).toEqual({ socket: i, yes: reference.yes, no: [], market: [] }));
    // Nothing of A reached B's rooms, and no socket got a message outside its subscriptions.
    for (const s of others) expect(s.messages.filter((m) => m.type === "update")).toEqual([]);
    for (const s of yesOnly)
      expect(s.messages.filter((m) => m.type === "update" && !(m.channel === "book" && m.marketId === A && m.outcome === "YES"))).toEqual(
        [],
      );
  });

  test("a user's pushes reach every socket of that user exactly once and no socket of another user", async () => {
    const M = await createMarket(srv, "Broadcast user market");
    const users: U[] = [];
    for (let i = 0; i < 6; i++) users.push(await funded());
    // Two sockets per user (websocket and polling), and a socket with no user that follows M's book.
    const socketsOf = new Map<string, TestSocket[]>();
    for (const u of users) {
      const mine: TestSocket[] = [];
      for (const transport of ["websocket", "polling"] as const) {
        const s = await connect(transport);
        s.subscribe({ channel: "user", token: u.token });
        expect(await subscribed(s, (m) => m.channel === "user")).toEqual({ type: "subscribed", channel: "user", userId: u.userId });
        mine.push(s);
      }
      socketsOf.set(u.userId, mine);
    }
    const watcher = await connect("websocket");
    watcher.subscribe({ channel: "book", marketId: M });
    await subscribed(watcher, (m) => m.channel === "book");

    // Every user places resting orders of a size of its own (never crossing), interleaved with the others.
    const ordersOf = new Map<string, string[]>(users.map((u) => [u.userId, []]));
    for (let round = 0; round < 2; round++) {
      await Promise.all(
        users.map(async (u, i) => {
          const { orderId } = await order(u, M, "YES", Number((0.1 + i / 100 + round / 10).toFixed(2)), i + 1);
          ordersOf.get(u.userId)!.push(orderId);
        }),
      );
    }
    const finalBalance = new Map<string, unknown>();
    for (const u of users) finalBalance.set(u.userId, (await srv.http("GET", "/api/v1/balance", { token: u.token })).body.data);

    for (const u of users) {
      for (const s of socketsOf.get(u.userId)!) {
        const userData = () => s.messages.filter((m): m is UserUpdate => m.type === "update" && m.channel === "user").map((m) => m.data);
        await waitFor(
          `${u.userId}'s sockets to see both orders and the last balance`,
          async () => {
            const data = userData();
            const orders = data.flatMap((d) => ("order" in d ? [d.order.orderId] : []));
            const balances = data.flatMap((d) => ("balance" in d ? [d.balance] : []));
            const b = finalBalance.get(u.userId) as { available: string; locked: string; total: string };
            return (
              ordersOf.get(u.userId)!.every((id) => orders.includes(id)) &&
              isDeepStrictEqual(balances[balances.length - 1], { available: b.available, locked: b.locked, total: b.total })
            );
          },
          TIMEOUT,
          20,
        );
        await s.sync();
        const orders = userData().flatMap((d) => ("order" in d ? [d.order] : []));
        // Exactly this user's two orders, each pushed once (resting, untouched: one "open" update each).
        expect(orders.map((o) => o.orderId).sort()).toEqual([...ordersOf.get(u.userId)!].sort());
        expect(orders.every((o) => o.status === "open" && o.remainingQuantity === String((users.indexOf(u) + 1) * SHARE))).toBe(true);
        // Nothing filled: no position or trade pushes at all.
        expect(userData().filter((d) => "position" in d || "trade" in d)).toEqual([]);
      }
    }
    expect(watcher.messages.filter((m) => m.type === "update" && m.channel === "user")).toEqual([]);
  });
});
