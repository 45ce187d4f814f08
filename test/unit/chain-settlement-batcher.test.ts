/**
 * Settlement batching on in-memory ports: intake from the journal, batches by age and size, the
 * commitment on chain, success, failure with attempts, a batch in flight across a restart, and
 * the notices to the ledger and the notifier that survive either being down.
 */
import { commitmentOf, parseSettlementBody } from "../../chain/settlement";
import { SettlementBatcher, type SettlementPorts, type TradeSettled } from "../../chain/settlement-batcher";
import { LANDING_GRACE_SEC } from "../../chain/ports";
import { MemSettlement, fakeWorld } from "../support/chain-fakes";

const MIN_AGE = 1000;

function setup(config: Partial<SettlementPorts["config"]> = {}) {
  const { clock, chain, side, ledger, rec, newId } = fakeWorld();
  const store = new MemSettlement();
  const notifier = { up: true, down: null as Error | null, told: [] as TradeSettled[] };
  const lags: number[] = [];
  const ports: SettlementPorts = {
    ledger,
    store,
    chain: side,
    clock,
    newId,
    log: rec.log,
    notifier: {
      available: () => notifier.up,
      tradeSettled: async (o) => {
        if (notifier.down) throw notifier.down;
        notifier.told.push(o);
      },
    },
    lag: { enabled: () => true, observe: (s) => void lags.push(s) },
    config: { batchSize: 3, minAgeMs: MIN_AGE, maxAttempts: 2, ...config },
  };
  const batcher = () => new SettlementBatcher(ports);
  const b = batcher();
  /** A trade per id, `ageMs` old now. */
  const trades = (ageMs: number, ...ids: string[]) => {
    for (const id of ids)
      ledger.trade(new Date(clock.now() - ageMs).toISOString(), { tradeId: id, userId: `usr_${id}`, marketId: "mkt_1" });
  };
  const statuses = () => Object.fromEntries([...store.itemDocs.values()].map((i) => [i._id, `${i.status}/${i.attempts}`]));
  return { clock, chain, side, ledger, store, rec, notifier, lags, b, batcher, trades, statuses };
}

describe("intake", () => {
  test("every trade of the journal once, behind a durable cursor; a replay adds nothing", async () => {
    const { b, ledger, store, trades } = setup();
    trades(5000, "t1", "t2");
    ledger.trade(new Date().toISOString(), { tradeId: "t2", userId: "usr_t2", marketId: "mkt_1" }); // the same trade journaled again
    await b.intake();
    expect([...store.itemDocs.keys()]).toEqual(["t1", "t2"]);
    expect(store.itemDocs.get("t1")).toMatchObject({ status: "pending", attempts: 0, batchId: null, userId: "usr_t1", marketId: "mkt_1" });
    expect(await store.meta.get("ledgerCursor")).toBe(3);
    await store.meta.set("ledgerCursor", 0);
    await b.intake();
    expect(store.itemDocs.size).toBe(2);
  });
});

