/**
 * One market: live YES/NO prices (market channel), the order-book ladder (book channel), the
 * price chart, the order ticket, the user's open orders here, redemption once resolved, and how
 * the market ends (rules, close time, a proposed result and its disputes, trading pauses), kept
 * current by the market channel's lifecycle messages.
 */
import type { ComponentType } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { INDEX_SET, type MarketItem, type Order, type Outcome, type Position } from "@pmx/client/models";
import type { MarketPrices } from "@pmx/client/socket";
import { client, session$ } from "../api";
import { price, shares, usdt } from "../format";
import { portfolioPulse } from "../live";
import { pathFor } from "../router";
import { SignInPanel } from "../signin";
import { useStore } from "../store";
import { Ladder, useBook } from "../components/ladder";
import {
  ModeBanner,
  modeRefusal,
  ResolutionSection,
  RulesSection,
  useLifecycle,
  useRefreshWhileVisible,
  type MarketLifecycle,
} from "../components/lifecycle";
import { Ticket, type TicketPreset } from "../components/ticket";
import { Done, ErrorText, Loading, Section, Toggle, useAction, useLoad } from "../ui";
import { useLivePrices } from "./events";

type ChartProps = { marketId: string; outcome: Outcome; refresh: number };
let Chart: ComponentType<ChartProps> | null = null;
const loadChart = () => import("../components/chart").then((m) => (Chart = m.default));

/** The chart module arrives after the page (it carries lightweight-charts). */
function LazyChart(props: ChartProps) {
  const [, setLoaded] = useState(!!Chart);
  useEffect(() => {
    if (!Chart) loadChart().then(() => setLoaded(true));
  }, []);
  return Chart ? <Chart {...props} /> : <Loading what="the chart" />;
}

/** A counter that follows `fire()` calls at most every `gapMs`, each `delayMs` after the call (prints are recorded just after a trade). */
function useThrottledPulse(delayMs: number, gapMs: number): [number, () => void] {
  const [n, setN] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);
  useEffect(() => () => (timer.current ? clearTimeout(timer.current) : undefined), []);
  const fire = useCallback(() => {
    if (timer.current) return;
    const wait = Math.max(delayMs, last.current + gapMs - Date.now());
    timer.current = setTimeout(() => {
      timer.current = null;
      last.current = Date.now();
      setN((x) => x + 1);
    }, wait);
  }, [delayMs, gapMs]);
  return [n, fire];
}

let markedInteractive = false;
/** How often an open market page refetches the market (a trading mode change has no socket message). */
const MODE_REFRESH_MS = 10_000;

function Prices({ m, live, onPick }: { m: MarketItem; live?: Partial<MarketPrices>; onPick: (p: TicketPreset) => void }) {
  const pick = (k: "buyYesPrice" | "sellYesPrice" | "buyNoPrice" | "sellNoPrice") => (live?.[k] !== undefined ? live[k] : m[k]) ?? null;
  const cell = (
    label: string,
    k: "buyYesPrice" | "sellYesPrice" | "buyNoPrice" | "sellNoPrice",
    outcome: Outcome,
    side: "BUY" | "SELL",
  ) => (
    <button
      type="button"
      class={`price-cell ${outcome.toLowerCase()}`}
      onClick={() => onPick({ side, outcome, price: pick(k) ?? undefined, nonce: Date.now() })}
      data-testid={k}
      title="Use in the order ticket"
    >
      <span class="small">{label}</span> <strong>{price(pick(k))}</strong>
    </button>
  );
  return (
    <div class="prices-grid" aria-live="polite">
      {cell("Buy YES", "buyYesPrice", "YES", "BUY")}
      {cell("Buy NO", "buyNoPrice", "NO", "BUY")}
      {cell("Sell YES", "sellYesPrice", "YES", "SELL")}
      {cell("Sell NO", "sellNoPrice", "NO", "SELL")}
    </div>
  );
}

