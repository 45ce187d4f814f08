/**
 * The market page's recent trades (web/src/tape.ts): the first page from the hour's minutes, and
 * each later read adding exactly what traded since the read before, coloured by the tick rule.
 */
import type { Candle } from "../../client/src/models";
import { firstPage, newPrints, prepend } from "../../web/src/tape";

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
});
