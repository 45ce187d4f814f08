/**
 * The SDK's socket client against a started server: keep-alive pings, typed market / book / user
 * subscriptions (callbacks and async iterators), and recovery from dropped connections with the
 * local book equal to the server's afterwards.
 */
import {
  PmxClient,
  randomKeyPair,
  toMicro,
  type BookState,
  type MarketPrices,
  type PmxSocket,
  type UserUpdate,
  DEFAULT_PING_INTERVAL_MS,
  sessionFromToken,
} from "../../client/src";
import { issueToken } from "../../auth/tokens";
import type { Server as IOServer } from "socket.io";
import { startServer, TEST_DOMAIN, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";
import { waitFor } from "../support/chain";
import { connectSocket } from "../support/socket";

const IDLE_MS = 1500;

describe("socket client", () => {
  let srv: TestServer;
  let market: string;
  let alice: PmxClient;
  let bob: PmxClient;
  const sockets: PmxSocket[] = [];

  const login = async (): Promise<PmxClient> => {
    const c = new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN });
    const s = await c.auth.loginWithKeyPair(randomKeyPair());
    await fund(srv.broker, s.userId, 1000 * SHARE);
    return c;
  };
  const open = async (c: PmxClient, o: Parameters<PmxClient["socket"]>[0] = {}): Promise<PmxSocket> => {
    const ws = c.socket({ pingIntervalMs: 400, reconnectionDelayMs: 100, reconnectionDelayMaxMs: 300, ...o });
    sockets.push(ws);
    await ws.connect();
    return ws;
  };
  const place = (c: PmxClient, side: "BUY" | "SELL", outcome: "YES" | "NO", price: number, shares: number) =>
    c.orders.place({ marketId: market, side, outcome, orderType: "GTC", price, quantity: Number(toMicro(shares)) });
  const serverBook = (outcome: "YES" | "NO" = "YES") => alice.markets.orderbook(market, outcome);
  const levels = (b: BookState) => ({ bids: b.bids, asks: b.asks });
  const io = () => (srv.broker.getLocalService("api") as unknown as { io: IOServer }).io;

  beforeAll(async () => {
    // A short idle timeout shows the pings are what keeps a connection open.
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "1000", RATE_LIMIT_READ: "10000", SOCKET_IDLE_TIMEOUT_MS: String(IDLE_MS) });
    market = await createMarket(srv, "Will the socket recover?");
    alice = await login();
    bob = await login();
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });
  afterAll(async () => {
    await srv.stop();
  });

  test("pings every interval (5 s by default) keep the connection past the idle timeout; a silent client is dropped", async () => {
    expect(DEFAULT_PING_INTERVAL_MS).toBe(5000);
    const ws = await open(alice);
    let pongs = 0;
    ws.on("pong", () => pongs++);
    const silent = await connectSocket(srv.url);
    const reason = await silent.disconnected();
    expect(reason).toBe("io server disconnect");
    await new Promise((r) => setTimeout(r, IDLE_MS * 2));
    expect(ws.connected).toBe(true);
    expect(ws.connections).toBe(1);
    expect(pongs).toBeGreaterThanOrEqual(4);
    silent.close();
  });

  test("market channel: callback and async iterator get live prices", async () => {
    const ws = await open(alice);
    const seen: MarketPrices[] = [];
    const sub = ws.subscribeMarkets([market], (p) => seen.push(p));
    expect(await sub.ready).toEqual([market]);
    const it = sub[Symbol.asyncIterator]();
    await place(bob, "BUY", "YES", 0.42, 3);
    const next = await it.next();
    expect(next.value).toMatchObject({ marketId: market, buyNoPrice: "0.58" });
    expect(seen[0]).toEqual(next.value);
    await it.return?.();
    sub.unsubscribe();
  });

  test("book channel: the snapshot equals GET orderbook, updates follow, both views", async () => {
    const ws = await open(alice);
    const yes = ws.subscribeBook(market);
    const no = ws.subscribeBook(market, { outcome: "NO" });
    const snap = await yes.ready;
    expect(levels(snap)).toEqual(await serverBook());
    expect(levels(await no.ready)).toEqual(await serverBook("NO"));
    const states: BookState[] = [];
    const consumer = (async () => {
      for await (const b of yes) {
        states.push(b);
        if (b.asks.some((l) => l.price === "0.77")) break;
      }
    })();
    await place(bob, "BUY", "NO", 0.23, 2);
    await consumer;
    expect(levels(yes.book)).toEqual(await serverBook());
    await waitFor("NO view", async () => JSON.stringify(levels(no.book)) === JSON.stringify(await serverBook("NO")));
    expect(yes.book.seq).toBeGreaterThan(snap.seq);
    expect(yes.stats.snapshots).toBe(1);
  });

  test("user channel: balance and order updates for the session's user only", async () => {
    const ws = await open(alice);
    const updates: UserUpdate[] = [];
    const sub = ws.subscribeUser({ onUpdate: (u) => updates.push(u) });
    expect(await sub.ready).toBe(alice.session?.userId);
    const bobWs = await open(bob);
    const bobUpdates: UserUpdate[] = [];
    await bobWs.subscribeUser({ onUpdate: (u) => bobUpdates.push(u) }).ready;
    await place(alice, "BUY", "YES", 0.2, 1);
    await waitFor("balance and order updates", async () => updates.some((u) => "balance" in u) && updates.some((u) => "order" in u));
    expect(updates.find((u) => "balance" in u)).toMatchObject({
      balance: { available: expect.any(String), locked: expect.any(String), total: expect.any(String) },
    });
    expect(bobUpdates.filter((u) => "balance" in u)).toEqual([]);
  });

  test("user channel follows a refreshed token: the old session ends, the socket carries on with the new one", async () => {
    const c = await login();
    const first = c.session!;
    const claims = JSON.parse(Buffer.from(first.accessToken.split(".")[1], "base64url").toString());
    c.setSession(
      sessionFromToken(
        issueToken(
          srv.cfg.jwtSecret,
          { userId: claims.sub, walletAddress: claims.wal, sessionId: claims.sid },
          Math.floor(Date.now() / 1000) - 84_600,
        ).token,
      ),
    );
    const ws = await open(c);
    const updates: UserUpdate[] = [];
    const sub = ws.subscribeUser({ onUpdate: (u) => updates.push(u) });
    await sub.ready;
    const errors: string[] = [];
    ws.on("error", (e) => errors.push(e.code ?? ""));
    // The refresh (automatic, before this call) revokes the session the socket used.
    await c.portfolio.balance();
    expect(c.session!.accessToken).not.toBe(first.accessToken);
    await waitFor("session ended", async () => errors.includes("SESSION_ENDED"));
    await waitFor("resubscribed", async () => sub.sentToken === c.session!.accessToken);
    await place(c, "BUY", "YES", 0.11, 1);
    await waitFor("updates on the new token", async () => updates.some((u) => "balance" in u));
  });

  test("a dropped connection: reconnects, resubscribes, rebuilds the book from a fresh snapshot equal to the server's", async () => {
    // Down long enough for the book to change while it is away, also on a busy machine.
    const ws = await open(alice, { reconnectionDelayMs: 2000, reconnectionDelayMaxMs: 2000 });
    const book = ws.subscribeBook(market);
    const prices: MarketPrices[] = [];
    const m = ws.subscribeMarkets([market], (p) => prices.push(p));
    const user = ws.subscribeUser();
    await Promise.all([book.ready, m.ready, user.ready]);
    const reconnected = new Promise<void>((r) => ws.once("reconnect", () => r()));

    // Cut the transport under the client; while it is down the book changes a lot.
    (ws.socket.io as unknown as { engine: { close(): void } }).engine.close();
    await waitFor("disconnected", async () => !ws.connected);
    const placed = [];
    for (let i = 0; i < 5; i++) placed.push(await place(bob, "BUY", "YES", 0.3 + i / 100, 1 + i));
    await bob.orders.cancel(placed[2].orderId);
    await place(bob, "BUY", "NO", 0.6, 2);
    expect(book.book.synced).toBe(false);

    await reconnected;
    await waitFor("fresh snapshot", async () => book.book.synced);
    expect(ws.connections).toBe(2);
    expect(book.stats.resyncs).toBe(1);
    expect(book.stats.snapshots).toBe(2);
    expect(levels(book.book)).toEqual(await serverBook());
    // The other channels came back too.
    await place(bob, "BUY", "YES", 0.39, 1);
    await waitFor(
      "book update after reconnect",
      async () => JSON.stringify(levels(book.book)) === JSON.stringify(await serverBook()) && book.book.bids[0]?.price === "0.39",
    );
    await waitFor("price update after reconnect", async () => prices.some((p) => p.buyNoPrice === "0.61"));
    const userUpdates: UserUpdate[] = [];
    const it = (async () => {
      for await (const u of user) {
        userUpdates.push(u);
        if ("order" in u) break;
      }
    })();
    await place(alice, "BUY", "NO", 0.05, 1);
    await it;
    expect(userUpdates.some((u) => "order" in u)).toBe(true);
  });

  test("a server-side disconnect (not retried by socket.io itself) is recovered as well", async () => {
    const ws = await open(alice);
    const book = ws.subscribeBook(market, { outcome: "NO" });
    await book.ready;
    const reconnected = new Promise<void>((r) => ws.once("reconnect", () => r()));
    for (const s of io().of("/").sockets.values()) s.disconnect(true);
    await place(bob, "BUY", "YES", 0.25, 7);
    await reconnected;
    await waitFor(
      "fresh snapshot",
      async () => book.book.synced && JSON.stringify(levels(book.book)) === JSON.stringify(await serverBook("NO")),
    );
    expect(levels(book.book)).toEqual(await serverBook("NO"));
  });

  test("resyncOnGap: a skipped sequence number brings a fresh snapshot; the book ends equal to the server's", async () => {
    const ws = await open(alice, { resyncOnGap: true });
    const book = ws.subscribeBook(market);
    await book.ready;
    // A burst inside the server's coalescing window skips sequence numbers.
    await Promise.all(Array.from({ length: 8 }, (_, i) => place(bob, "BUY", "YES", 0.12 + i / 100, 1)));
    await waitFor("settled", async () => JSON.stringify(levels(book.book)) === JSON.stringify(await serverBook()));
    if (book.stats.gaps > 0) expect(book.stats.resyncs).toBeGreaterThanOrEqual(1);
    expect(book.stats.snapshots).toBe(1 + book.stats.resyncs);
  });

  test("errors: an unknown market's book rejects ready; a user subscription without a session is refused", async () => {
    const ws = await open(alice);
    await expect(ws.subscribeBook("mkt_nope").ready).rejects.toMatchObject({ code: "NOT_FOUND", channel: "book" });
    const anon = await open(new PmxClient({ baseUrl: srv.url }));
    await expect(anon.subscribeUser().ready).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(anon.subscribeUser({ token: "junk" }).ready).rejects.toMatchObject({ code: "UNAUTHORIZED", channel: "user" });
  });

  test("close ends every iterator", async () => {
    const ws = await open(alice);
    const book = ws.subscribeBook(market);
    await book.ready;
    const done = (async () => {
      const got: BookState[] = [];
      for await (const b of book) got.push(b);
      return got;
    })();
    ws.close();
    expect(await done).toEqual([]);
  });
});
