/**
 * What the chain service's shell asks of chain/cores.ts beyond the single cores: the faucet's
 * amount rule, the recurring work and its periods, and the operator reads.
 */
import { ChainCores } from "../../chain/cores";
import { faucetAmount } from "../../chain/faucet";
import { loadConfig, type ChainConfig } from "../../lib/config";
import type { Store, Stores } from "../../lib/store";
import type { ChainCollections } from "../../chain/stores";
import { fakeWorld } from "../support/chain-fakes";

const LIMITS = { maxNano: 5_000_000_000n, maxUsdt: 10_000_000_000n };

describe("faucetAmount", () => {
  test("a positive amount up to the asset's limit is what is sent", () => {
    expect(faucetAmount("TON", "5000000000", LIMITS)).toBe(5_000_000_000n);
    expect(faucetAmount("USDT", "1", LIMITS)).toBe(1n);
    expect(faucetAmount("FOREIGN_USDT", "10000000000", LIMITS)).toBe(10_000_000_000n);
  });

  test("zero, or above the asset's limit, is a VALIDATION_ERROR naming the field and the limit in its unit", () => {
    expect(() => faucetAmount("USDT", "0", LIMITS)).toThrow(expect.objectContaining({ kind: "rejected", code: "VALIDATION_ERROR" }));
    expect(() => faucetAmount("USDT", "0", LIMITS)).toThrow(/positive/);
    expect(() => faucetAmount("TON", "5000000001", LIMITS)).toThrow(/at most 5 TON/);
    expect(() => faucetAmount("USDT", "10000000001", LIMITS)).toThrow(/at most 10000\.00 USDT/);
    expect(() => faucetAmount("FOREIGN_USDT", "10000000001", LIMITS)).toThrow(
      expect.objectContaining({ data: { fields: [{ field: "amount", rule: "max" }] } }),
    );
  });
});

/** Collections that answer `find` with `docs` and remember the query and options. */
function memStores(docs: object[]) {
  const seen: unknown[] = [];
  const store = { find: async (q: unknown, o: unknown) => (seen.push([q, o]), docs) } as unknown as Store<never>;
  const stores = new Proxy({}, { get: () => store }) as Stores<ChainCollections>;
  return { stores, seen };
}

function cores(config: Partial<ChainConfig>, docs: object[] = []) {
  const w = fakeWorld();
  const { stores, seen } = memStores(docs);
  const c = new ChainCores({
    chain: w.side,
    stores,
    ledger: w.ledger,
    emit: w.rec.emit,
    log: w.rec.log,
    config: { ...loadConfig({}).ton, ...config },
    notifier: { available: () => true, tradeSettled: async () => undefined },
    metrics: { depositCredited: () => undefined, settlementLag: { enabled: () => false, observe: () => undefined } },
  });
  return { c, seen };
}

describe("ChainCores.recurring", () => {
  test("deposit scans, settlement rounds on the chain's actor; settlement notices beside it; refunds at least every 10 s", () => {
    const { c } = cores({ depositPollMs: 5_000, settlementIntervalMs: 3_000 });
    expect(c.recurring().map(({ name, ms, onActor }) => ({ name, ms, onActor }))).toEqual([
      { name: "scan", ms: 5_000, onActor: true },
      { name: "settle", ms: 3_000, onActor: true },
      { name: "notices", ms: 3_000, onActor: false },
      { name: "refunds", ms: 10_000, onActor: true },
    ]);
    const slow = cores({ settlementIntervalMs: 60_000 }).c.recurring();
    expect(slow.find((r) => r.name === "refunds")!.ms).toBe(60_000);
  });

  test("settlement off (0): no rounds and no notices, but a cancelled market's refunds still run", () => {
    const { c } = cores({ depositPollMs: 0, settlementIntervalMs: 0 });
    const on = c.recurring().filter((r) => r.ms > 0);
    expect(on.map((r) => r.name)).toEqual(["refunds"]);
  });

  test("each task runs its core", async () => {
    const { c } = cores({});
    const ran: string[] = [];
    c.watch = async () => void ran.push("watch");
    c.settlement.round = async () => void ran.push("round");
    c.settlement.deliverNotices = async () => void ran.push("notices");
    c.eachPendingRefund = async () => void ran.push("refunds");
    for (const r of c.recurring()) await r.task();
    expect(ran).toEqual(["watch", "round", "notices", "refunds"]);
  });
});

describe("ChainCores operator reads", () => {
  test("incidents and batches: all, or one user's / one transaction's, oldest first", async () => {
    const { c, seen } = cores({}, [{ _id: "x" }]);
    expect(await c.incidents()).toEqual([{ _id: "x" }]);
    await c.incidents("u1");
    await c.batches();
    await c.batches("ab".repeat(32));
    expect(seen).toEqual([
      [{}, { sort: { at: 1, _id: 1 } }],
      [{ userId: "u1" }, { sort: { at: 1, _id: 1 } }],
      [{}, { sort: { at: 1 } }],
      [{ txHash: "ab".repeat(32) }, { sort: { at: 1 } }],
    ]);
  });

  test("an unknown transaction is null", async () => {
    const { c } = cores({});
    expect(await c.transaction("00".repeat(32))).toBeNull();
  });
});
