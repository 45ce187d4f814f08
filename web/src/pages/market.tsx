/**
 * One market: live YES/NO prices (market channel), the order-book ladder (book channel), the
 * price chart, the order ticket, the user's open orders here, redemption once resolved, and how
 * the market ends (rules, close time, a proposed result and its disputes, trading pauses), kept
 * current by the market channel's lifecycle messages.
 */
import type { ComponentType } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type MarketItem, type Order, type Outcome, type Position, type Quote } from "@pmx/client/models";
import type { BookState, MarketPrices } from "@pmx/client/socket";
import { priceToTick, tickToPrice } from "@pmx/client/money";
import { client, session$ } from "../api";
import { cents, chance, day, dollars, shareCount, when } from "../format";
import { balance$, portfolioPulse } from "../live";
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
  useRefreshOnReconnect,
  type MarketLifecycle,
} from "../components/lifecycle";
import { Ticket, VENUE_WORDS, type TicketPreset } from "../components/ticket";
import { DepthChart } from "../components/depth";
import { RecentTrades } from "../components/recent-trades";
import { EventImage } from "../components/picture";
import { ErrorText, Loading, Section, Toggle, useAction, useLoad } from "../ui";
import { Redeem } from "../components/redeem";
import { useLivePrices } from "./events";

type ChartProps = { marketId: string; outcome: Outcome; refresh: number; market?: Pick<MarketItem, "status" | "result"> };
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

/** The NO view of a YES book: the same levels seen from the other side. */
function mirrorBook(b: BookState | null): BookState | null {
  if (!b) return b;
  const flip = (l: BookState["bids"][number]) => ({ ...l, price: tickToPrice(100 - priceToTick(l.price)) });
  return { ...b, outcome: "NO", bids: b.asks.map(flip), asks: b.bids.map(flip) };
}

let markedInteractive = false;

/** The size the price tiles quote: what a typical market order pays now. */
export const TILE_SHARES = "10000000";
type TileKey = "buyYesPrice" | "buyNoPrice" | "sellYesPrice" | "sellNoPrice";
const TILES: Array<{ key: TileKey; label: string; side: "BUY" | "SELL"; outcome: Outcome }> = [
  { key: "buyYesPrice", label: "Buy YES", side: "BUY", outcome: "YES" },
  { key: "buyNoPrice", label: "Buy NO", side: "BUY", outcome: "NO" },
  { key: "sellYesPrice", label: "Sell YES", side: "SELL", outcome: "YES" },
  { key: "sellNoPrice", label: "Sell NO", side: "SELL", outcome: "NO" },
];

/** The last quotes per market: a page opened again shows them at once while they are asked again. */
const quoteCache = new Map<string, Partial<Record<TileKey, Quote | "none">>>();

/**
 * The router's quote for 10 shares of each tile (POST /markets/:id/quote, signed in only), asked
 * once the page is interactive (they would compete with the market and the book for the first
 * paint) and again on each `refresh`. A tile without liquidity says so.
 */
function useTileQuotes(marketId: string, on: boolean, refresh: number): Partial<Record<TileKey, Quote | "none">> {
  const [quotes, setQuotes] = useState<Partial<Record<TileKey, Quote | "none">>>(() => quoteCache.get(marketId) ?? {});
  useEffect(() => setQuotes(quoteCache.get(marketId) ?? {}), [marketId]);
  useEffect(() => {
    if (!on) return;
    let live = true;
    Promise.all(
      TILES.map((t) =>
        client.markets
          .quote(marketId, { side: t.side, outcome: t.outcome, quantity: TILE_SHARES, venue: "AUTO" })
          .then((q): [TileKey, Quote | "none"] => [t.key, q])
          .catch((): [TileKey, Quote | "none"] => [t.key, "none"]),
      ),
    ).then((all) => {
      const got = Object.fromEntries(all) as Record<TileKey, Quote | "none">;
      quoteCache.set(marketId, got);
      if (live) setQuotes(got);
    });
    return () => {
      live = false;
    };
  }, [marketId, on, refresh]);
  return quotes;
}

/** The YES chance the best buy and sell prices imply (their midpoint), or null. */
export function impliedChance(buyYes: string | null | undefined, sellYes: string | null | undefined): number | null {
  const b = buyYes ? Number(buyYes) : null;
  const s = sellYes ? Number(sellYes) : null;
  if (b !== null && s !== null) return (b + s) / 2;
  return b ?? s;
}

