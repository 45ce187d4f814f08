/**
 * The market fan-out end to end, on every transport: websocket only, long-polling only, and
 * long-polling upgraded to websocket. Each client follows some combination of one market's
 * `market` channel and its YES / NO book channels (some also another market's), and must get
 * exactly the updates of its own subscriptions, in order, ending at the REST order book.
 *
 * The gateway merges a market's book and price updates, encodes and frames each message once,
 * writes each socket's frames in one buffer, and writes straight to an idle websocket (engine.io
 * bypassed) or through engine.io otherwise (polling, mid-upgrade, a write still in flight). The
 * burst case holds one websocket's server-side TCP writes (a receiver that does not keep up) and
 * holds another client in the middle of its upgrade, so the fallback paths carry the burst.
 */
import { isDeepStrictEqual } from "node:util";
import type { Socket as NetSocket } from "node:net";
import type { Server as IOServer } from "socket.io";
import type { Socket as ClientSocket } from "socket.io-client";
import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";
import { connectSocket, type Msg, type TestSocket } from "../support/socket";
import { waitFor } from "../support/chain";

type Outcome = "YES" | "NO";
type Transport = "websocket" | "polling" | "upgraded";
type Levels = {
  bids: Array<{ price: string; quantity: string; numOrders: number }>;
  asks: Array<{ price: string; quantity: string; numOrders: number }>;
};
type Prices = {
  marketId: string;
  buyYesPrice: string | null;
  buyNoPrice: string | null;
  sellYesPrice: string | null;
  sellNoPrice: string | null;
};
type BookSub = { marketId: string; outcome: Outcome };
type U = { token: string; userId: string };

interface Spec {
  name: string;
  transport: Transport;
  markets?: string[];
  books?: BookSub[];
}
interface Client extends Required<Spec> {
  s: TestSocket;
}

/** The server side of one client's connection: the engine.io parts these tests look at. */
interface ServerConn {
  upgrading: boolean;
  writeBuffer: unknown[];
  transport: { name: string; writable: boolean; socket?: { _socket?: NetSocket } };
}

type BookUpdate = Extract<Msg, { type: "update"; channel: "book" }>;
type BookSnapshot = Extract<Msg, { type: "snapshot" }>;
type MarketUpdate = Extract<Msg, { type: "update"; channel: "market" }>;

const TIMEOUT = 10_000;
const key = (b: BookSub) => `${b.marketId}:${b.outcome}`;
const levelsOf = (d: Levels): Levels => ({ bids: d.bids, asks: d.asks });
const mirror = (p: string) => ((100 - Math.round(Number(p) * 100)) / 100).toFixed(2);
/** The live prices a book-only market shows for a YES book (best ask buys YES, best bid sells it). */
const pricesOf = (marketId: string, yes: Levels): Prices => {
  const bid = yes.bids[0]?.price ?? null;
  const ask = yes.asks[0]?.price ?? null;
  return {
    marketId,
    buyYesPrice: ask,
    sellYesPrice: bid,
    buyNoPrice: bid === null ? null : mirror(bid),
    sellNoPrice: ask === null ? null : mirror(ask),
  };
};

const isBookUpdate =
  (b: BookSub) =>
  (m: Msg): m is BookUpdate =>
    m.type === "update" && m.channel === "book" && m.marketId === b.marketId && m.outcome === b.outcome;
const isMarketUpdate =
  (marketId: string) =>
  (m: Msg): m is MarketUpdate =>
    m.type === "update" && m.channel === "market" && m.data.marketId === marketId;
const bookUpdates = (c: Client, b: BookSub) => c.s.messages.filter(isBookUpdate(b));
const marketUpdates = (c: Client, marketId: string) => c.s.messages.filter(isMarketUpdate(marketId)).map((m) => m.data);
const snapshots = (c: Client, b: BookSub) =>
  c.s.messages.filter((m): m is BookSnapshot => m.type === "snapshot" && m.marketId === b.marketId && m.outcome === b.outcome);
/** The book as this client knows it: its snapshot, then its updates applied (each is the full top 10). */
const latestBook = (c: Client, b: BookSub): Levels | undefined => {
  const u = bookUpdates(c, b);
  if (u.length) return levelsOf(u[u.length - 1].data);
  const snap = snapshots(c, b)[0];
  return snap && levelsOf(snap.data);
};
const latestPrices = (c: Client, marketId: string): Prices | undefined => marketUpdates(c, marketId).pop();