describe("batches", () => {
  test("the oldest trades old enough, at most a batch's size, committed in one transaction whose body binds their ids", async () => {
    const { b, chain, side, store, ledger, notifier, lags, trades, statuses, clock } = setup();
    trades(5000, "t1", "t2", "t3", "t4");
    trades(10, "t5");
    await b.round();
    const [batch] = store.batchDocs.values();
    const c = commitmentOf(["t1", "t2", "t3"]);
    expect(batch).toMatchObject({ tradeIds: c.tradeIds, count: 3, root: c.root, status: "confirmed", error: null });
    const sub = chain.submissions[0];
    expect(sub.wallet).toBe((await side.keys.wallet("operator")).address.toRawString());
    const body = parseSettlementBody(sub.messages[0].body);
    expect(body).toMatchObject({ count: 3, root: c.root, batchId: batch._id });
    expect(sub.messages[0].info.dest?.toString()).toBe((await side.keys.wallet("registry")).address.toString());
    expect(batch.txHash).toBe((await chain.findByExternal((await side.keys.wallet("operator")).address, sub.msgHash))?.hash);
    expect(statuses()).toEqual({ t1: "confirmed/0", t2: "confirmed/0", t3: "confirmed/0", t4: "pending/0", t5: "pending/0" });
    expect(side.topUps).toEqual(["operator"]);

    await b.deliverNotices();
    expect(ledger.marked).toEqual([{ tradeIds: ["t1", "t2", "t3"], status: "confirmed", txHash: batch.txHash }]);
    expect(notifier.told).toEqual([
      {
        batchId: batch._id,
        status: "confirmed",
        txHash: batch.txHash,
        trades: ["t1", "t2", "t3"].map((t) => ({ tradeId: t, userId: `usr_${t}`, marketId: "mkt_1" })),
      },
    ]);
    expect(store.noticeDocs.size).toBe(0);
    expect(lags).toEqual([5, 5, 5]);

    // t4 goes next; t5 waits until it is old enough.
    await b.round();
    expect([...store.batchDocs.values()].map((x) => x.tradeIds)).toEqual([["t1", "t2", "t3"], ["t4"]]);
    await b.round();
    expect(store.batchDocs.size).toBe(2);
    clock.advance(MIN_AGE);
    await b.round();
    expect([...store.batchDocs.values()].map((x) => x.tradeIds)).toEqual([["t1", "t2", "t3"], ["t4"], ["t5"]]);
  });

  test("a refused commitment: the batch `failed`, its trades back at the head of the queue; after the last attempt they fail for good", async () => {
    const { b, chain, store, ledger, notifier, rec, trades, statuses } = setup();
    trades(5000, "t1", "t2");
    chain.script.push("reject", "wallet-fails");
    await b.round();
    const [first] = store.batchDocs.values();
    expect(first).toMatchObject({ status: "failed", error: "the wallet did not accept the message", txHash: null });
    expect(statuses()).toEqual({ t1: "pending/1", t2: "pending/1" });
    expect(store.noticeDocs.size).toBe(0);
    expect(rec.logs).toContain(`settlement batch ${first._id} failed: the wallet did not accept the message`);

    await b.round();
    const second = [...store.batchDocs.values()][1];
    expect(second).toMatchObject({
      tradeIds: ["t1", "t2"],
      status: "failed",
      error: "the commitment transaction failed (exit 0, action 37)",
    });
    expect(statuses()).toEqual({ t1: "failed/2", t2: "failed/2" });
    await b.deliverNotices();
    expect(ledger.marked).toEqual([{ tradeIds: ["t1", "t2"], status: "failed", txHash: null }]);
    expect(notifier.told.map((t) => [t.batchId, t.status, t.txHash])).toEqual([[second._id, "failed", null]]);

    await b.round();
    expect(store.batchDocs.size).toBe(2);
  });

  test("a submission that throws (not a refusal) fails the batch with the error", async () => {
    const { b, chain, store, trades } = setup();
    trades(5000, "t1");
    chain.script.push("throw");
    await b.round();
    expect([...store.batchDocs.values()][0]).toMatchObject({ status: "failed", error: "submission failed: connection reset" });
  });

  test("a batch in flight (outcome not known at once) is resolved by a later round, also by a new instance after a restart", async () => {
    const { b, batcher, chain, store, trades, statuses, clock } = setup();
    trades(5000, "t1", "t2");
    chain.script.push("pending");
    await b.round();
    const [batch] = store.batchDocs.values();
    expect(batch).toMatchObject({
      status: "sending",
      msgHash: chain.submissions[0].msgHash,
      validUntil: Math.floor(clock.now() / 1000) + 60,
    });
    await b.round();
    expect(store.batchDocs.get(batch._id)?.status).toBe("sending");
    expect(chain.submissions).toHaveLength(1);

    const [walletTx] = chain.land(batch.msgHash as string);
    const restarted = batcher();
    trades(5000, "t3");
    await restarted.round();
    expect(store.batchDocs.get(batch._id)).toMatchObject({ status: "confirmed", txHash: walletTx.hash });
    expect(statuses()).toMatchObject({ t1: "confirmed/0", t2: "confirmed/0", t3: "pending/0" });
    // The restarted instance loads its queue from the store: t3 goes next.
    await restarted.round();
    expect([...store.batchDocs.values()].map((x) => x.tradeIds)).toEqual([["t1", "t2"], ["t3"]]);
  });

  test("a batch in flight that never lands fails once its message expired (plus the grace for indexing lag)", async () => {
    const { b, chain, store, trades, statuses, clock } = setup();
    trades(5000, "t1");
    chain.script.push("pending");
    await b.round();
    const [batch] = store.batchDocs.values();
    clock.t = ((batch.validUntil as number) + LANDING_GRACE_SEC) * 1000;
    await b.round();
    expect(store.batchDocs.get(batch._id)?.status).toBe("sending");
    clock.advance(1000);
    await b.round();
    expect(store.batchDocs.get(batch._id)).toMatchObject({ status: "failed", error: "the commitment message expired without landing" });
    expect(statuses()).toEqual({ t1: "pending/1" });
  });
});

describe("notices", () => {
  test("kept until the ledger and then the notifier took them: neither being down loses one", async () => {
    const { b, ledger, notifier, store, rec, trades } = setup();
    trades(5000, "t1");
    ledger.markDown = new Error("ledger restarting");
    notifier.up = false;
    await b.round();
    await b.deliverNotices();
    const [notice] = store.noticeDocs.values();
    expect(notice).toMatchObject({
      status: "confirmed",
      ledgerDone: false,
      trades: [{ tradeId: "t1", userId: "usr_t1", marketId: "mkt_1" }],
    });
    expect(rec.logs.some((l) => /the ledger did not take it yet \(ledger restarting\); retrying/.test(l))).toBe(true);

    ledger.markDown = null;
    await b.deliverNotices();
    expect(ledger.marked).toHaveLength(1);
    expect(store.noticeDocs.get(notice._id)?.ledgerDone).toBe(true);
    expect(notifier.told).toEqual([]);

    notifier.up = true;
    notifier.down = new Error("notifier busy");
    await b.deliverNotices();
    expect(store.noticeDocs.size).toBe(1);
    expect(rec.logs.some((l) => /the notifier did not take it yet \(notifier busy\)/.test(l))).toBe(true);

    notifier.down = null;
    await b.deliverNotices();
    expect(notifier.told).toHaveLength(1);
    expect(store.noticeDocs.size).toBe(0);
    // Told once to the ledger: the notice remembered it took it.
    expect(ledger.marked).toHaveLength(1);
  });

  test("one delivery at a time; none after stop", async () => {
    const { b, notifier, store, trades } = setup();
    trades(5000, "t1");
    notifier.up = false;
    await b.round();
    await b.deliverNotices();
    notifier.up = true;
    const first = b.deliverNotices();
    expect(b.deliverNotices()).toBe(first);
    await first;
    expect(notifier.told).toHaveLength(1);

    trades(5000, "t2");
    notifier.up = false;
    await b.round();
    await b.deliverNotices();
    notifier.up = true;
    await b.stop();
    await b.deliverNotices();
    expect(notifier.told).toHaveLength(1);
    expect(store.noticeDocs.size).toBe(1);
  });
});
