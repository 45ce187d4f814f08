/**
 * The chain service in a ServiceBroker, the Moleculer way: its neighbours (ledger, catalog,
 * notifier) are small fake services (the ledger on the real money engine), the chain is the
 * in-process TON sandbox in memory, and every action and event goes through the broker: params
 * validation, domain errors, what it answers and what it emits.
 */
import { ServiceBroker, type Context } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import { notFound } from "../../lib/errors";
import ChainService from "../../services/chain.service";
import type { Posting } from "../../engine/accounts";
import type { MarketInternal } from "../../models/catalog";
import type { ChainIncidentDoc, SettlementBatchDoc } from "../../models/chain";
import type { ChainEvents } from "../../chain/ports";
import type { SessionUser } from "../../mixins/context";
import type { TradeSettled } from "../../chain/settlement-batcher";
import { FakeLedger, TEST_SECRET, addressOf } from "../support/chain-fakes";

const S = 1_000_000;
const COND = "0x" + "ab".repeat(32);
const user = (n: number): SessionUser => ({ id: `usr_${n}`, wallet: addressOf(`wallet-${n}`).toRawString(), sid: `s${n}`, exp: 2e9 });
const ALICE = user(1);
const BOB = user(2);

async function until<T>(what: string, probe: () => T | null | undefined | false): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = probe();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}

