import { buildPriceHistory, DAY, INTERVAL_SPEC, printsSince, windowStart, type Print } from "../../catalog/candles";

const MIN = 60_000;
const HOUR = 60 * MIN;
// A fixed "now" in the middle of a minute, hour and day.
const NOW = Date.parse("2030-05-15T12:30:30.000Z");
const p = (atMs: number, yesPrice: number, quantity = 1_000_000, notional = yesPrice * 10_000): Print => ({
  atMs,
  yesPrice,
  quantity,
  notional,
});

describe("windows", () => {
  test("each interval's span and bucket", () => {
    expect(INTERVAL_SPEC["1H"]).toEqual({ spanMs: HOUR, bucketMs: MIN });
    expect(INTERVAL_SPEC["1D"]).toEqual({ spanMs: DAY, bucketMs: 15 * MIN });
    expect(INTERVAL_SPEC["1W"]).toEqual({ spanMs: 7 * DAY, bucketMs: HOUR });
    expect(INTERVAL_SPEC["1M"]).toEqual({ spanMs: 30 * DAY, bucketMs: 4 * HOUR });
    expect(INTERVAL_SPEC.MAX).toEqual({ spanMs: null, bucketMs: DAY });
  });
  test("window starts at the bucket holding now - span; prints are read back far enough for 24 h volume", () => {
    expect(new Date(windowStart("1H", NOW)!).toISOString()).toBe("2030-05-15T11:30:00.000Z");
    expect(new Date(windowStart("1D", NOW)!).toISOString()).toBe("2030-05-14T12:30:00.000Z");
    expect(windowStart("MAX", NOW)).toBeNull();
    expect(printsSince("1H", NOW)).toBe(NOW - DAY);
    expect(printsSince("1W", NOW)).toBe(windowStart("1W", NOW));
    expect(printsSince("MAX", NOW)).toBe(0);
  });
});