/** Open orders with their Cancel buttons: of one market, or (without `marketId`) all, with market titles. */
export function OrdersSection({ title, marketId, refresh }: { title: string; marketId?: string; refresh: number }) {
  const { data, error, reload } = useLoad<{ orders: Order[]; titles?: Record<string, string> }>(async () => {
    const orders = await client.orders.open(marketId ? { marketId } : {});
    if (marketId) return { orders };
    // Titles of the (few) markets with open orders; ids stand in beyond the first ten.
    const ids = [...new Set(orders.map((o) => o.marketId))].slice(0, 10);
    const markets = await Promise.all(ids.map((id) => client.markets.get(id).catch(() => null)));
    return { orders, titles: Object.fromEntries(markets.flatMap((m) => (m ? [[m.id, m.title]] : []))) };
  }, [marketId, refresh]);
  const [cancel, cancelState] = useAction(async (id: string) => {
    await client.orders.cancel(id);
    reload();
  });
  return (
    <Section title={title} id={marketId ? "my-orders" : "orders"}>
      <ErrorText error={error ?? cancelState.error} />
      {data && !data.orders.length && <p class="muted">{marketId ? "No open orders in this market." : "No open orders."}</p>}
      {data && data.orders.length > 0 && (
        <OrderList orders={data.orders} titles={data.titles} onCancel={cancel} pending={cancelState.pending} />
      )}
    </Section>
  );
}

function OrderList({
  orders,
  onCancel,
  pending,
  titles,
}: {
  orders: Order[];
  onCancel: (id: string) => void;
  pending: boolean;
  titles?: Record<string, string>;
}) {
  return (
    <ul class="list" data-testid="open-orders">
      {orders.map((o) => (
        <li key={o.orderId}>
          <span>
            {titles && (
              <>
                <a href={pathFor("market", { id: o.marketId })}>{titles[o.marketId] ?? o.marketId}</a>:{" "}
              </>
            )}
            {o.side} {shares(o.remainingQuantity)} {o.outcome} at {o.price}{" "}
            <span class="muted small">
              ({o.orderType}, {o.status.replace("_", " ")})
            </span>
          </span>
          <button
            type="button"
            onClick={() => onCancel(o.orderId)}
            disabled={pending}
            aria-label={`Cancel ${o.side} ${shares(o.remainingQuantity)} ${o.outcome} at ${o.price}`}
          >
            Cancel
          </button>
        </li>
      ))}
    </ul>
  );
}

function Redeem({ market, refresh }: { market: MarketItem; refresh: number }) {
  const { data: positions } = useLoad<Position[]>(() => client.portfolio.positions(), [market.id, refresh]);
  const [result, setResult] = useState<string | null>(null);
  const winner = market.result;
  const mine = positions?.filter((p) => p.marketId === market.id) ?? [];
  // SPLIT: every share pays 0.50 and is credited by the exchange itself; redeem acknowledges it.
  const split = winner === "SPLIT";
  const winning = mine.find((p) => (split || p.outcome === winner) && p.status === "open" && BigInt(p.quantity) > 0n);
  const [redeem, state] = useAction(async () => {
    if (!winner) return;
    const indexSets = winner === "SPLIT" ? [INDEX_SET.YES, INDEX_SET.NO] : [INDEX_SET[winner]];
    const r = await client.wallet.redeem(market.id, { conditionId: market.conditionId, indexSets });
    setResult(
      r.status === "accepted" ? `Redeemed: ${usdt(r.payout ?? "0")} USDT paid into your balance.` : `Already redeemed (${r.message}).`,
    );
    portfolioPulse.fire();
  });
  return (
    <Section title={`Resolved: ${winner ?? "–"}`} id="redeem">
      {winning && !result ? (
        <>
          <p>
            {split
              ? "The market resolved SPLIT: each YES and each NO share pays 0.50 USDT."
              : `You hold ${shares(winning.quantity)} winning ${winner} shares, worth ${shares(winning.quantity)} USDT.`}
          </p>
          <button type="button" class="primary" onClick={() => redeem()} disabled={state.pending}>
            {split ? "Redeem" : `Redeem ${shares(winning.quantity)} ${winner}`}
          </button>
        </>
      ) : (
        !result && (
          <p class={split ? undefined : "muted"} data-testid="redeem-state">
            {split
              ? "The market resolved SPLIT: each YES and each NO share pays 0.50 USDT, credited to holders' balances by the exchange."
              : mine.length
                ? "Nothing left to redeem here."
                : "You hold no shares of this market."}
          </p>
        )
      )}
      <ErrorText error={state.error} />
      <Done text={result} testid="redeem-result" />
    </Section>
  );
}