describe("chain service in a ServiceBroker", () => {
  const broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS } });
  const ledger = new FakeLedger();
  const markets = new Map<string, MarketInternal>();
  const told: TradeSettled[] = [];
  const seen: Array<{ event: string; payload: unknown }> = [];
  const emitted = <K extends keyof ChainEvents>(event: K) => seen.filter((e) => e.event === event).map((e) => e.payload as ChainEvents[K]);

  /** A call as the gateway makes it: the session's user in meta, the status code the action set. */
  async function asUser<T = Record<string, unknown>>(
    u: SessionUser | null,
    action: string,
    params: object,
  ): Promise<{ status: number | undefined; data: T }> {
    return broker.call("gateway.call", { action, params }, { meta: { user: u } });
  }

  beforeAll(async () => {
    bindConfig(
      broker,
      loadConfig({
        DATA_DIR: ":memory:",
        JWT_SECRET: "x",
        MASTER_SECRET: TEST_SECRET,
        LOG_LEVEL: "false",
        SETTLEMENT_INTERVAL_MS: "0",
        DEPOSIT_POLL_MS: "0",
        SETTLEMENT_MIN_AGE_MS: "0",
      }),
    );
    broker.createService(ChainService);
    broker.createService({
      name: "ledger",
      actions: {
        post: {
          params: { key: "string", postings: "array" },
          handler: (ctx: Context<{ key: string; postings: Posting[] }>) => ledger.post(ctx.params),
        },
        account: (ctx: Context<{ account: string }>) => ({
          balance: ledger.accounts.balance(ctx.params.account),
          positions: ledger.accounts.positionsOf(ctx.params.account),
        }),
        holders: (ctx: Context<{ marketId: string }>) => ledger.holders(ctx.params.marketId),
        conservation: () => ledger.conservation(),
        markSettlement: async (ctx: Context<{ tradeIds: string[]; status: "confirmed" | "failed"; txHash?: string }>) => {
          await ledger.markSettlement(ctx.params.tradeIds, ctx.params.status, ctx.params.txHash ?? null);
          return { updated: ctx.params.tradeIds.length };
        },
        entriesAfter: (ctx: Context<{ seq: number; limit: number }>) => ledger.entriesAfter(ctx.params.seq, ctx.params.limit),
      },
    });
    broker.createService({
      name: "catalog",
      actions: {
        getMarketInternal: (ctx: Context<{ marketId: string }>) => {
          const m = markets.get(ctx.params.marketId);
          if (!m) throw notFound("Market", "MARKET_NOT_FOUND");
          return m;
        },
      },
    });
    broker.createService({
      name: "notifier",
      actions: { tradeSettled: (ctx: Context<TradeSettled>) => void told.push(ctx.params) },
    });
    broker.createService({
      name: "listener",
      events: {
        "chain.*"(ctx: Context) {
          seen.push({ event: String(ctx.eventName), payload: ctx.params });
        },
      },
    });
    broker.createService({
      name: "gateway",
      actions: {
        async call(ctx: Context<{ action: string; params: object }, { $statusCode?: number }>) {
          const data = await ctx.call(ctx.params.action, ctx.params.params);
          return { status: ctx.meta.$statusCode, data };
        },
      },
    });
    await broker.start();
  });
  afterAll(() => broker.stop());

  test("params are checked by the broker's validator before any handler runs; nothing changes", async () => {
    const refused = (p: Promise<unknown>, field: string, type: string) =>
      expect(p).rejects.toMatchObject({ code: 422, type: "VALIDATION_ERROR", data: [expect.objectContaining({ field, type })] });
    await refused(asUser(ALICE, "chain.withdraw", { amount: "0100" }), "amount", "stringPattern");
    await refused(asUser(ALICE, "chain.withdraw", { amount: 100 }), "amount", "string");
    await refused(asUser(ALICE, "chain.faucet", { amount: "5", asset: "BTC" }), "asset", "enumValue");
    await refused(asUser(ALICE, "chain.transfers", { page: "0" }), "page", "numberMin");
    await refused(
      asUser(ALICE, "chain.redeem", { marketId: "mkt_1", conditionId: "0x12", indexSets: ["0x1"] }),
      "conditionId",
      "stringPattern",
    );
    await refused(asUser(ALICE, "chain.redeem", { marketId: "mkt 1", conditionId: COND, indexSets: ["0x1"] }), "marketId", "stringPattern");
    await refused(
      asUser(ALICE, "chain.redeem", { marketId: "mkt_1", conditionId: COND, indexSets: ["0x1", "0x2", "0x1"] }),
      "indexSets",
      "arrayMax",
    );
    await refused(broker.call("chain.transaction", { hash: "xyz" }), "hash", "stringPattern");
    await expect(asUser(ALICE, "chain.redeem", { marketId: "mkt_1", conditionId: "0x12", indexSets: ["0x1"] })).rejects.toMatchObject({
      data: [expect.objectContaining({ message: "conditionId must be 0x followed by 64 hex digits" })],
    });
    expect(ledger.attempts).toEqual([]);
  });

  test("domain errors are Moleculer errors with the contract's codes", async () => {
    await expect(asUser(null, "chain.transfers", {})).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    await expect(asUser(ALICE, "chain.withdraw", { amount: "999999" })).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "amount", rule: "min" }] },
    });
    await expect(asUser(ALICE, "chain.withdraw", { amount: String(5 * S) })).rejects.toMatchObject({
      code: 400,
      type: "INSUFFICIENT_BALANCE",
    });
    await expect(asUser(ALICE, "chain.faucet", { amount: "0" })).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "amount", rule: "min" }] },
    });
    await expect(asUser(ALICE, "chain.faucet", { amount: "100000000000000" })).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "amount", rule: "max" }] },
    });
    await expect(asUser(ALICE, "chain.redeem", { marketId: "mkt_none", conditionId: COND, indexSets: ["0x1"] })).rejects.toMatchObject({
      code: 404,
      type: "MARKET_NOT_FOUND",
    });
    markets.set("mkt_open", {
      id: "mkt_open",
      eventId: "e",
      title: "?",
      status: "open",
      result: null,
      conditionId: COND,
      ammLiquidity: "0",
    });
    await expect(asUser(ALICE, "chain.redeem", { marketId: "mkt_open", conditionId: COND, indexSets: ["0x1"] })).rejects.toMatchObject({
      code: 400,
      type: "MARKET_NOT_RESOLVED",
    });
    await expect(
      asUser(ALICE, "chain.redeem", { marketId: "mkt_open", conditionId: "0x" + "cd".repeat(32), indexSets: ["0x1"] }),
    ).rejects.toMatchObject({ code: 400, type: "CONDITION_MISMATCH" });
    expect(seen).toEqual([]);
  });

  test("a faucet deposit: 202, credited once through the ledger, chain.depositCredited emitted, listed in the transfers", async () => {
    const address = (
      await asUser<{ address: string; jettonWalletAddress: string | null; derivationIndex: number }>(ALICE, "chain.depositAddress", {})
    ).data;
    expect(address).toMatchObject({ jettonWalletAddress: null, derivationIndex: 0 });
    const res = await asUser<{ status: string; txHash: string; address: string }>(ALICE, "chain.faucet", { amount: String(10 * S) });
    expect(res.status).toBe(202);
    expect(res.data).toMatchObject({ status: "accepted", asset: "USDT", amount: String(10 * S), address: address.address });
    expect(ledger.available(ALICE.id)).toBe(10 * S);
    const [credit] = emitted("chain.depositCredited");
    expect(credit).toEqual({ userId: ALICE.id, amount: String(10 * S), txHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const again = (await asUser<{ jettonWalletAddress: string | null; derivationIndex: number }>(ALICE, "chain.depositAddress", {})).data;
    expect(again).toMatchObject({ derivationIndex: 0, jettonWalletAddress: expect.any(String) });
    const list = (
      await asUser<{ items: Array<{ type: string; status: string; amount: string; txHash: string }> }>(ALICE, "chain.transfers", {
        type: "deposit",
      })
    ).data;
    expect(list.items).toEqual([
      expect.objectContaining({ type: "deposit", status: "credited", amount: String(10 * S), txHash: credit.txHash }),
    ]);
    // Watching again credits nothing twice.
    await broker.call("chain.tick");
    expect(ledger.available(ALICE.id)).toBe(10 * S);
    expect(emitted("chain.depositCredited")).toHaveLength(1);
    expect(await broker.call("chain.reconcile")).toMatchObject({ ok: true, ledgerNet: String(10 * S), ledgerConservation: true });
  });

  test("native TON at a deposit address: not credited, an incident for support, chain.incident emitted", async () => {
    await asUser(BOB, "chain.faucet", { amount: "1000000000", asset: "TON" });
    expect(ledger.available(BOB.id)).toBe(0);
    expect(emitted("chain.incident")).toEqual([{ userId: BOB.id, kind: "native_ton", txHash: expect.any(String) }]);
    const incidents = await broker.call<ChainIncidentDoc[], object>("chain.incidents", { userId: BOB.id });
    expect(incidents.map((i) => i.kind)).toEqual(["native_ton"]);
  });

  test("a withdrawal: 202, the USDT arrives at the session's wallet (any destination in the body ignored), chain.withdrawalSent; an identical one is a duplicate", async () => {
    const res = await asUser<{ status: string; txHash: string }>(ALICE, "chain.withdraw", {
      amount: String(3 * S),
      destination: addressOf("thief").toRawString(),
    });
    expect(res.status).toBe(202);
    expect(res.data.status).toBe("accepted");
    expect(ledger.available(ALICE.id)).toBe(7 * S);
    expect(await broker.call("chain.jettonBalance", { owner: ALICE.wallet })).toBe(String(3 * S));
    expect(await broker.call("chain.jettonBalance", { owner: addressOf("thief").toRawString() })).toBe("0");
    expect(emitted("chain.withdrawalSent")).toEqual([
      { userId: ALICE.id, withdrawalId: expect.stringMatching(/^wd_/), amount: String(3 * S), txHash: res.data.txHash },
    ]);
    const dup = await asUser<{ status: string }>(ALICE, "chain.withdraw", { amount: String(3 * S) });
    expect(dup.data.status).toBe("duplicate");
    expect(ledger.available(ALICE.id)).toBe(7 * S);
    expect(await broker.call("chain.reconcile")).toMatchObject({ ok: true, pendingWithdrawals: "0" });
  });

  test("market events: a resolution sweeps the losers; a cancellation pays out at its price and emits chain.refunded; redeem acknowledges it (202)", async () => {
    const open = (m: string): Posting[] => [
      { kind: "external", flow: "deposit", amount: 10 * S },
      { kind: "shares", account: "usr_y", marketId: m, outcome: "YES", quantity: 10 * S, cost: 4 * S },
      { kind: "shares", account: "usr_n", marketId: m, outcome: "NO", quantity: 10 * S, cost: 6 * S },
      { kind: "collateral", marketId: m, amount: 10 * S },
    ];
    ledger.accounts.apply(open("mkt_res"));
    ledger.accounts.apply(open("mkt_can"));
    broker.emit("market.resolved", { marketId: "mkt_res", result: "NO" });
    await until("the resolution's sweep", () => ledger.applied.get("resolve:mkt_res"));
    expect(ledger.accounts.position("usr_y", "mkt_res", "YES")).toMatchObject({ quantity: 0, settled: true });

    markets.set("mkt_can", {
      id: "mkt_can",
      eventId: "e",
      title: "?",
      status: "cancelled",
      result: null,
      conditionId: COND,
      ammLiquidity: "0",
      yesPayout: 300_000,
    });
    broker.emit("market.cancelled", { marketId: "mkt_can", yesPayout: 300_000 });
    const [refunded] = await until("chain.refunded", () => emitted("chain.refunded").length > 0 && emitted("chain.refunded"));
    expect(refunded).toEqual({
      marketId: "mkt_can",
      yesPayout: 300_000,
      refunds: [
        { account: "usr_y", amount: String(3 * S) },
        { account: "usr_n", amount: String(7 * S) },
      ],
      dust: "0",
    });
    const ack = await asUser<{ status: string; payout: string }>({ ...ALICE, id: "usr_y" }, "chain.redeem", {
      marketId: "mkt_can",
      conditionId: COND,
      indexSets: ["0x1"],
    });
    expect(ack).toEqual({ status: 202, data: expect.objectContaining({ status: "accepted", payout: String(3 * S) }) });
    expect(ledger.accounts.conservation().ok).toBe(true);
  });

  test("settlement: the journal's trades committed on chain in one batch; the ledger and the notifier told the outcome", async () => {
    const at = new Date(Date.now() - 60_000).toISOString();
    ledger.trade(
      at,
      { tradeId: "trd_1", userId: ALICE.id, marketId: "mkt_open" },
      { tradeId: "trd_2", userId: BOB.id, marketId: "mkt_open" },
    );
    await broker.call("chain.tick");
    const [batch] = await broker.call<SettlementBatchDoc[], object>("chain.batches", {});
    expect(batch).toMatchObject({
      tradeIds: ["trd_1", "trd_2"],
      count: 2,
      status: "confirmed",
      txHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await broker.call("chain.transaction", { hash: batch.txHash })).toMatchObject({ hash: batch.txHash, success: true });
    expect(ledger.marked).toEqual([{ tradeIds: ["trd_1", "trd_2"], status: "confirmed", txHash: batch.txHash }]);
    await until("the notifier told", () => told.length);
    expect(told).toEqual([
      {
        batchId: batch._id,
        status: "confirmed",
        txHash: batch.txHash,
        trades: [
          { tradeId: "trd_1", userId: ALICE.id, marketId: "mkt_open" },
          { tradeId: "trd_2", userId: BOB.id, marketId: "mkt_open" },
        ],
      },
    ]);
  });
});