describe("socket fan-out on every transport", () => {
  let srv: TestServer;
  let makers: U[];
  const open: Client[] = [];

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "10000", RATE_LIMIT_READ: "10000" });
    makers = [];
    for (let i = 0; i < 4; i++) {
      const u = await srv.login();
      await fund(srv.broker, u.userId, 1000 * SHARE);
      makers.push(u);
    }
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.s.close();
  });
  afterAll(() => srv.stop());

  const io = () => (srv.broker.getLocalService("api") as unknown as { io: IOServer }).io;
  const serverConn = (c: Client): ServerConn => {
    const socket = io()
      .of("/")
      .sockets.get(c.s.socket.id as string);
    if (!socket) throw new Error(`no server socket for ${c.name}`);
    return socket.conn as unknown as ServerConn;
  };
  const engineOf = (socket: ClientSocket) => socket.io.engine;

  const order = async (u: U, marketId: string, side: "BUY" | "SELL", outcome: Outcome, price: number, shares = 1) => {
    const res = await srv.http("POST", "/api/v1/orders", {
      token: u.token,
      body: { marketId, side, outcome, orderType: "GTC", price, quantity: shares * SHARE },
    });
    if (res.status !== 200) throw new Error(`order failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const restBook = async (marketId: string, outcome: Outcome): Promise<Levels> => {
    const res = await srv.http("GET", `/api/v1/markets/${marketId}/orderbook?outcome=${outcome}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const restBooks = async (marketId: string) => ({ YES: await restBook(marketId, "YES"), NO: await restBook(marketId, "NO") });

  /**
   * Connect and subscribe. `upgraded` starts on long-polling and waits for engine.io's `upgrade` to
   * websocket before subscribing; `beforeConnect` sees the client before it connects.
   */
  const connect = async (spec: Spec, beforeConnect?: (socket: ClientSocket) => void): Promise<Client> => {
    const transports: ("websocket" | "polling")[] =
      spec.transport === "websocket" ? ["websocket"] : spec.transport === "polling" ? ["polling"] : ["polling", "websocket"];
    const s = await connectSocket(srv.url, { transports, autoPingMs: 3000, beforeConnect });
    const c: Client = { markets: [], books: [], ...spec, s };
    open.push(c);
    if (spec.transport === "upgraded" && !beforeConnect) {
      const engine = engineOf(s.socket);
      if (engine.transport.name !== "websocket") await new Promise<void>((resolve) => engine.once("upgrade", () => resolve()));
      expect(engine.transport.name).toBe("websocket");
    }
    await subscribeAll(c);
    const expected = { websocket: "websocket", polling: "polling", upgraded: "websocket" }[spec.transport];
    if (!beforeConnect) expect(serverConn(c).transport.name).toBe(expected);
    return c;
  };
  const subscribeAll = async (c: Client) => {
    if (c.markets.length) {
      c.s.subscribe({ channel: "market", marketIds: c.markets });
      await c.s.waitFor((m) => m.type === "subscribed" && m.channel === "market", { timeoutMs: TIMEOUT });
    }
    for (const b of c.books) {
      c.s.subscribe({ channel: "book", ...b });
      await c.s.waitFor((m) => m.type === "subscribed" && m.channel === "book" && m.marketId === b.marketId && m.outcome === b.outcome, {
        timeoutMs: TIMEOUT,
      });
    }
  };

  /** Every message the client got that none of its subscriptions explains. */
  const foreign = (c: Client): Msg[] => {
    const hasBook = (marketId: string, outcome: Outcome) => c.books.some((b) => b.marketId === marketId && b.outcome === outcome);
    return c.s.messages.filter((m) => {
      switch (m.type) {
        case "pong":
          return false;
        case "subscribed":
          if (m.channel === "market") return !m.marketIds.every((id) => c.markets.includes(id));
          if (m.channel === "book") return !hasBook(m.marketId, m.outcome);
          return true;
        case "snapshot":
          return !hasBook(m.marketId, m.outcome);
        case "update":
          if (m.channel === "book") return !hasBook(m.marketId, m.outcome) || m.data.marketId !== m.marketId;
          if (m.channel === "market") return !c.markets.includes(m.data.marketId);
          return true;
        default:
          return true;
      }
    });
  };

  type Finals = { books: Map<string, Levels>; prices: Map<string, Prices | null> };
  const finalsFor = async (marketIds: string[]): Promise<Finals> => {
    const f: Finals = { books: new Map(), prices: new Map() };
    for (const id of marketIds) {
      const b = await restBooks(id);
      f.books.set(`${id}:YES`, b.YES);
      f.books.set(`${id}:NO`, b.NO);
      f.prices.set(id, b.YES.bids.length || b.YES.asks.length ? pricesOf(id, b.YES) : null);
    }
    return f;
  };
  const reached = (c: Client, f: Finals) =>
    c.books.every((b) => isDeepStrictEqual(latestBook(c, b), f.books.get(key(b)))) &&
    c.markets.every((id) => {
      const want = f.prices.get(id);
      return want === undefined || isDeepStrictEqual(latestPrices(c, id) ?? null, want);
    });

  /** Wait (no time bound on the content, only a generous overall one) until every client shows the final state. */
  const settle = async (clients: Client[], f: Finals) => {
    for (const c of clients) {
      await waitFor(`${c.name} to reach the REST book`, async () => reached(c, f), TIMEOUT, 20).catch((err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify({ books: c.books.map((b) => [key(b), latestBook(c, b), f.books.get(key(b))]), prices: c.markets.map((id) => [latestPrices(c, id), f.prices.get(id)]) })}`,
        );
      });
      await c.s.sync();
    }
  };

  /** The invariants every client must show once settled, whatever was coalesced on the way. */
  const expectConsistent = (c: Client, f: Finals) => {
    expect({ client: c.name, foreign: foreign(c) }).toEqual({ client: c.name, foreign: [] });
    for (const b of c.books) {
      const snaps = snapshots(c, b);
      expect({ client: c.name, book: key(b), snapshots: snaps.length }).toEqual({ client: c.name, book: key(b), snapshots: 1 });
      const snapAt = c.s.messages.indexOf(snaps[0]);
      const ups = bookUpdates(c, b);
      // Nothing of the book before its snapshot; then seq strictly increasing, starting past it.
      expect(ups.every((u) => c.s.messages.indexOf(u) > snapAt)).toBe(true);
      const seqs = [snaps[0].seq, ...ups.map((u) => u.seq)];
      for (let i = 1; i < seqs.length; i++)
        if (!(seqs[i] > seqs[i - 1])) throw new Error(`${c.name} ${key(b)}: seq not increasing: ${JSON.stringify(seqs)}`);
      expect(latestBook(c, b)).toEqual(f.books.get(key(b)));
    }
    // A client with both books of a market sees each change as the YES view and its NO mirror.
    for (const b of c.books.filter((x) => x.outcome === "YES")) {
      if (!c.books.some((x) => x.marketId === b.marketId && x.outcome === "NO")) continue;
      const yes = bookUpdates(c, b);
      const no = bookUpdates(c, { marketId: b.marketId, outcome: "NO" });
      expect(no.map((u) => u.seq)).toEqual(yes.map((u) => u.seq));
      no.forEach((u, i) => expect(levelsOf(u.data)).toEqual(mirrorBook(levelsOf(yes[i].data))));
    }
    for (const id of c.markets) {
      const want = f.prices.get(id);
      if (want !== undefined) expect(latestPrices(c, id) ?? null).toEqual(want);
      const ups = marketUpdates(c, id);
      // Only real changes are pushed: no two consecutive updates carry the same prices.
      for (let i = 1; i < ups.length; i++) expect(ups[i]).not.toEqual(ups[i - 1]);
    }
  };
  const mirrorBook = (yes: Levels): Levels => ({
    bids: yes.asks.map((l) => ({ ...l, price: mirror(l.price) })),
    asks: yes.bids.map((l) => ({ ...l, price: mirror(l.price) })),
  });

  /**
   * Every socket in a room is written in the same fan-out pass: whatever the transport and however
   * slow, all members of a room end with the identical sequence of that room's updates.
   */
  const expectSameStreams = (clients: Client[], marketIds: string[]) => {
    for (const id of marketIds) {
      for (const outcome of ["YES", "NO"] as const) {
        const b = { marketId: id, outcome };
        const members = clients.filter((c) => c.books.some((x) => key(x) === key(b)));
        const streams = members.map((c) => ({ client: c.name, updates: bookUpdates(c, b).map((u) => ({ seq: u.seq, data: u.data })) }));
        for (const s of streams.slice(1))
          expect({ client: s.client, updates: s.updates }).toEqual({ client: s.client, updates: streams[0].updates });
      }
      const members = clients.filter((c) => c.markets.includes(id));
      const streams = members.map((c) => ({ client: c.name, updates: marketUpdates(c, id) }));
      for (const s of streams.slice(1))
        expect({ client: s.client, updates: s.updates }).toEqual({ client: s.client, updates: streams[0].updates });
    }
  };

  test("each client gets exactly its subscriptions' book and price updates, in order, over websocket, polling and upgraded polling", async () => {
    const A = await createMarket(srv, "Fan-out market A");
    const B = await createMarket(srv, "Fan-out market B");
    const AY = { marketId: A, outcome: "YES" as const };
    const AN = { marketId: A, outcome: "NO" as const };
    const BY = { marketId: B, outcome: "YES" as const };
    const BN = { marketId: B, outcome: "NO" as const };
    // A's book starts non-empty so the snapshots carry something.
    await order(makers[0], A, "BUY", "YES", 0.2);
    const combos: Array<Omit<Spec, "transport">> = [
      { name: "market A", markets: [A] },
      { name: "book A/YES", books: [AY] },
      { name: "book A/NO", books: [AN] },
      { name: "all of A", markets: [A], books: [AY, AN] },
      { name: "book A/YES + market B", markets: [B], books: [AY] },
      { name: "only B", markets: [B], books: [BN] },
      { name: "both markets, crossed books", markets: [A, B], books: [AN, BY] },
    ];
    const clients: Client[] = [];
    for (const transport of ["websocket", "polling", "upgraded"] as const) {
      for (const combo of combos) clients.push(await connect({ ...combo, transport, name: `${transport}: ${combo.name}` }));
    }
    for (const c of clients)
      for (const b of c.books) expect(levelsOf(snapshots(c, b)[0].data)).toEqual(await restBook(b.marketId, b.outcome));
    const probeA = clients.find((c) => c.name === "websocket: all of A")!;
    const probeB = clients.find((c) => c.name === "websocket: both markets, crossed books")!;

    // Each order moves a best bid or ask (bids up, asks down, never crossing), so every state is
    // recognisable by content. After each one the next waits until a websocket member has the new
    // state: the fan-out pass that reached it reached every member, so nothing gets coalesced away.
    const plan: Array<[string, "YES" | "NO", number]> = [
      [A, "YES", 0.3],
      [A, "NO", 0.3], // YES ask 0.70
      [B, "YES", 0.4],
      [A, "YES", 0.31],
      [A, "NO", 0.31], // YES ask 0.69
      [B, "NO", 0.4], // B YES ask 0.60
      [A, "YES", 0.32],
      [A, "NO", 0.32], // YES ask 0.68
      [B, "YES", 0.41],
      [A, "YES", 0.33],
    ];
    const states = new Map<string, Levels[]>();
    for (const id of [A, B]) {
      const b = await restBooks(id);
      states.set(`${id}:YES`, [b.YES]);
      states.set(`${id}:NO`, [b.NO]);
    }
    for (const [i, [marketId, outcome, price]] of plan.entries()) {
      const probe = marketId === A ? probeA : probeB;
      const mark = probe.s.messages.length;
      await order(makers[i % makers.length], marketId, "BUY", outcome, price);
      const now = await restBooks(marketId);
      states.get(`${marketId}:YES`)!.push(now.YES);
      states.get(`${marketId}:NO`)!.push(now.NO);
      const watched = marketId === A ? [AY, AN] : [BY];
      for (const b of watched)
        await probe.s.waitFor((m) => isBookUpdate(b)(m) && isDeepStrictEqual(levelsOf(m.data), now[b.outcome]), {
          from: mark,
          timeoutMs: TIMEOUT,
        });
      await probe.s.waitFor((m) => isMarketUpdate(marketId)(m) && isDeepStrictEqual(m.data, pricesOf(marketId, now.YES)), {
        from: mark,
        timeoutMs: TIMEOUT,
      });
    }

    const finals = await finalsFor([A, B]);
    await settle(clients, finals);
    for (const c of clients) expectConsistent(c, finals);
    expectSameStreams(clients, [A, B]);

    // Nothing was coalesced away here: each client saw every state of its books and prices, in order.
    for (const c of clients) {
      for (const b of c.books) {
        expect({ client: c.name, book: key(b), states: bookUpdates(c, b).map((u) => levelsOf(u.data)) }).toEqual({
          client: c.name,
          book: key(b),
          states: states.get(key(b))!.slice(1),
        });
      }
      for (const id of c.markets) {
        expect({ client: c.name, market: id, prices: marketUpdates(c, id) }).toEqual({
          client: c.name,
          market: id,
          prices: states
            .get(`${id}:YES`)!
            .slice(1)
            .map((yes) => pricesOf(id, yes)),
        });
      }
    }
    // Spot checks on content: the last A update is the bid at 0.33 over asks from 0.68.
    expect(finals.books.get(`${A}:YES`)!.bids[0]).toEqual({ price: "0.33", quantity: String(SHARE), numOrders: 1 });
    expect(finals.books.get(`${A}:YES`)!.asks[0]).toEqual({ price: "0.68", quantity: String(SHARE), numOrders: 1 });
    expect(finals.prices.get(A)).toEqual({
      marketId: A,
      buyYesPrice: "0.68",
      sellYesPrice: "0.33",
      buyNoPrice: "0.67",
      sellNoPrice: "0.32",
    });
  });

  test("a burst reaches a slow websocket and a client held mid-upgrade complete and in order (engine.io fallback)", async () => {
    const C = await createMarket(srv, "Fan-out burst market");
    const D = await createMarket(srv, "Fan-out quiet market");
    const CY = { marketId: C, outcome: "YES" as const };
    const CN = { marketId: C, outcome: "NO" as const };
    const DY = { marketId: D, outcome: "YES" as const };
    await order(makers[0], D, "BUY", "YES", 0.25);
    // D does not change during the test: its followers have its snapshot and no price push at all.
    const finalsNow = async () => {
      const f = await finalsFor([C, D]);
      f.prices.delete(D);
      return f;
    };

    const clients: Client[] = [
      await connect({ name: "websocket: all of C", transport: "websocket", markets: [C], books: [CY, CN] }),
      await connect({ name: "websocket: book C/NO", transport: "websocket", books: [CN] }),
      await connect({ name: "polling: all of C", transport: "polling", markets: [C], books: [CY, CN] }),
      await connect({ name: "polling: market C + book D", transport: "polling", markets: [C], books: [DY] }),
      await connect({ name: "upgraded: book C/YES + market D", transport: "upgraded", markets: [D], books: [CY] }),
    ];

    // A client to be held in the middle of its upgrade. Its websocket probe is deferred until it has
    // subscribed over polling; then the probe succeeds and polling pauses, but its `upgrade` packet is
    // held back, so the server stays on polling (upgrading) with no poll to answer: pushes queue.
    let startProbe: (() => void) | null = null;
    let release: (() => void) | null = null;
    let upgradeSent!: Promise<void>;
    const hold = (socket: ClientSocket) => {
      const engine = engineOf(socket);
      const internals = engine as unknown as { _probe(name: string): void };
      const probe = internals._probe.bind(engine);
      internals._probe = (name: string) => {
        startProbe = () => probe(name);
      };
      engine.once("upgrading", (transport) => {
        const send = transport.send.bind(transport);
        const queued: Parameters<typeof send>[0][] = [];
        transport.send = (packets) => void queued.push(packets);
        release = () => {
          transport.send = send;
          for (const p of queued) send(p);
        };
      });
      upgradeSent = new Promise<void>((resolve, reject) => {
        engine.once("upgrade", () => resolve());
        engine.once("upgradeError", reject);
      });
    };
    const mid = await connect({ name: "upgrading: all of C + market D", transport: "upgraded", markets: [C, D], books: [CY, CN] }, hold);
    clients.push(mid);
    const midConn = serverConn(mid);
    expect(midConn.transport.name).toBe("polling");

    // A websocket whose receiving side does not keep up: its server-side TCP writes are held (corked),
    // so the write engine.io makes for the first confirmation below stays in flight and the second
    // waits in engine.io's buffer; every push after it has to queue behind it in engine.io instead
    // of going straight to the socket (which would overtake it).
    const slow = await connect({ name: "websocket (slow): all of C + book D", transport: "websocket", markets: [C], books: [CY, CN, DY] });
    clients.push(slow);
    const slowConn = serverConn(slow);
    const tcp = slowConn.transport.socket?._socket;
    if (!tcp) throw new Error("no TCP socket under the slow client's websocket");
    tcp.cork();
    let corked = true;
    try {
      slow.s.subscribe({ channel: "market", marketIds: [C] }); // already followed: only a confirmation, written by engine.io
      await waitFor("the slow client's engine.io write to be in flight", async () => !slowConn.transport.writable, TIMEOUT, 5);
      slow.s.subscribe({ channel: "market", marketIds: [C] }); // a second one: queued in engine.io behind the first
      await waitFor("the slow client's second confirmation to be queued", async () => slowConn.writeBuffer.length === 1, TIMEOUT, 5);
      const slowMark = slow.s.messages.length;

      await waitFor("the mid-upgrade client's probe to be due", async () => startProbe !== null, TIMEOUT, 10);
      startProbe!();
      await upgradeSent;
      expect(release).not.toBeNull();
      expect(midConn.upgrading).toBe(true);
      expect(midConn.transport.name).toBe("polling");
      const midMark = mid.s.messages.length;

      // The burst: many resting orders at once from several users, YES bids 0.10..0.29 and NO bids
      // (YES asks 0.71..0.90), never crossing; the book ends with 20 levels a side, top 10 shown.
      const burst: Array<Promise<unknown>> = [];
      for (let i = 0; i < 20; i++) {
        const price = Number((0.1 + i / 100).toFixed(2));
        burst.push(order(makers[i % 4], C, "BUY", "YES", price));
        burst.push(order(makers[(i + 1) % 4], C, "BUY", "NO", price));
      }
      await Promise.all(burst);
      const afterBurst = await finalsNow();
      expect(afterBurst.books.get(`${C}:YES`)!.bids[0].price).toBe("0.29");
      expect(afterBurst.books.get(`${C}:YES`)!.asks[0].price).toBe("0.71");
      await settle(
        clients.filter((c) => c !== slow && c !== mid),
        afterBurst,
      );

      // Both held clients are behind, and their pushes wait in engine.io's buffer.
      expect(slow.s.since(slowMark, (m) => m.type === "update")).toEqual([]);
      expect(mid.s.since(midMark, (m) => m.type === "update")).toEqual([]);
      expect(slowConn.writeBuffer.length).toBeGreaterThan(0);
      expect(slowConn.writeBuffer.length).toBeGreaterThan(1); // the pushes, behind the confirmation
      expect(midConn.writeBuffer.length).toBeGreaterThan(0);

      tcp.uncork();
      corked = false;
      release!();
      await settle([slow, mid], afterBurst);
      expect(midConn.upgrading).toBe(false);
      expect(midConn.transport.name).toBe("websocket");
      await waitFor(
        "the slow client's engine.io queue to drain",
        async () => slowConn.writeBuffer.length === 0 && slowConn.transport.writable,
        TIMEOUT,
        10,
      );

      // Back to normal: one more change reaches everyone, the formerly held sockets included.
      await order(makers[0], C, "BUY", "YES", 0.3);
      const finals = await finalsNow();
      expect(finals.prices.get(C)).toEqual({
        marketId: C,
        buyYesPrice: "0.71",
        sellYesPrice: "0.30",
        buyNoPrice: "0.70",
        sellNoPrice: "0.29",
      });
      await settle(clients, finals);
      for (const c of clients) expectConsistent(c, finals);
      expectSameStreams(clients, [C, D]);
      for (const c of clients) {
        if (c.books.some((b) => b.marketId === D)) expect(bookUpdates(c, DY)).toEqual([]);
        if (c.markets.includes(D)) expect(marketUpdates(c, D)).toEqual([]);
      }
      // The burst was coalesced (41 changes), yet every client ends on the same last C update.
      expect(bookUpdates(slow, CY).length).toBeLessThan(burst.length + 1);
    } finally {
      if (corked) tcp.uncork();
      (release as (() => void) | null)?.();
    }
  });
});
