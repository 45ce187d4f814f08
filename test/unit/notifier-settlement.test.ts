/** Settlement outcomes as notifications (notifier/derive.ts settlementDrafts). Pure. */
import { settlementDrafts } from "../../notifier/derive";
import { render } from "../../notifier/texts";

const AT = "2026-01-01T00:00:00.000Z";

test("one draft per user and market of the batch, trades sorted and deduplicated, system accounts skipped", () => {
  const drafts = settlementDrafts(
    "stl_1",
    "confirmed",
    "ff".repeat(32),
    [
      { tradeId: "trd_b", userId: "usr_1", marketId: "mkt_a" },
      { tradeId: "trd_a", userId: "usr_1", marketId: "mkt_a" },
      { tradeId: "trd_a", userId: "usr_1", marketId: "mkt_a" },
      { tradeId: "trd_c", userId: "usr_1", marketId: "mkt_b" },
      { tradeId: "trd_d", userId: "usr_2", marketId: "mkt_a" },
      { tradeId: "trd_e", userId: "amm:mkt_a", marketId: "mkt_a" },
      { tradeId: "trd_f", userId: "fees", marketId: "mkt_a" },
    ],
    AT,
  );
  expect(drafts.map((d) => [d.id, d.userId, d.metadata])).toEqual([
    ["SETTLEMENT_CONFIRMED:stl_1:usr_1:mkt_a", "usr_1", { marketId: "mkt_a", tradeIds: ["trd_a", "trd_b"], txHash: "ff".repeat(32) }],
    ["SETTLEMENT_CONFIRMED:stl_1:usr_1:mkt_b", "usr_1", { marketId: "mkt_b", tradeIds: ["trd_c"], txHash: "ff".repeat(32) }],
    ["SETTLEMENT_CONFIRMED:stl_1:usr_2:mkt_a", "usr_2", { marketId: "mkt_a", tradeIds: ["trd_d"], txHash: "ff".repeat(32) }],
  ]);
  // The same outcome in another order gives the same ids: telling it again creates nothing.
  expect(settlementDrafts("stl_1", "confirmed", null, [{ tradeId: "trd_a", userId: "usr_1", marketId: "mkt_a" }], AT)[0].id).toBe(
    drafts[0].id,
  );
});

test("texts say how many trades the transaction covered", () => {
  const [two] = settlementDrafts(
    "stl_1",
    "confirmed",
    "ab".repeat(32),
    [
      { tradeId: "trd_1", userId: "usr_1", marketId: "m" },
      { tradeId: "trd_2", userId: "usr_1", marketId: "m" },
    ],
    AT,
  );
  expect(render(two, "Rain?")).toEqual({
    title: "Trades settled",
    body: "Your 2 trades in “Rain?” are confirmed on-chain (tx abababab…ababab).",
  });
  const [failed] = settlementDrafts("stl_2", "failed", null, [{ tradeId: "trd_1", userId: "usr_1", marketId: "m" }], AT);
  expect(failed.type).toBe("SETTLEMENT_FAILED");
  expect(render(failed, null)).toEqual({
    title: "Trade settlement failed",
    body: "On-chain settlement of your trade in market m failed; it will be reviewed.",
  });
});