export function MarketPage({ params }: { params: Record<string, string> }) {
  const marketId = params.id;
  const session = useStore(session$);
  const userPulse = portfolioPulse.use();
  const { data: loaded, error, loading, reload } = useLoad<MarketItem>(() => client.markets.get(marketId), [marketId, userPulse]);
  // A lifecycle message shows at once; the market is refetched behind it (the result, amended or not).
  const [life, setLife] = useState<MarketLifecycle | null>(null);
  useEffect(() => setLife(null), [loaded]);
  useLifecycle(marketId, (l) => {
    setLife(l);
    reload();
  });
  useRefreshWhileVisible(reload, MODE_REFRESH_MS);
  const market: MarketItem | null = loaded && {
    ...loaded,
    ...(life && { status: life.status, resolution: life.resolution, ...(life.tradingMode && { tradingMode: life.tradingMode }) }),
  };
  const { data: positions } = useLoad<Position[] | null>(
    () => (session ? client.portfolio.positions() : Promise.resolve(null)),
    [marketId, userPulse, session],
  );
  const holder = !!positions?.some((p) => p.marketId === marketId && BigInt(p.quantity) > 0n);
  const [chartRefresh, moved] = useThrottledPulse(600, 2500);
  const live = useLivePrices(market ? [market] : null);
  const [view, setView] = useState<Outcome>("YES");
  const book = useBook(marketId, view, moved);
  const [preset, setPreset] = useState<TicketPreset | null>(null);

  useEffect(() => {
    if (live[marketId]) moved();
  }, [live[marketId]]);
  useEffect(() => moved(), [userPulse]);
  useEffect(() => {
    if (market && book?.synced && !markedInteractive) {
      markedInteractive = true;
      // The browser test reads this: navigation start to prices, book and ticket on screen.
      performance.mark("pmx:market-interactive");
    }
  }, [market, book?.synced]);

  if (!market)
    return (
      <>
        <ErrorText error={error} />
        {loading && <Loading what="the market" />}
      </>
    );
  return (
    <>
      <p class="crumbs">
        <a href="/">Markets</a> › <a href={pathFor("event", { id: market.eventId })}>This event's markets</a>
      </p>
      <h1>{market.title}</h1>
      <p class="meta">
        <span class={`status ${market.status}`} data-testid="market-status">
          {market.status === "resolved" ? `Resolved ${market.result}` : market.status}
        </span>
        {market.status !== "resolved" && market.resolution && !market.resolution.finalizedAt && (
          <span data-testid="proposal-badge">{market.resolution.proposedResult} proposed</span>
        )}
        <span>Volume {market.volume} USDT</span>
      </p>
      <ModeBanner mode={market.tradingMode} />
      <div class="market-layout">
        <div class="col">
          <Prices m={market} live={live[marketId]} onPick={setPreset} />
          <ResolutionSection market={market} holder={holder} />
          <Section title="Price" id="chart">
            <LazyChart marketId={marketId} outcome="YES" refresh={chartRefresh} />
          </Section>
          <Section
            title="Order book"
            id="book"
            actions={<Toggle label="Book view" options={["YES", "NO"] as const} value={view} onChange={setView} />}
          >
            <Ladder book={book} outcome={view} onPick={(p) => setPreset({ price: p, outcome: view, mode: "LIMIT", nonce: Date.now() })} />
          </Section>
          <RulesSection market={market} />
        </div>
        <div class="col">
          {market.status === "resolved" && session && <Redeem market={market} refresh={userPulse} />}
          {session ? (
            <>
              {market.status === "open" ? (
                <Section title="Trade" id="trade">
                  <Ticket market={market} preset={preset} onDone={() => portfolioPulse.fire()} paused={modeRefusal(market.tradingMode)} />
                </Section>
              ) : (
                <p class="card" role="status">
                  This market is {market.status === "resolved" ? `resolved (${market.result})` : market.status}: no new orders.
                </p>
              )}
              <OrdersSection title="My open orders here" marketId={marketId} refresh={userPulse} />
            </>
          ) : (
            <section class="card">
              <SignInPanel />
            </section>
          )}
        </div>
      </div>
    </>
  );
}
