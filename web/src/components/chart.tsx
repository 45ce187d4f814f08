/**
 * The price chart (lightweight-charts, loaded with the market page's chart only): the close of
 * each candle of GET /markets/:id/price-history for the chosen interval. `refresh` changes when
 * the socket says the market moved; the history is then fetched again, so the chart shows exactly
 * what the exchange recorded.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { AreaSeries, createChart, type IChartApi, type ISeriesApi, type UTCTimestamp } from "lightweight-charts";
import { INTERVALS, type Interval, type Outcome, type PriceHistory } from "@pmx/client/models";
import { client } from "../api";
import { describeError } from "../errors";
import { ErrorText, Toggle, type ActionState } from "../ui";

const css = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

export default function PriceChart({ marketId, outcome, refresh }: { marketId: string; outcome: Outcome; refresh: number }) {
  const [interval, setInterval] = useState<Interval>("1D");
  const [history, setHistory] = useState<PriceHistory | null>(null);
  const [error, setError] = useState<ActionState["error"]>(null);
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
      timeScale: { borderVisible: false, timeVisible: true },
      handleScroll: false,
      handleScale: false,
    });
    const series = api.addSeries(AreaSeries, {
      lineColor: line,
      topColor: `${line}55`,
      bottomColor: `${line}05`,
      lineWidth: 2,
      priceFormat: { type: "price", precision: 2, minMove: 0.01 },
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
        chart.current.series.setData(h.candles.map((c) => ({ time: (Date.parse(c.timestamp) / 1000) as UTCTimestamp, value: c.close })));
        chart.current.api.timeScale().fitContent();
        updates.current++;
        setHistory(h);
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
  }, [marketId, outcome, interval, refresh]);

  const last = history?.candles.at(-1)?.close;
  const change = history
    ? `${history.priceChange >= 0 ? "+" : ""}${history.priceChange.toFixed(2)} (${history.priceChangePercent.toFixed(1)}%)`
    : "";
  const summary = history
    ? history.candles.length
      ? `${outcome} price over ${interval}: now ${history.currentPrice.toFixed(2)}, change ${change}`
      : `No trades in this period; ${outcome} is priced ${history.currentPrice.toFixed(2)}`
    : "Loading the price history";
  return (
    <div class="chart">
      <div class="chart-head">
        <Toggle label="Chart interval" options={INTERVALS} value={interval} onChange={setInterval} />
        {history && (
          <p class="muted small" aria-live="polite">
            {outcome} {history.currentPrice.toFixed(2)}{" "}
            <span class={history.priceChange > 0 ? "up" : history.priceChange < 0 ? "down" : ""}>{change}</span>
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
