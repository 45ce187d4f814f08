/**
 * The client SDK (client/src) against a started server: every REST route through its typed
 * method, every error class, automatic refresh, opt-in 429 retries, pagination iterators, and the
 * pure helpers (exact money, ton_proof) cross-checked with the server's own code.
 */
import { Errors } from "moleculer";
import nacl from "tweetnacl";
import { WalletContractV4, WalletContractV5R1 } from "@ton/ton";
import {
  BadRequestError,
  collect,
  ConflictError,
  ForbiddenError,
  fromMicro,
  GatewayTimeoutError,
  INDEX_SET,
  InternalServerError,
  keyPairFromSeed,
  NetworkError,
  NotFoundError,
  NotLoggedInError,
  parseUnits,
  formatUnits,
  PayloadTooLargeError,
  PmxClient,
  priceToTick,
  ProtocolError,
  randomKeyPair,
  RateLimitError,
  sessionFromToken,
  ServiceUnavailableError,
  signConnectRequest,
  tickToPrice,
  tickToPriceNumber,
  toMicro,
  tonProofDigest,
  UnauthorizedError,
  walletAddress,
  type ApiError,
  type ProofSigner,
  type Session,
} from "../../client/src";
import { tonProofDigest as serverDigest, verifyTonProof } from "../../auth/ton-proof";
import { issueToken } from "../../auth/tokens";
import { startServer, TEST_DOMAIN, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, SHARE } from "../support/trading";
import { startChainServer, waitFor } from "../support/chain";
import { TestWallet } from "../support/wallet";

const now = () => Math.floor(Date.now() / 1000);

