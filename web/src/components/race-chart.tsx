/**
 * A race's chart: one line per leading outcome, each the YES price history of its market
 * (GET /markets/:id/price-history, 1D), in cents; loaded with the event page's chart only.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { createChart, LineSeries, type UTCTimestamp } from "lightweight-charts";
import { client } from "../api";
import { cents } from "../format";

const COLOURS = ["#1d4ed8", "#047857", "#b45309", "#7c3aed"];
const css = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

export default function RaceChart({ lines, refresh }: { lines: Array<{ marketId: string; label: string }>; refresh: number }) {
  const box = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState(0);
  const [empty, setEmpty] = useState(false);
  const key = lines.map((l) => l.marketId).join(",");
  useEffect(() => {
    const api = createChart(box.current as HTMLDivElement, {
      autoSize: true,
      layout: { background: { color: "transparent" }, textColor: css("--text", "#111827"), fontFamily: "system-ui, sans-serif" },
      grid: { vertLines: { visible: false }, horzLines: { color: css("--border", "#d1d5db") } },
      rightPriceScale: { borderVisible: false },
      timeScale: { borderVisible: false, timeVisible: true, secondsVisible: false },
      handleScroll: false,
      handleScale: false,
    });
    let live = true;
    Promise.all(lines.map((l) => client.markets.priceHistory(l.marketId, { interval: "1D", outcome: "YES" }).catch(() => null))).then(
      (all) => {
        if (!live) return;
        all.forEach((h, i) => {
          if (!h?.candles.length) return;
          const s = api.addSeries(LineSeries, {
            color: COLOURS[i % COLOURS.length],
            lineWidth: 2,
            title: lines[i].label,
            priceFormat: { type: "custom", minMove: 0.01, formatter: (p: number) => cents(p) },
          });
          s.setData(h.candles.map((c) => ({ time: (Date.parse(c.timestamp) / 1000) as UTCTimestamp, value: c.close })));
        });
        api.timeScale().fitContent();
        setEmpty(all.every((h) => !h?.candles.length));
        setDrawn((n) => n + 1);
      },
    );
    return () => {
      live = false;
      api.remove();
    };
  }, [key, refresh]);
  return (
    <figure class="chart-figure" data-testid="race-chart" data-lines={lines.length} data-drawn={drawn}>
      <div ref={box} class="chart-box" hidden={empty} />
      {empty && <p class="muted">No trades yet: lines appear with the first trades.</p>}
      <figcaption class="legend">
        {lines.map((l, i) => (
          <span key={l.marketId}>
            <span class="swatch" style={{ background: COLOURS[i % COLOURS.length] }} aria-hidden="true" /> {l.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
