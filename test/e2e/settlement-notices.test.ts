/**
 * Settlement notifications on real services (issue: one settlement gave three identical "Trade
 * settled" notifications for one transaction). A maker order filled by three takers is three trades
 * settled by one transaction: its owner gets ONE notification naming the three, each taker one.
 * The outcome reaches the notifier even when it was down while the chain settled (it is stored by
 * the chain until the notifier takes it), and restarts add nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChainServer, waitFor } from "../support/chain";
import { createMarket, fund, SHARE } from "../support/trading";
import type { TestServer } from "../support/server";
import { TestWallet } from "../support/wallet";

jest.setTimeout(180_000);

interface Note {
  id: string;
  type: string;
  title: string;
  body: string;
  metadata: { marketId: string; tradeIds: string[]; txHash: string | null };
}

describe("settlement notifications across a notifier outage and restarts", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "pmx-settle-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  // Settlement only when the test says (chain.tick): the six trades go in one batch.
  const ENV = { SETTLEMENT_INTERVAL_MS: "0", SETTLEMENT_MIN_AGE_MS: "0" };
  const WITHOUT_NOTIFIER = { ...ENV, SERVICES: "api,auth,catalog,book,amm,router,ledger,chain" };
  const wallets = { maker: TestWallet.random(), t1: TestWallet.random(), t2: TestWallet.random(), t3: TestWallet.random() };
  type Who = keyof typeof wallets;
  let market: string;
  const tradesOf = new Map<Who, string[]>();
  let txHash: string;

  async function logins(srv: TestServer) {
    const out = {} as Record<Who, { token: string; userId: string }>;
    for (const who of Object.keys(wallets) as Who[]) out[who] = await srv.login(wallets[who]);
    return out;
  }

  async function settlementNotes(srv: TestServer, token: string): Promise<Note[]> {
    const res = await srv.http("GET", "/api/v1/notifications?pageSize=100", { token });
    expect(res.status).toBe(200);
    return (res.body.data as Note[]).filter((n) => n.type.startsWith("SETTLEMENT_"));
  }

  test("the chain settles six trades in one transaction while no notifier runs", async () => {
    const srv = await startChainServer(WITHOUT_NOTIFIER, { dataDir });
    try {
      const u = await logins(srv);
      for (const who of Object.keys(u) as Who[]) await fund(srv.broker, u[who].userId, 100 * SHARE);
      market = await createMarket(srv, "Settled once");
      const place = (who: Who, body: Record<string, unknown>) =>
        srv.http("POST", "/api/v1/orders", { token: u[who].token, body: { marketId: market, orderType: "GTC", ...body } });
      expect((await place("maker", { side: "BUY", outcome: "YES", price: 0.4, quantity: 30 * SHARE })).status).toBe(200);
      for (const who of ["t1", "t2", "t3"] as const) {
        const res = await place(who, { side: "BUY", outcome: "NO", price: 0.6, quantity: 10 * SHARE });
        expect(res.body.data.status).toBe("filled");
        tradesOf.set(who, [res.body.data.tradeId]);
      }
      const makerTrades = (await srv.http("GET", "/api/v1/trades", { token: u.maker.token })).body.data as Array<{ id: string }>;
      expect(makerTrades).toHaveLength(3);
      tradesOf.set("maker", makerTrades.map((t) => t.id).sort());

      await srv.broker.call("chain.tick");
      const confirmed = await waitFor("all six confirmed", async () => {
        const all = await Promise.all(
          (Object.keys(u) as Who[]).map(
            async (who) =>
              (await srv.http("GET", "/api/v1/trades", { token: u[who].token })).body.data as Array<{
                settlementStatus: string;
                settlementTxHash: string;
              }>,
          ),
        );
        const flat = all.flat();
        return flat.length === 6 && flat.every((t) => t.settlementStatus === "confirmed") ? flat : null;
      });
      // One transaction for all of them.
      expect(new Set(confirmed.map((t) => t.settlementTxHash)).size).toBe(1);
      txHash = confirmed[0].settlementTxHash;
      // No notifier: the route answers 503 (and nothing was stored anywhere).
      expect((await srv.http("GET", "/api/v1/notifications", { token: u.maker.token })).status).toBe(503);
    } finally {
      await srv.stop();
    }
  });

  test("with the notifier back: exactly one notification per owner (the maker's names its three trades)", async () => {
    const srv = await startChainServer(ENV, { dataDir });
    try {
      const u = await logins(srv);
      const makerNotes = await waitFor("the maker's settlement notification", async () => {
        const notes = await settlementNotes(srv, u.maker.token);
        return notes.length ? notes : null;
      });
      expect(makerNotes).toEqual([
        expect.objectContaining({
          type: "SETTLEMENT_CONFIRMED",
          title: "Trades settled",
          body: `Your 3 trades in “Settled once” are confirmed on-chain (tx ${txHash.slice(0, 8)}…${txHash.slice(-6)}).`,
          metadata: { marketId: market, tradeIds: tradesOf.get("maker"), txHash },
        }),
      ]);
      for (const who of ["t1", "t2", "t3"] as const) {
        const notes = await waitFor(`${who}'s notification`, async () =>
          (await settlementNotes(srv, u[who].token)).length ? settlementNotes(srv, u[who].token) : null,
        );
        expect(notes).toEqual([
          expect.objectContaining({ title: "Trade settled", metadata: { marketId: market, tradeIds: tradesOf.get(who), txHash } }),
        ]);
      }
      // Further settlement rounds and journal reads add nothing.
      await srv.broker.call("chain.tick");
      await srv.broker.call("notifier.catchUp");
      expect(await settlementNotes(srv, u.maker.token)).toHaveLength(1);
    } finally {
      await srv.stop();
    }
  });

  test("another restart: still one each", async () => {
    const srv = await startChainServer(ENV, { dataDir });
    try {
      const u = await logins(srv);
      await srv.broker.call("chain.tick");
      await srv.broker.call("notifier.catchUp");
      for (const who of Object.keys(u) as Who[])
        expect({ who, n: (await settlementNotes(srv, u[who].token)).length }).toEqual({ who, n: 1 });
    } finally {
      await srv.stop();
    }
  });
});