async function expectError<E extends ApiError>(p: Promise<unknown>, cls: abstract new (...a: never[]) => E, code: string): Promise<E> {
  const err = await p.then(
    () => {
      throw new Error(`expected ${cls.name} ${code}, got success`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(cls);
  const e = err as E;
  expect(e.code).toBe(code);
  expect(e.requestId).toMatch(/^req_/);
  return e;
}

describe("money helpers: exact, no floating point", () => {
  test("micro-units and decimals", () => {
    expect(toMicro("12.5")).toBe("12500000");
    expect(toMicro("0.000001")).toBe("1");
    expect(toMicro(".5")).toBe("500000");
    expect(toMicro(42)).toBe("42000000");
    expect(toMicro(0.1)).toBe("100000");
    expect(toMicro("9007199254.740993")).toBe("9007199254740993");
    expect(() => toMicro("0.0000001")).toThrow(RangeError);
    expect(() => toMicro(1e-7)).toThrow(RangeError);
    expect(() => toMicro("12,5")).toThrow(RangeError);
    expect(() => toMicro(Number.NaN)).toThrow(RangeError);
    expect(fromMicro("12500000")).toBe("12.5");
    expect(fromMicro(12_500_000n, { fixed: true })).toBe("12.500000");
    expect(fromMicro("1", { minDecimals: 2 })).toBe("0.000001");
    expect(fromMicro("100000000", { minDecimals: 2 })).toBe("100.00");
    expect(fromMicro("-2531566")).toBe("-2.531566");
    // 0.1 + 0.2 in micro-units is exactly 0.3.
    expect(fromMicro(BigInt(toMicro("0.1")) + BigInt(toMicro("0.2")))).toBe("0.3");
    expect(() => fromMicro("1.5")).toThrow(RangeError);
    expect(parseUnits("1.5", 9)).toBe(1_500_000_000n);
    expect(formatUnits(1_500_000_000n, 9)).toBe("1.5");
  });

  test("prices and ticks", () => {
    expect(priceToTick("0.55")).toBe(55);
    expect(priceToTick("0.5")).toBe(50);
    expect(priceToTick(0.07)).toBe(7);
    expect(priceToTick("0.550")).toBe(55);
    expect(() => priceToTick("0.555")).toThrow(/grid/);
    expect(() => priceToTick("0")).toThrow(RangeError);
    expect(() => priceToTick("1")).toThrow(RangeError);
    expect(() => priceToTick("1.00")).toThrow(RangeError);
    expect(tickToPrice(7)).toBe("0.07");
    expect(tickToPriceNumber(29)).toBe(0.29);
    expect(() => tickToPrice(100)).toThrow(RangeError);
    for (let t = 1; t <= 99; t++) expect(priceToTick(tickToPrice(t))).toBe(t);
  });
});

describe("ton_proof built by the SDK", () => {
  test("standard wallet addresses match @ton/ton's contracts", () => {
    for (let i = 0; i < 5; i++) {
      const kp = randomKeyPair();
      const pk = Buffer.from(kp.publicKey);
      expect(walletAddress(kp.publicKey).equals(WalletContractV4.create({ workchain: 0, publicKey: pk }).address)).toBe(true);
      expect(walletAddress(kp.publicKey, { workchain: -1 }).equals(WalletContractV4.create({ workchain: -1, publicKey: pk }).address)).toBe(
        true,
      );
      for (const testnet of [false, true]) {
        const v5 = WalletContractV5R1.create({
          publicKey: pk,
          walletId: { networkGlobalId: testnet ? -3 : -239, context: { workchain: 0, walletVersion: "v5r1", subwalletNumber: 0 } },
        });
        expect(walletAddress(kp.publicKey, { version: "v5r1", testnet }).equals(v5.address)).toBe(true);
      }
    }
  });

  test("the digest equals the server's, the signature verifies there, and a test wallet's proof is the same bytes", async () => {
    const tw = TestWallet.fromSeed("sdk-digest");
    const kp = keyPairFromSeed(Buffer.from(tw.secretKey.subarray(0, 32)));
    const fields = { address: tw.rawAddress, domain: TEST_DOMAIN, timestamp: 1_700_000_000, payload: "abc" };
    expect(tonProofDigest(fields).equals(serverDigest(tw.address, TEST_DOMAIN, 1_700_000_000, "abc"))).toBe(true);
    const body = await signConnectRequest(kp, { domain: TEST_DOMAIN, payload: "abc", timestamp: 1_700_000_000 });
    expect(body.proof.signature).toBe(tw.signProof(fields));
    expect(body.address).toBe(tw.rawAddress);
    const verdict = verifyTonProof(body, { domain: TEST_DOMAIN, nowSec: 1_700_000_010 });
    expect(verdict).toMatchObject({ ok: true, walletVersion: "v4r2" });
  });
});

describe("SDK against a started server", () => {
  let srv: TestServer;
  let market: string;
  let client: PmxClient;
  let other: PmxClient;
  let sessions: Array<Session | null>;

  const newClient = (o: Partial<ConstructorParameters<typeof PmxClient>[0]> = {}) =>
    new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN, ...o });
  const funded = async (usdt: number): Promise<PmxClient> => {
    const c = newClient();
    await c.auth.loginWithKeyPair(randomKeyPair());
    await c.wallet.faucet({ amount: toMicro(usdt) });
    await waitFor("credit", async () => (await c.portfolio.balance()).available === toMicro(usdt));
    return c;
  };

  beforeAll(async () => {
    srv = await startChainServer({ ADMIN_KEY });
    market = await createMarket(srv, "Will the SDK work?", String(1000 * SHARE));
    sessions = [];
    client = newClient({ onSessionChange: (s) => sessions.push(s), adminKey: ADMIN_KEY });
    await client.auth.loginWithKeyPair(randomKeyPair());
    await client.wallet.faucet({ amount: toMicro(500) });
    await waitFor("credit", async () => (await client.portfolio.balance()).available === toMicro(500));
    other = await funded(200);
  });
  afterAll(() => srv.stop());
  afterEach(() => expectConserved(srv.broker));

  test("health and the OpenAPI document", async () => {
    expect(await client.health()).toMatchObject({ status: "ok" });
    const doc = await client.openapi();
    expect(doc.openapi).toBe("3.0.3");
  });

  describe("login", () => {
    test("from a key pair: v4r2 and v5r1 wallets; the session is kept and reported", async () => {
      for (const version of ["v4r2", "v5r1"] as const) {
        const seen: Array<Session | null> = [];
        const c = newClient({ onSessionChange: (s) => seen.push(s) });
        const kp = randomKeyPair();
        const s = await c.auth.loginWithKeyPair(kp, { wallet: { version } });
        expect(s.walletAddress).toBe(walletAddress(kp.publicKey, { version }).toRawString());
        expect(s.expiresAt).toBeGreaterThan(now() + 86_000);
        expect(c.session).toEqual(s);
        expect(seen).toEqual([s]);
        expect((await c.portfolio.balance()).available).toBe("0");
      }
    });

    test("from an externally signed proof (a wallet app's ton_proof) and from a custom signer", async () => {
      const tw = TestWallet.random();
      const c = newClient();
      const s = await c.auth.connect(tw.connectBody({ domain: TEST_DOMAIN }));
      expect(s.walletAddress).toBe(tw.rawAddress);

      const signer: ProofSigner = {
        address: tw.friendlyAddress,
        publicKey: tw.publicKeyHex,
        sign: async (digest) => Buffer.from(nacl.sign.detached(digest, tw.secretKey)).toString("base64"),
      };
      const again = await newClient().auth.loginWithSigner(signer);
      expect(again.userId).toBe(s.userId);
    });

    test("a proof for another domain or another key is refused with UnauthorizedError", async () => {
      await expectError(newClient({ domain: "evil.example" }).auth.loginWithKeyPair(randomKeyPair()), UnauthorizedError, "UNAUTHORIZED");
      const tw = TestWallet.random();
      const body = tw.connectBody({ domain: TEST_DOMAIN });
      body.publicKey = TestWallet.random().publicKeyHex;
      await expectError(newClient().auth.connect(body), UnauthorizedError, "UNAUTHORIZED");
    });

    test("automatic refresh in the last hour: one refresh for concurrent calls, the new token kept, the old one dead", async () => {
      const seen: Array<Session | null> = [];
      const c = newClient({ onSessionChange: (s) => seen.push(s) });
      const first = await c.auth.loginWithKeyPair(randomKeyPair());
      const claims = JSON.parse(Buffer.from(first.accessToken.split(".")[1], "base64url").toString());
      // The same session issued 23.5 h ago: 30 minutes of validity left.
      const old = issueToken(srv.cfg.jwtSecret, { userId: claims.sub, walletAddress: claims.wal, sessionId: claims.sid }, now() - 84_600);
      c.setSession(sessionFromToken(old.token));
      seen.length = 0;
      const [b1, b2, orders] = await Promise.all([c.portfolio.balance(), c.portfolio.balance(), c.orders.list()]);
      expect(b1).toEqual(b2);
      expect(orders.items).toEqual([]);
      expect(seen).toHaveLength(1);
      const fresh = c.session as Session;
      expect(fresh.accessToken).not.toBe(old.token);
      expect(fresh.expiresAt).toBeGreaterThan(now() + 86_000);
      expect(fresh.userId).toBe(first.userId);
      // The refresh ended the old session on the server.
      await expectError(
        newClient({ session: sessionFromToken(old.token), autoRefresh: false }).portfolio.balance(),
        UnauthorizedError,
        "UNAUTHORIZED",
      );
      // A token with plenty of time left is not refreshed.
      await c.portfolio.balance();
      expect(seen).toHaveLength(1);
      // An explicit refresh is refused while more than an hour is left.
      await expectError(c.auth.refresh(), UnauthorizedError, "UNAUTHORIZED");
    });

    test("refresh with the token in the body, then logout: the session is gone at once", async () => {
      const c = newClient();
      const first = await c.auth.loginWithKeyPair(randomKeyPair());
      const claims = JSON.parse(Buffer.from(first.accessToken.split(".")[1], "base64url").toString());
      const old = issueToken(srv.cfg.jwtSecret, { userId: claims.sub, walletAddress: claims.wal, sessionId: claims.sid }, now() - 84_600);
      const s = await c.auth.refreshToken(old.token);
      expect(s.userId).toBe(first.userId);
      expect(c.session).toEqual(s);
      await c.auth.logout();
      expect(c.session).toBeNull();
      await expectError(newClient({ session: s }).portfolio.balance(), UnauthorizedError, "UNAUTHORIZED");
      await expect(c.portfolio.balance()).rejects.toBeInstanceOf(NotLoggedInError);
    });
  });

  describe("catalog", () => {
    let eventIds: string[];
    beforeAll(async () => {
      eventIds = [];
      for (const t of ["Zeta volcano erupts", "Zeta comet returns", "Zeta storm season"])
        eventIds.push((await client.admin.createEvent({ title: t, category: "Tech", tags: ["zeta"], markets: [{ title: `${t}?` }] })).id);
    });

    test("events: list, filter, pages and the iterator over every page", async () => {
      const page = await client.events.list({ category: "Tech", pageSize: 2 });
      expect(page.items).toHaveLength(2);
      expect(page.pagination).toMatchObject({ page: 1, pageSize: 2, hasNext: true });
      expect(page.requestId).toMatch(/^req_/);
      const all = await collect(client.events.iterate({ category: "Tech", pageSize: 1 }));
      expect(all.map((e) => e.id)).toEqual(expect.arrayContaining(eventIds));
      expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
      expect((await client.events.list({ search: "comet" })).items.map((e) => e.id)).toEqual([eventIds[1]]);
      expect(await collect(client.events.iterate({ category: "Tech", pageSize: 1 }), 2)).toHaveLength(2);
    });

    test("search, one event with live prices, one market", async () => {
      const found = await client.events.search({ q: "zeta volcano" });
      expect(found.items[0].id).toBe(eventIds[0]);
      expect((await collect(client.events.iterateSearch({ q: "zeta", pageSize: 1 }))).length).toBe(3);
      const e = await client.events.get(eventIds[0]);
      expect(e.markets).toHaveLength(1);
      const m = await client.markets.get(e.markets[0].id);
      expect(m).toMatchObject({
        id: e.markets[0].id,
        status: "open",
        outcomes: ["YES", "NO"],
        conditionId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
    });

    test("order book, price history and quote", async () => {
      expect(await client.markets.orderbook(market)).toEqual({ bids: [], asks: [] });
      expect(await client.markets.orderbook(market, "NO")).toEqual({ bids: [], asks: [] });
      const h = await client.markets.priceHistory(market, { interval: "1W", outcome: "NO" });
      expect(h).toMatchObject({ marketId: market, outcome: "NO", interval: "1W" });
      const q = await client.markets.quote(market, { side: "BUY", outcome: "YES", quantity: toMicro(10) });
      expect(q.source).toBe("AMM");
      expect(Number(q.estimatedCost)).toBeGreaterThan(0);
    });
  });

  describe("trading and portfolio", () => {
    test("limit orders: place, list, cancel; the book shows them", async () => {
      const o = await client.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "YES",
        orderType: "GTC",
        price: tickToPriceNumber(priceToTick("0.31")),
        quantity: Number(toMicro(10)),
      });
      expect(o).toMatchObject({ status: "open", price: "0.31", remainingQuantity: toMicro(10), avgPrice: null, tradeId: null, fills: [] });
      expect((await client.markets.orderbook(market)).bids[0]).toEqual({ price: "0.31", quantity: toMicro(10), numOrders: 1 });
      const list = await client.orders.list({ marketId: market });
      expect(list.items.map((x) => x.orderId)).toContain(o.orderId);
      const c = await client.orders.cancel(o.orderId);
      expect(c).toEqual({ orderId: o.orderId, status: "cancelled", cancelledQuantity: toMicro(10), releasedAmount: String(3.1 * SHARE) });
      await expectError(client.orders.cancel(o.orderId), NotFoundError, "ORDER_NOT_FOUND");
      expect((await client.orders.list({ marketId: market })).items).toEqual([]);
    });

    test("a maker and a taker fill; AMM and routed market trades; positions, trades and one trade", async () => {
      const maker = await client.orders
        .place({ marketId: market, side: "SELL", outcome: "NO", orderType: "GTC", price: 0.6, quantity: Number(toMicro(5)) })
        .catch((e: BadRequestError) => e);
      // No NO shares yet: selling them is a business refusal.
      expect(maker).toBeInstanceOf(BadRequestError);
      expect((maker as BadRequestError).code).toBe("INSUFFICIENT_SHARES");

      const amm = await client.trade.amm({ marketId: market, side: "BUY", outcome: "YES", quantity: toMicro(10) });
      expect(amm).toMatchObject({ venue: "AMM", filledQuantity: toMicro(10) });
      const resting = await other.orders
        .place({ marketId: market, side: "SELL", outcome: "YES", orderType: "GTC", price: 0.01, quantity: Number(toMicro(1)) })
        .catch((e: BadRequestError) => e);
      expect((resting as BadRequestError).code).toBe("INSUFFICIENT_SHARES");
      await other.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "NO",
        orderType: "GTC",
        price: 0.45,
        quantity: Number(toMicro(4)),
      });
      const taker = await client.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "YES",
        orderType: "FOK",
        price: 0.55,
        quantity: Number(toMicro(4)),
      });
      expect(taker).toMatchObject({
        status: "filled",
        filledQuantity: toMicro(4),
        avgPrice: "0.55",
        tradeId: expect.any(String),
        fills: [{ price: "0.55", quantity: toMicro(4) }],
      });
      const routed = await client.trade.market({ marketId: market, side: "SELL", outcome: "YES", quantity: toMicro(2) });
      expect(["AMM", "CLOB", "HYBRID"]).toContain(routed.venue);

      const positions = await client.portfolio.positions();
      expect(positions.find((p) => p.marketId === market && p.outcome === "YES")).toMatchObject({
        quantity: toMicro(12),
        market: { id: market, title: "Will the SDK work?" },
      });
      const page = await client.portfolio.trades({ pageSize: 2 });
      expect(page.items).toHaveLength(2);
      expect(page.pagination).toMatchObject({ total: 3, hasNext: true });
      const all = await collect(client.portfolio.iterateTrades({ pageSize: 1 }));
      expect(all.map((t) => t.id).sort()).toEqual([amm.tradeId, taker.tradeId, routed.tradeId].sort());
      const one = await client.portfolio.trade(amm.tradeId);
      expect(one).toMatchObject({ id: amm.tradeId, venue: "AMM", settlementStatus: expect.stringMatching(/pending|confirmed/) });
      const settled = await waitFor("settlement", async () => {
        const t = await client.portfolio.trade(amm.tradeId);
        return t.settlementStatus === "confirmed" ? t : null;
      });
      expect(settled.settlementTxHash).toMatch(/^[0-9a-f]{64}$/);
      await expectError(other.portfolio.trade(amm.tradeId), NotFoundError, "RESOURCE_NOT_FOUND");
    });

    test("quote with venue AMM prices the pool alone (what trade.amm does) while the default quote routes to the cheaper book", async () => {
      // A YES bid at 0.60 is a NO ask at 0.40, well under the pool's NO price.
      const bid = await other.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "YES",
        orderType: "GTC",
        price: 0.6,
        quantity: Number(toMicro(1)),
      });
      const body = { side: "BUY", outcome: "NO", quantity: toMicro(1) } as const;
      const routed = await client.markets.quote(market, body);
      expect(routed).toMatchObject({ source: "CLOB", estimatedPrice: "0.40" });
      const pool = await client.markets.quote(market, { ...body, venue: "AMM" });
      expect(pool.source).toBe("AMM");
      expect(Number(pool.estimatedPrice)).toBeGreaterThan(0.4);
      const t = await client.trade.amm({ marketId: market, ...body });
      expect(t).toMatchObject({ venue: "AMM", avgPrice: pool.estimatedPrice, totalCost: pool.estimatedCost, fee: pool.fee });
      await other.orders.cancel(bid.orderId);
      await expectError(client.markets.quote(market, { ...body, venue: "BOOK" as "AMM" }), BadRequestError, "VALIDATION_ERROR");
      // Settled before the notification tests count (its confirmation is a notification too).
      await waitFor("settlement", async () => (await client.portfolio.trade(t.tradeId)).settlementStatus === "confirmed" || null);
    });

    test("balance arithmetic stays exact in micro-units", async () => {
      const b = await client.portfolio.balance();
      expect(BigInt(b.available) + BigInt(b.locked)).toBe(BigInt(b.total));
      expect(fromMicro(b.total)).toMatch(/^\d+(\.\d{1,6})?$/);
    });
  });

  describe("chain and notifications", () => {
    test("deposit address, faucet, withdraw (accepted then duplicate)", async () => {
      const d = await client.wallet.depositAddress();
      expect(d.address).toMatch(/^0Q/);
      expect(d.jettonWalletAddress).not.toBeNull();
      const f = await client.wallet.faucet({ amount: "1000000000", asset: "TON" });
      expect(f).toMatchObject({ status: "accepted", asset: "TON", address: d.address });
      const w = await client.wallet.withdraw({ amount: toMicro(3) });
      expect(w).toMatchObject({ status: "accepted", txHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const dup = await client.wallet.withdraw({ amount: toMicro(3) });
      expect(dup).toMatchObject({ status: "duplicate", txHash: w.txHash });
      await expectError(client.wallet.withdraw({ amount: "12" }), BadRequestError, "VALIDATION_ERROR");
    });

    test("redeem after the operator resolves: accepted once, then duplicate", async () => {
      const m = await client.markets.get(market);
      await expectError(
        client.wallet.redeem(market, { conditionId: m.conditionId, indexSets: [INDEX_SET.YES] }),
        BadRequestError,
        "MARKET_NOT_RESOLVED",
      );
      for (const o of await other.orders.open()) await other.orders.cancel(o.orderId);
      const resolved = await client.admin.resolveMarket(market, { result: "YES" });
      expect(resolved).toMatchObject({ status: "resolved", result: "YES" });
      const before = BigInt((await client.portfolio.balance()).available);
      const r = await client.wallet.redeem(market, { conditionId: m.conditionId, indexSets: [INDEX_SET.YES] });
      expect(r).toMatchObject({ status: "accepted", payout: toMicro(12) });
      expect(BigInt((await client.portfolio.balance()).available)).toBe(before + BigInt(toMicro(12)));
      expect((await client.wallet.redeem(market, { conditionId: m.conditionId, indexSets: [INDEX_SET.YES] })).status).toBe("duplicate");
    });

    test("notifications: pages, iterator, unread, mark read", async () => {
      await srv.broker.call("notifier.catchUp");
      const page = await client.notifications.list({ pageSize: 2 });
      expect(page.items.length).toBeGreaterThan(0);
      expect(page.pagination.total).toBeGreaterThanOrEqual(page.items.length);
      const all = await collect(client.notifications.iterate({ pageSize: 3 }));
      expect(all).toHaveLength(page.pagination.total);
      expect(all.map((n) => n.type)).toEqual(expect.arrayContaining(["TRADE_FILLED", "DEPOSIT_CREDITED"]));
      const unread = await client.notifications.unread();
      expect(unread.length).toBeGreaterThan(0);
      expect(unread.every((n) => !n.read)).toBe(true);
      expect(unread.map((n) => n.id)).toEqual(all.filter((n) => !n.read).map((n) => n.id));
      expect(await client.notifications.unreadCount()).toBe(unread.length);
      const one = await client.notifications.markRead({ ids: [unread[0].id] });
      expect(one).toEqual({ updated: 1, unread: unread.length - 1 });
      expect(await client.notifications.unreadCount()).toBe(unread.length - 1);
      expect((await client.notifications.list({ unread: true, pageSize: 100 })).items.map((n) => n.id)).not.toContain(unread[0].id);
      expect(await client.notifications.markRead({ all: true })).toEqual({ updated: unread.length - 1, unread: 0 });
      expect(await client.notifications.unread()).toEqual([]);
      await expectError(client.notifications.markRead({}), BadRequestError, "VALIDATION_ERROR");
    });
  });

  describe("operator API", () => {
    test("create, update, close, cancel; illegal transitions and wrong keys are typed errors", async () => {
      const e = await client.admin.createEvent({
        title: "Operator event",
        category: "Economics",
        markets: [{ title: "Rates cut?", ammLiquidity: toMicro(100) }, { title: "Rates hold?" }],
      });
      expect(e.markets).toHaveLength(2);
      const u = await client.admin.updateEvent(e.id, {
        subtitle: "Central bank",
        markets: [{ id: e.markets[1].id, title: "Rates unchanged?" }],
      });
      expect(u).toMatchObject({ subtitle: "Central bank", markets: [{ title: "Rates cut?" }, { title: "Rates unchanged?" }] });
      expect((await client.admin.closeMarket(e.markets[0].id)).status).toBe("closed");
      expect((await client.admin.cancelMarket(e.markets[1].id)).status).toBe("cancelled");
      await expectError(client.admin.closeMarket(e.markets[1].id), ConflictError, "ILLEGAL_TRANSITION");
      await expectError(newClient({ adminKey: "wrong" }).admin.closeMarket(e.markets[0].id), ForbiddenError, "FORBIDDEN");
      await expect(newClient().admin.closeMarket(e.markets[0].id)).rejects.toBeInstanceOf(NotLoggedInError);
    });
  });

  describe("errors", () => {
    test("400 VALIDATION_ERROR carries fields; a business 400 keeps its code", async () => {
      const e = await expectError(
        client.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.555, quantity: 100 }),
        BadRequestError,
        "VALIDATION_ERROR",
      );
      expect(e.fields).toEqual([{ field: "price", rule: "tick" }]);
      expect(e.status).toBe(400);
      expect(e.describe()).toMatch(/VALIDATION_ERROR: .*\[price: tick\] \(request req_/);
      const open = await createMarket(srv, "Big spender?");
      await expectError(
        other.orders.place({
          marketId: open,
          side: "BUY",
          outcome: "YES",
          orderType: "GTC",
          price: 0.99,
          quantity: Number(toMicro(100_000)),
        }),
        BadRequestError,
        "INSUFFICIENT_BALANCE",
      );
    });

    test("401, 404 and 413", async () => {
      await expectError(
        newClient({
          session: { accessToken: "junk.token.here", expiresAt: now() + 86_400, userId: "x", walletAddress: "x" },
        }).portfolio.balance(),
        UnauthorizedError,
        "UNAUTHORIZED",
      );
      await expectError(client.events.get("evt_nope"), NotFoundError, "RESOURCE_NOT_FOUND");
      await expectError(client.markets.orderbook("mkt_nope"), NotFoundError, "RESOURCE_NOT_FOUND");
      const big = TestWallet.random().connectBody({ domain: TEST_DOMAIN });
      await expectError(
        newClient().auth.connect({ ...big, messengerInitData: "x".repeat(70_000) }),
        PayloadTooLargeError,
        "PAYLOAD_TOO_LARGE",
      );
    });

    test("500, 503 and 504 from the server's failures", async () => {
      const auth = srv.broker.getLocalService("auth") as unknown as { stores: { usedProofs: { insertOnce: () => Promise<boolean> } } };
      const original = auth.stores.usedProofs.insertOnce;
      const cases: Array<[unknown, abstract new (...a: never[]) => ApiError, string]> = [
        [new Error("disk on fire"), InternalServerError, "INTERNAL_ERROR"],
        [new Errors.ServiceNotAvailableError({ action: "auth.connect", nodeID: "x" }), ServiceUnavailableError, "SERVICE_UNAVAILABLE"],
        [new Errors.RequestTimeoutError({ action: "auth.connect", nodeID: "x" }), GatewayTimeoutError, "TIMEOUT"],
      ];
      try {
        for (const [thrown, cls, code] of cases) {
          auth.stores.usedProofs.insertOnce = () => Promise.reject(thrown);
          await expectError(newClient().auth.loginWithKeyPair(randomKeyPair()), cls, code);
        }
      } finally {
        auth.stores.usedProofs.insertOnce = original;
      }
    });

    test("client-side failures: no server, not the API, no session", async () => {
      await expect(new PmxClient({ baseUrl: "http://127.0.0.1:1", timeoutMs: 2000 }).health()).rejects.toBeInstanceOf(NetworkError);
      const html = new PmxClient({ baseUrl: srv.url, fetch: async () => new Response("<html>proxy</html>", { status: 200 }) });
      await expect(html.events.list()).rejects.toBeInstanceOf(ProtocolError);
      const badGateway = new PmxClient({
        baseUrl: srv.url,
        fetch: async () => new Response("upstream down", { status: 502, statusText: "Bad Gateway" }),
      });
      await expect(badGateway.events.list()).rejects.toMatchObject({ status: 502, code: "HTTP_502", message: "upstream down" });
      await expect(newClient().portfolio.positions()).rejects.toBeInstanceOf(NotLoggedInError);
    });

    test("a base URL given with /api/v1 works the same", async () => {
      const c = new PmxClient({ baseUrl: `${srv.url}/api/v1/`, domain: TEST_DOMAIN });
      expect(c.apiRoot).toBe(`${srv.url}/api/v1`);
      expect((await c.health()).status).toBe("ok");
    });
  });
});

