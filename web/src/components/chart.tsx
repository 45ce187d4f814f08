/**
 * The price chart (lightweight-charts, loaded with the market page's chart only): the close of
 * each candle of GET /markets/:id/price-history for the chosen interval. `refresh` changes when
 * the socket says the market moved; the history is then fetched again, so the chart shows exactly
 * what the exchange recorded.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { AreaSeries, createChart, type IChartApi, type ISeriesApi, type UTCTimestamp } from "lightweight-charts";
import { INTERVALS, type Interval, type MarketItem, type Outcome, type PriceHistory } from "@pmx/client/models";
import { cents } from "../format";
import { client } from "../api";
import { describeError } from "../errors";
import { ErrorText, Toggle, type ActionState } from "../ui";

const css = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/** What a share of `outcome` pays at the end of a resolved market, or null while it trades. */
function payoutOf(market: Pick<MarketItem, "status" | "result"> | undefined, outcome: Outcome): number | null {
  if (market?.status !== "resolved" || !market.result) return null;
  if (market.result === "SPLIT") return 0.5;
  return market.result === outcome ? 1 : 0;
}

/** Axis labels per interval: times of day for an hour or a day, days beyond. */
const TIME_AXIS: Record<Interval, { timeVisible: boolean }> = {
  "1H": { timeVisible: true },
  "1D": { timeVisible: true },
  "1W": { timeVisible: false },
  "1M": { timeVisible: false },
  MAX: { timeVisible: false },
};

export default function PriceChart({
  marketId,
  outcome,
  refresh,
  market,
}: {
  marketId: string;
  outcome: Outcome;
  refresh: number;
  market?: Pick<MarketItem, "status" | "result">;
}) {
  const [interval, setInterval] = useState<Interval>("1D");
  const [history, setHistory] = useState<PriceHistory | null>(null);
  const [error, setError] = useState<ActionState["error"]>(null);
  const [line, setLine] = useState<number[]>([]);
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<{ api: IChartApi; series: ISeriesApi<"Area"> } | null>(null);
  const updates = useRef(0);

  useEffect(() => {
    const el = box.current as HTMLDivElement;
    const line = css("--yes", "#047857");
    const api = createChart(el, {
      autoSize: true,
      layout: { background: { color: "transparent" }, textColor: css("--text", "#111827"), fontFamily: "system-ui, sans-serif" },
      grid: { vertLines: { visible: false }, horzLines: { color: css("--border", "#d1d5db") } },
      rightPriceScale: { borderVisible: false },
      timeScale: { borderVisible: false, timeVisible: true, secondsVisible: false },
      handleScroll: false,
      handleScale: false,
    });
    const series = api.addSeries(AreaSeries, {
      lineColor: line,
      topColor: `${line}55`,
      bottomColor: `${line}05`,
      lineWidth: 2,
      // Cents, as the rest of the page reads prices.
      priceFormat: { type: "custom", minMove: 0.01, formatter: (p: number) => cents(p) },
    });
    chart.current = { api, series };
    return () => {
      api.remove();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    let live = true;
    client.markets.priceHistory(marketId, { interval, outcome }).then(
      (h) => {
        if (!live || !chart.current) return;
        const points = h.candles.map((c) => ({ time: (Date.parse(c.timestamp) / 1000) as UTCTimestamp, value: c.close }));
        // A resolved market ends at what it pays.
        const pays = payoutOf(market, outcome);
        if (pays !== null) {
          const now = Math.floor(Date.now() / 1000) as UTCTimestamp;
          if (points.length && points[points.length - 1].time >= now) points.pop();
          points.push({ time: now, value: pays });
        }
        const first = points[0]?.value;
        const lastValue = points.at(-1)?.value;
        const colour =
          first !== undefined && lastValue !== undefined && lastValue < first ? css("--down", "#b91c1c") : css("--up", "#047857");
        chart.current.series.applyOptions({ lineColor: colour, topColor: `${colour}55`, bottomColor: `${colour}05` });
        chart.current.api.applyOptions({ timeScale: TIME_AXIS[interval] });
        chart.current.series.setData(points);
        chart.current.api.timeScale().fitContent();
        updates.current++;
        setHistory({ ...h, candles: h.candles });
        setLine(points.map((p) => p.value));
        setError(null);
      },
      (err: unknown) => {
        if (!live) return;
        const d = describeError(err);
        setError({ text: d.text, detail: d.detail, retryAt: d.retryAfter ? Date.now() + d.retryAfter * 1000 : undefined });
      },
    );
    return () => {
      live = false;
    };
  }, [marketId, outcome, interval, refresh, market?.status, market?.result]);

  const last = history?.candles.at(-1)?.close;
  // The change is the line's own: from its first point to its last, so sign and colour match what is drawn.
  const from = line[0];
  const to = line.at(-1);
  const diff = from !== undefined && to !== undefined ? Math.round((to - from) * 100) : 0;
  const pct = from ? Math.round(((to ?? from) / from - 1) * 1000) / 10 : 0;
  const change = `${diff > 0 ? "+" : diff < 0 ? "−" : "±"}${Math.abs(diff)}¢ (${pct > 0 ? "+" : ""}${pct.toFixed(1)}%)`;
  const pays = payoutOf(market, outcome);
  const nowText = pays !== null ? `resolved, pays ${cents(pays)}` : history ? `last trade ${cents(history.currentPrice)}` : "";
  const summary = history
    ? history.candles.length
      ? `${outcome} price over ${interval}: ${nowText}, change ${change}`
      : `No trades in this period; ${outcome} ${nowText}`
    : "Loading the price history";
  return (
    <div class="chart">
      <div class="chart-head">
        <Toggle label="Chart interval" options={INTERVALS} value={interval} onChange={setInterval} />
        {history && (
          <p class="muted small" aria-live="polite">
            {outcome} {nowText}{" "}
            {line.length > 1 && (
              <span class={diff > 0 ? "up" : diff < 0 ? "down" : ""} data-testid="chart-change">
                {change} over {interval}
              </span>
            )}
          </p>
        )}
      </div>
      <figure
        class="chart-figure"
        data-testid="chart"
        data-points={history?.candles.length ?? 0}
        data-last={last ?? ""}
        data-updates={updates.current}
        data-interval={interval}
      >
        <div ref={box} class="chart-box" />
        <figcaption class="sr-only">{summary}</figcaption>
      </figure>
      {history && !history.candles.length && <p class="muted small">No trades in this period yet.</p>}
      <ErrorText error={error} />
    </div>
  );
}