function Prices({
  m,
  live,
  quotes,
  signedIn,
  onPick,
}: {
  m: MarketItem;
  live?: Partial<MarketPrices>;
  quotes: Partial<Record<TileKey, Quote | "none">>;
  signedIn: boolean;
  onPick: (p: TicketPreset) => void;
}) {
  const best = (k: TileKey) => (live?.[k] !== undefined ? live[k] : m[k]) ?? null;
  return (
    <div class="prices-grid" aria-live="polite">
      {TILES.map((t) => {
        const q = quotes[t.key];
        const shown = signedIn ? (q && q !== "none" ? q.estimatedPrice : null) : best(t.key);
        const note = !signedIn
          ? "best price now (book or AMM)"
          : q === undefined
            ? "quoting 10 shares…"
            : q === "none"
              ? "not enough liquidity for 10 shares"
              : `avg. for 10 shares · ${VENUE_WORDS[q.source]}`;
        return (
          <button
            key={t.key}
            type="button"
            class={`price-cell ${t.outcome.toLowerCase()}`}
            onClick={() => onPick({ side: t.side, outcome: t.outcome, price: best(t.key) ?? undefined, nonce: Date.now() })}
            data-testid={t.key}
            data-price={shown ?? ""}
            title="Use in the order ticket"
          >
            <span class="small">{t.label}</span> <strong>{cents(shown)}</strong>
            <span class="tile-note">{note}</span>
          </button>
        );
      })}
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
            {o.side} {shareCount(o.remainingQuantity)} {o.outcome} at {cents(o.price)}{" "}
            <span class="muted small">
              ({o.orderType}
              {o.postOnly ? ", post-only" : ""}
              {o.expiresAt ? `, until ${when(o.expiresAt)}` : ""}, {o.status.replace("_", " ")})
            </span>
          </span>
          <button
            type="button"
            onClick={() => onCancel(o.orderId)}
            disabled={pending}
            aria-label={`Cancel ${o.side} ${shareCount(o.remainingQuantity)} ${o.outcome} at ${cents(o.price)}`}
          >
            Cancel
          </button>
        </li>
      ))}
    </ul>
  );
}