describe("429: typed error by default, Retry-After honoured when retries are on", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "2", RATE_WINDOW_MS: "2000" });
  });
  afterAll(() => srv.stop());

  test("without retries: RateLimitError with retryAfter; with retries: waits, then succeeds", async () => {
    const market = await createMarket(srv, "Rate limited?");
    const c = new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN });
    await c.auth.loginWithKeyPair(randomKeyPair());
    const place = () =>
      c.orders
        .place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.1, quantity: 100 })
        .catch((e: unknown) => e);
    // Unfunded: each order is a 400, but every request counts against the trade budget.
    expect(await place()).toBeInstanceOf(BadRequestError);
    expect(await place()).toBeInstanceOf(BadRequestError);
    const limited = (await place()) as RateLimitError;
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(limited.retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.retryAfter).toBeLessThanOrEqual(2);

    const retrying = new PmxClient({
      baseUrl: srv.url,
      domain: TEST_DOMAIN,
      session: c.session,
      retry: { maxRetries: 3, maxWaitSeconds: 5 },
    });
    const started = Date.now();
    const r = await retrying.orders
      .place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.1, quantity: 100 })
      .catch((e: unknown) => e);
    expect(r).toBeInstanceOf(BadRequestError);
    expect((r as BadRequestError).code).toBe("INSUFFICIENT_BALANCE");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    // A wait longer than allowed is not attempted.
    const impatient = new PmxClient({
      baseUrl: srv.url,
      domain: TEST_DOMAIN,
      session: c.session,
      retry: { maxRetries: 3, maxWaitSeconds: 0 },
    });
    await place();
    await place();
    expect(
      await impatient.orders
        .place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.1, quantity: 100 })
        .catch((e: unknown) => e),
    ).toBeInstanceOf(RateLimitError);
  });
});
