/**
 * The market page's recent trades (web/src/tape.ts): the first page from the hour's minutes, and
 * each later read adding exactly what traded since the read before, coloured by the tick rule.
 */
import type { Candle } from "../../client/src/models";
import { firstPage, markMine, newPrints, prepend } from "../../web/src/tape";

const candle = (minute: number, close: number, volume: number): Candle => ({
  timestamp: new Date(Date.UTC(2026, 10, 28, 12, minute)).toISOString(),
  open: close,
  high: close,
  low: close,
  close,
  volume,
});

describe("recent trades", () => {
  test("the first page: minutes with prints, newest first, each move against the minute before", () => {
    const rows = firstPage([candle(1, 0.4, 10), candle(2, 0.4, 0), candle(3, 0.45, 2.5), candle(4, 0.41, 1), candle(5, 0.41, 3)]);
    expect(rows.map((r) => [r.tick, r.shares, r.move, r.minute])).toEqual([
      [41, 3_000_000, "same", true],
      [41, 1_000_000, "down", true],
      [45, 2_500_000, "up", true],
      [40, 10_000_000, "same", true],
    ]);
    expect(rows[0].at).toBe(Date.UTC(2026, 10, 28, 12, 5));
    expect(firstPage([candle(1, 0.5, 0)])).toEqual([]);
  });

  test("a later read adds what traded since, as one row per minute that grew", () => {
    const before = [candle(1, 0.4, 10), candle(2, 0.42, 1)];
    // One trade of 4 shares at 44¢ in the minute already shown.
    const one = newPrints(before, [candle(1, 0.4, 10), candle(2, 0.44, 5)], 1000, 42);
    expect(one).toEqual([{ key: expect.any(String), at: 1000, minute: false, tick: 44, shares: 4_000_000, move: "up" }]);
    // Nothing new: nothing added; a minute that left the hour is not a trade.
    expect(newPrints(before, before, 1000, 42)).toEqual([]);
    expect(newPrints(before, [candle(2, 0.42, 1)], 1000, 42)).toEqual([]);
    // Trades in a new minute and the one before: newest first, moves in the order they came.
    const two = newPrints(before, [candle(1, 0.4, 10), candle(2, 0.41, 2), candle(3, 0.39, 0.5)], 2000, 42);
    expect(two.map((r) => [r.tick, r.shares, r.move])).toEqual([
      [39, 500_000, "down"],
      [41, 1_000_000, "down"],
    ]);
    expect(new Set([...one, ...two].map((r) => r.key)).size).toBe(3);
  });

  test("added rows go on top and the list keeps its newest rows", () => {
    const rows = firstPage([candle(1, 0.4, 1), candle(2, 0.41, 1)]);
    const added = newPrints([candle(2, 0.41, 1)], [candle(2, 0.41, 1), candle(3, 0.5, 7)], 5000, rows[0].tick);
    expect(prepend(rows, added).map((r) => r.tick)).toEqual([50, 41, 40]);
    expect(prepend(rows, added, 2).map((r) => r.tick)).toEqual([50, 41]);
  });

  test("the user's own trades mark the rows holding them; one whose print is still to come waits", () => {
    const rows = newPrints([], [candle(1, 0.4, 3), candle(2, 0.45, 10)], 1000, undefined);
    const buyNo = { side: "BUY" as const, outcome: "NO" as const, shares: 4_000_000 };
    const sellYes = { side: "SELL" as const, outcome: "YES" as const, shares: 2_000_000 };
    const later = { side: "BUY" as const, outcome: "YES" as const, shares: 50_000_000 };
    const { rows: marked, left } = markMine(rows, [buyNo, sellYes, later]);
    expect(marked.map((r) => [r.tick, r.mine])).toEqual([
      [45, buyNo],
      [40, sellYes],
    ]);
    expect(left).toEqual([later]);
    // The rows given are not changed.
    expect(rows.every((r) => r.mine === undefined)).toBe(true);
  });
});