describe("buildPriceHistory", () => {
  test("no trades at all: no candles, price 0.5, no change", () => {
    expect(buildPriceHistory({ interval: "1D", outcome: "YES", nowMs: NOW, prints: [], prior: null })).toEqual({
      candles: [],
      currentPrice: 0.5,
      priceChange: 0,
      priceChangePercent: 0,
      volume24h: 0,
    });
  });

  test("1H: OHLC per minute, empty minutes carry the close, nothing before the first price", () => {
    const t0 = Date.parse("2030-05-15T12:00:00.000Z");
    const prints = [
      p(t0 + 5_000, 40, 2_000_000),
      p(t0 + 20_000, 55),
      p(t0 + 40_000, 35),
      p(t0 + 50_000, 45, 500_000),
      p(t0 + 3 * MIN + 1, 60),
    ];
    const h = buildPriceHistory({ interval: "1H", outcome: "YES", nowMs: NOW, prints, prior: null });
    expect(h.candles[0]).toEqual({ timestamp: "2030-05-15T12:00:00.000Z", open: 0.4, high: 0.55, low: 0.35, close: 0.45, volume: 4.5 });
    expect(h.candles[1]).toEqual({ timestamp: "2030-05-15T12:01:00.000Z", open: 0.45, high: 0.45, low: 0.45, close: 0.45, volume: 0 });
    expect(h.candles[2].close).toBe(0.45);
    expect(h.candles[3]).toEqual({ timestamp: "2030-05-15T12:03:00.000Z", open: 0.6, high: 0.6, low: 0.6, close: 0.6, volume: 1 });
    // 12:00 .. 12:30 inclusive; the minutes 11:30..11:59 had no price yet.
    expect(h.candles).toHaveLength(31);
    expect(h.candles[30]).toMatchObject({ timestamp: "2030-05-15T12:30:00.000Z", close: 0.6, volume: 0 });
    expect(h.currentPrice).toBe(0.6);
    expect(h.priceChange).toBe(0.2);
    expect(h.priceChangePercent).toBe(50);
  });

  test("NO mirrors every price, so high and low swap", () => {
    const t0 = Date.parse("2030-05-15T12:10:00.000Z");
    const prints = [p(t0, 40), p(t0 + 1_000, 55), p(t0 + 2_000, 35), p(t0 + 3_000, 45)];
    const yes = buildPriceHistory({ interval: "1H", outcome: "YES", nowMs: NOW, prints, prior: null });
    const no = buildPriceHistory({ interval: "1H", outcome: "NO", nowMs: NOW, prints, prior: null });
    expect(yes.candles[0]).toMatchObject({ open: 0.4, high: 0.55, low: 0.35, close: 0.45 });
    expect(no.candles[0]).toMatchObject({ open: 0.6, high: 0.65, low: 0.45, close: 0.55 });
    expect(no.currentPrice).toBe(0.55);
    expect(no.priceChange).toBe(-0.05);
    expect(no.priceChangePercent).toBe(-8.33);
  });

  test("a print before the window opens the first candle and fills the whole window", () => {
    const prior = p(NOW - 3 * DAY, 70);
    const h = buildPriceHistory({ interval: "1D", outcome: "YES", nowMs: NOW, prints: [], prior });
    expect(h.candles).toHaveLength(97);
    expect(h.candles.every((c) => c.open === 0.7 && c.close === 0.7 && c.volume === 0)).toBe(true);
    expect(h.candles[0].timestamp).toBe("2030-05-14T12:30:00.000Z");
    expect(h.currentPrice).toBe(0.7);
    expect(h.priceChange).toBe(0);
    expect(h.volume24h).toBe(0);
  });

  test("a print inside the read-back but before the window also seeds the carry (1H)", () => {
    const h = buildPriceHistory({
      interval: "1H",
      outcome: "YES",
      nowMs: NOW,
      prints: [p(NOW - 5 * HOUR, 20, 1_000_000, 200_000)],
      prior: null,
    });
    expect(h.candles).toHaveLength(61);
    expect(h.candles[0].open).toBe(0.2);
    expect(h.volume24h).toBe(0.2);
  });

  test("volume24h counts USDT notional of the last 24 h only", () => {
    const prints = [
      p(NOW - DAY - 1, 50, 1_000_000, 7_000_000),
      p(NOW - DAY + 1, 50, 1_000_000, 1_250_000),
      p(NOW - 1, 50, 1_000_000, 250_001),
    ];
    expect(buildPriceHistory({ interval: "1W", outcome: "YES", nowMs: NOW, prints, prior: null }).volume24h).toBe(1.500001);
  });

  test("MAX: daily candles from the first print's day; unsorted input is fine", () => {
    const first = Date.parse("2030-05-10T08:00:00.000Z");
    const prints = [p(first + 2 * DAY, 30), p(first, 10), p(first + 1_000, 20)];
    const h = buildPriceHistory({ interval: "MAX", outcome: "YES", nowMs: NOW, prints, prior: null });
    expect(h.candles.map((c) => c.timestamp)).toEqual(
      ["2030-05-10", "2030-05-11", "2030-05-12", "2030-05-13", "2030-05-14", "2030-05-15"].map((d) => `${d}T00:00:00.000Z`),
    );
    expect(h.candles[0]).toMatchObject({ open: 0.1, high: 0.2, low: 0.1, close: 0.2, volume: 2 });
    expect(h.candles[2]).toMatchObject({ open: 0.3, close: 0.3 });
    expect(h.priceChange).toBe(0.2);
    expect(h.priceChangePercent).toBe(200);
  });

  test("a print stamped in the future counts as now: current bucket, no grid into the future", () => {
    const prints = [p(NOW - 10 * MIN, 20), p(NOW + 40_000, 80), p(Date.parse("2100-01-01T00:00:00Z"), 90)];
    const h = buildPriceHistory({ interval: "1H", outcome: "YES", nowMs: NOW, prints, prior: null });
    expect(h.candles).toHaveLength(11);
    expect(h.candles[10]).toMatchObject({ timestamp: "2030-05-15T12:30:00.000Z", open: 0.8, high: 0.9, close: 0.9 });
    expect(h.currentPrice).toBe(0.9);
  });

  test("candle prices are exact 2-decimal numbers", () => {
    const prints = Array.from({ length: 99 }, (_, i) => p(NOW - 1000 + i, i + 1));
    const h = buildPriceHistory({ interval: "1H", outcome: "NO", nowMs: NOW, prints, prior: null });
    const c = h.candles[h.candles.length - 1];
    expect([c.open, c.high, c.low, c.close]).toEqual([0.99, 0.99, 0.01, 0.01]);
  });
});
