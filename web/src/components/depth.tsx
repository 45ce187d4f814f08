/** The book's depth: cumulative shares at each YES price, bids left, asks right; drawn as SVG from the live book. */
import type { BookState } from "@pmx/client/socket";
import { priceToTick } from "@pmx/client/money";
import { cents } from "../format";

const W = 320;
const H = 120;

export function DepthChart({ book }: { book: BookState | null }) {
  if (!book?.synced) return <p class="muted small">Loading the order book…</p>;
  const bids = book.bids.map((l) => ({ t: priceToTick(l.price), q: Number(l.quantity) / 1e6 }));
  const asks = book.asks.map((l) => ({ t: priceToTick(l.price), q: Number(l.quantity) / 1e6 }));
  if (!bids.length && !asks.length) return <p class="muted small">No resting orders yet: the depth chart fills as limit orders arrive.</p>;
  let acc = 0;
  const bidSteps = bids.map((l) => ({ t: l.t, c: (acc += l.q) }));
  acc = 0;
  const askSteps = asks.map((l) => ({ t: l.t, c: (acc += l.q) }));
  const max = Math.max(1, ...bidSteps.map((s) => s.c), ...askSteps.map((s) => s.c));
  const lo = Math.max(1, Math.min(...[...bids, ...asks].map((l) => l.t)) - 2);
  const hi = Math.min(99, Math.max(...[...bids, ...asks].map((l) => l.t)) + 2);
  const x = (t: number) => ((t - lo) / Math.max(1, hi - lo)) * W;
  const y = (c: number) => H - (c / max) * (H - 8);
  const path = (steps: Array<{ t: number; c: number }>, towards: number) => {
    if (!steps.length) return "";
    let d = `M${x(steps[0].t)} ${H}`;
    let prev = 0;
    for (const s of steps) {
      d += ` L${x(s.t)} ${y(prev)} L${x(s.t)} ${y(s.c)}`;
      prev = s.c;
    }
    d += ` L${x(towards)} ${y(prev)} L${x(towards)} ${H} Z`;
    return d;
  };
  const bestBid = bids[0]?.t;
  const bestAsk = asks[0]?.t;
  return (
    <figure class="depth-chart" data-testid="depth-chart">
      <svg
        viewBox={`0 0 ${W} ${H + 16}`}
        role="img"
        aria-label={`Depth of the YES book: ${bidSteps.at(-1)?.c.toFixed(2) ?? 0} shares bid, ${askSteps.at(-1)?.c.toFixed(2) ?? 0} shares offered`}
      >
        <path d={path(bidSteps, lo)} class="depth-bid" />
        <path d={path(askSteps, hi)} class="depth-ask" />
        <text x="2" y={H + 13} class="depth-label">
          {cents(lo / 100)}
        </text>
        <text x={W - 2} y={H + 13} text-anchor="end" class="depth-label">
          {cents(hi / 100)}
        </text>
      </svg>
      <figcaption class="muted small">
        YES book: bids {bestBid ? `from ${cents(bestBid / 100)} down` : "none"}, offers{" "}
        {bestAsk ? `from ${cents(bestAsk / 100)} up` : "none"}; height is the shares available up to each price.
      </figcaption>
    </figure>
  );
}
