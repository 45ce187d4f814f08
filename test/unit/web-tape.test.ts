/**
 * The market page's recent trades (web/src/tape.ts): one row per execution of the public tape,
 * the socket's rows prepended to the listed page (each execution once), the user's own trades
 * matched to the rows they made.
 */
import type { PublicTrade } from "../../client/src/models";
import { markMine, OWN_MATCH_MS, prepend, rowOf, TAPE_ROWS } from "../../web/src/tape";

const T = Date.UTC(2026, 10, 28, 12, 0);
const trade = (id: string, over: Partial<PublicTrade> = {}): PublicTrade => ({
  marketId: "mkt",
  tradeId: id,
  outcome: "YES",
  side: "BUY",
  price: "0.52",
  quantity: "10000000",
  yesPrice: "0.52",
  at: new Date(T).toISOString(),
  ...over,
});

describe("recent trades", () => {
  test("a row is one execution: its time, the taker's side and outcome, the outcome's price, the shares", () => {
    expect(rowOf(trade("fil_1", { outcome: "NO", side: "SELL", price: "0.48", yesPrice: "0.52" }), true)).toEqual({
      key: "fil_1",
      at: T,
      side: "SELL",
      outcome: "NO",
      price: "0.48",
      shares: 10_000_000,
      live: true,
    });
  });

  test("socket rows go on top, each execution once (one already listed is not repeated), at most a page", () => {
    const listed = [trade("fil_2"), trade("fil_1")].map((t) => rowOf(t, false));
    const rows = prepend(listed, [rowOf(trade("fil_3"), true), rowOf(trade("fil_2"), true)]);
    expect(rows.map((r) => r.key)).toEqual(["fil_3", "fil_2", "fil_1"]);
    const many = Array.from({ length: 20 }, (_, i) => rowOf(trade(`fil_${i}`), true));
    expect(prepend(rows, many)).toHaveLength(TAPE_ROWS);
  });

  test("the user's own trade marks the live rows it made (a taker's spans one row per maker); what is not matched waits, then is dropped", () => {
    const rows = [
      rowOf(trade("fil_3", { quantity: "4000000" }), true),
      rowOf(trade("fil_2", { quantity: "6000000" }), true),
      rowOf(trade("fil_1", { quantity: "6000000" }), false),
    ];
    const own = [
      { side: "BUY" as const, outcome: "YES" as const, shares: 10_000_000, heard: T },
      { side: "SELL" as const, outcome: "NO" as const, shares: 2_000_000, heard: T },
    ];
    const r = markMine(rows, own, T + 100);
    expect(r.rows.map((x) => x.mine ?? null)).toEqual([{ side: "BUY", outcome: "YES" }, { side: "BUY", outcome: "YES" }, null]);
    expect(r.own).toEqual([own[1]]);
    // Its row comes: marked; a listed row never is.
    const later = markMine(prepend(r.rows, [rowOf(trade("fil_4", { quantity: "2000000" }), true)]), r.own, T + 200);
    expect(later.rows[0].mine).toEqual({ side: "SELL", outcome: "NO" });
    expect(later.own).toEqual([]);
    expect(markMine([], r.own, T + OWN_MATCH_MS).own).toEqual([]);
  });
});