export function MarketPage({ params }: { params: Record<string, string> }) {
  const marketId = params.id;
  const session = useStore(session$);
  const balance = useStore(balance$);
  const userPulse = portfolioPulse.use();
  const { data: loaded, error, loading, reload } = useLoad<MarketItem>(() => client.markets.get(marketId), [marketId, userPulse]);
  // A lifecycle message shows at once; the market is refetched behind it (the result, amended or not).
  const [life, setLife] = useState<MarketLifecycle | null>(null);
  useEffect(() => setLife(null), [loaded]);
  useLifecycle(marketId, (l) => {
    setLife(l);
    reload();
  });
  useRefreshOnReconnect(reload);
  const market: MarketItem | null = loaded && {
    ...loaded,
    ...(life && { status: life.status, resolution: life.resolution, tradingMode: life.tradingMode }),
  };
  const { data: positions } = useLoad<Position[] | null>(
    () => (session ? client.portfolio.positions() : Promise.resolve(null)),
    [marketId, userPulse, session],
  );
  const mine = positions?.filter((p) => p.marketId === marketId) ?? [];
  const holder = mine.some((p) => BigInt(p.quantity) > 0n);
  const freeShares = {
    YES: mine.filter((p) => p.outcome === "YES").reduce((n, p) => n + BigInt(p.quantity) - BigInt(p.lockedQuantity), 0n),
    NO: mine.filter((p) => p.outcome === "NO").reduce((n, p) => n + BigInt(p.quantity) - BigInt(p.lockedQuantity), 0n),
  };
  // The chart follows moves after 600 ms (prints are recorded just after a trade), the tiles' quotes sooner.
  const [chartRefresh, chartMoved] = useThrottledPulse(600, 2500);
  const [quoteRefresh, quoteMoved] = useThrottledPulse(150, 1000);
  const moved = useCallback(() => {
    chartMoved();
    quoteMoved();
  }, [chartMoved, quoteMoved]);
  const live = useLivePrices(market ? [market] : null);
  const [view, setView] = useState<Outcome>("YES");
  // One subscription, the YES view; the NO view is its mirror (a NO bid at p is a YES ask at 1 - p).
  const yesBook = useBook(marketId, "YES", moved);
  const book = view === "YES" ? yesBook : mirrorBook(yesBook);
  // Interactive: this market and its book on screen (kept once reached, through a resync of the book).
  const [interactiveFor, setInteractiveFor] = useState<string | null>(null);
  const interactive = interactiveFor === marketId;
  const onScreen = market?.id === marketId && yesBook?.marketId === marketId && yesBook.synced;
  useEffect(() => {
    if (!onScreen) return;
    setInteractiveFor(marketId);
    if (!markedInteractive) {
      markedInteractive = true;
      // The browser test reads this: navigation start to prices, book and ticket on screen.
      performance.mark("pmx:market-interactive");
    }
  }, [onScreen, marketId]);
  // Quotes while orders are taken (a paused market refuses them): else the tiles show the best prices.
  const quoting = !!session && market?.status === "open" && market.tradingMode === "normal";
  const quotes = useTileQuotes(marketId, quoting && interactive, quoteRefresh);
  const [preset, setPreset] = useState<TicketPreset | null>(null);

  useEffect(() => {
    if (live[marketId]) moved();
  }, [live[marketId]]);
  // The user's own changes (not on mount: everything was just fetched).
  const firstPulse = useRef(userPulse);
  useEffect(() => {
    if (userPulse !== firstPulse.current) moved();
  }, [userPulse]);

  if (!market)
    return /NOT_FOUND/.test(error?.detail ?? "") ? (
      <section class="card" data-testid="market-not-found">
        <h1>Market not found</h1>
        <p>There is no market with this address. It may have been mistyped.</p>
        <p>
          <a href="/">Browse the markets</a>
        </p>
      </section>
    ) : (
      <>
        <ErrorText error={error} />
        {loading && <Loading what="the market" />}
      </>
    );
  const lp = live[marketId];
  const odds = impliedChance(
    lp?.buyYesPrice !== undefined ? lp.buyYesPrice : market.buyYesPrice,
    lp?.sellYesPrice !== undefined ? lp.sellYesPrice : market.sellYesPrice,
  );
  return (
    <>
      <p class="crumbs">
        <a href="/">Markets</a> › <a href={pathFor("event", { id: market.eventId })}>This event's markets</a>
      </p>
      <div class="market-head">
        <EventImage title={market.title} size={56} />
        <div>
          <h1>{market.title}</h1>
          <p class="meta">
            <span class={`status ${market.status}`} data-testid="market-status">
              {market.status === "resolved" ? `Resolved ${market.result}` : market.status}
            </span>
            {market.status !== "resolved" && market.resolution && !market.resolution.finalizedAt && (
              <span data-testid="proposal-badge">{market.resolution.proposedResult} proposed</span>
            )}
            {market.status === "open" && odds !== null && (
              <span class="odds" data-testid="market-chance" title="The midpoint of the best YES buy and sell prices">
                <strong>{chance(odds)}</strong> chance YES
              </span>
            )}
            <span>{dollars(BigInt(Math.round(Number(market.volume) * 1e6)))} volume</span>
            {market.closeTime && <span>Ends {day(market.closeTime)}</span>}
          </p>
        </div>
      </div>
      <ModeBanner mode={market.tradingMode} />
      <div class="market-layout">
        <div class="col">
          <Prices
            m={market}
            live={lp}
            quotes={quotes}
            signedIn={quoting}
            onPick={(p) => {
              setPreset(p);
              // On a phone the ticket is further down the page: bring it into view.
              const t = document.getElementById("trade");
              if (t && t.getBoundingClientRect().top > innerHeight) t.scrollIntoView({ block: "start" });
            }}
          />
          <ResolutionSection market={market} holder={holder} />
          <Section title="Price chart (last trades)" id="chart">
            {/* After the market and its book: the chart's module and history would compete with them. */}
            {interactive ? (
              <LazyChart marketId={marketId} outcome="YES" refresh={chartRefresh} market={market} />
            ) : (
              <Loading what="the chart" />
            )}
          </Section>
          <Section
            title="Order book (limit orders)"
            id="book"
            actions={<Toggle label="Book view" options={["YES", "NO"] as const} value={view} onChange={setView} />}
          >
            <Ladder book={book} outcome={view} onPick={(p) => setPreset({ price: p, outcome: view, mode: "LIMIT", nonce: Date.now() })} />
            <p class="muted small">The book holds resting limit orders only; market orders may also fill against the AMM.</p>
          </Section>
          <Section title="Depth" id="depth">
            <DepthChart book={yesBook} />
          </Section>
          <Section title="Recent trades" id="recent">
            {interactive ? <RecentTrades marketId={marketId} /> : <Loading what="recent trades" />}
          </Section>
          <RulesSection market={market} />
        </div>
        <div class="col">
          {market.status === "resolved" && session && <Redeem market={market} refresh={userPulse} />}
          {session ? (
            <>
              {market.status === "open" ? (
                <Section title="Trade" id="trade">
                  <Ticket
                    market={market}
                    preset={preset}
                    onDone={() => portfolioPulse.fire()}
                    paused={modeRefusal(market.tradingMode)}
                    book={yesBook}
                    balance={balance}
                    freeShares={freeShares}
                  />
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
