import { transfersOf, type TransferSource } from "../../chain/transfers";
import type { DepositDoc, WithdrawalDoc } from "../../models/chain";

/** GET /transfers' list from its sources: deposits, withdrawals, and the rewards and rebates the ledger paid. */
describe("a user's transfers", () => {
  const source: TransferSource = {
    deposits: async () => [
      { _id: "tx_dep", userId: "usr_a", address: "0:dep", amount: 5_000_000, at: "2026-03-01T10:00:00.000Z" } as DepositDoc,
    ],
    incidents: async () => [],
    withdrawals: async () => [
      {
        _id: "wd_1",
        userId: "usr_a",
        amount: 1_000_000,
        destination: "0:me",
        status: "sent",
        txHash: "tx_wd",
        createdAt: "2026-03-03T10:00:00.000Z",
      } as WithdrawalDoc,
    ],
    payouts: async () => [
      { kind: "reward", marketId: "mkt_1", day: "2026-03-01", amount: 10_000_000, at: "2026-03-02T00:00:01.000Z" },
      { kind: "rebate", marketId: "mkt_1", day: "2026-03-01", amount: 500_000, at: "2026-03-02T00:00:01.000Z" },
    ],
  };

  test("rewards and rebates are confirmed transfers of their own types, naming market and day, newest first with the rest", async () => {
    const all = await transfersOf(source, "usr_a");
    expect(all.map((t) => [t.type, t.createdAt])).toEqual([
      ["withdrawal", "2026-03-03T10:00:00.000Z"],
      // One time: ordered by id, stable across pages.
      ["reward", "2026-03-02T00:00:01.000Z"],
      ["rebate", "2026-03-02T00:00:01.000Z"],
      ["deposit", "2026-03-01T10:00:00.000Z"],
    ]);
    expect(all[1]).toEqual({
      id: "reward:2026-03-01:mkt_1",
      type: "reward",
      amount: "10000000",
      asset: "USDT",
      status: "confirmed",
      txHash: null,
      address: null,
      marketId: "mkt_1",
      day: "2026-03-01",
      createdAt: "2026-03-02T00:00:01.000Z",
    });
  });

  test("a type filter keeps that type only", async () => {
    expect((await transfersOf(source, "usr_a", "rebate")).map((t) => t.id)).toEqual(["rebate:2026-03-01:mkt_1"]);
    expect((await transfersOf(source, "usr_a", "reward")).map((t) => t.id)).toEqual(["reward:2026-03-01:mkt_1"]);
    expect((await transfersOf(source, "usr_a", "deposit")).map((t) => t.type)).toEqual(["deposit"]);
    expect((await transfersOf(source, "usr_a", "withdrawal")).map((t) => t.type)).toEqual(["withdrawal"]);
  });
});
