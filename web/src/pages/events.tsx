/** The events browser (categories, search, pages) and one event with its markets' live prices. */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { CATEGORIES, type Category, type Event, type MarketItem } from "@pmx/client/models";
import type { MarketPrices } from "@pmx/client/socket";
import { client } from "../api";
import { cents, chance, day, dollars, when } from "../format";
import { EventImage } from "../components/picture";
import { socket } from "../live";
import { closesLabel } from "../components/lifecycle";
import { navigate, pathFor } from "../router";
import { ErrorText, Loading, Pager, Toggle, useLoad } from "../ui";

const PAGE_SIZE = 12;
type CategoryChoice = Category | "all";
const CHOICES: readonly CategoryChoice[] = ["all", ...CATEGORIES];

function query(category: CategoryChoice, q: string, page: number): string {
  const p = new URLSearchParams();
  if (category !== "all") p.set("category", category);
  if (q) p.set("q", q);
  if (page > 1) p.set("page", String(page));
  const s = p.toString();
  return s ? `/?${s}` : "/";
}

export function EventsPage({ query: qs }: { query: URLSearchParams }) {
  const category = (CHOICES as readonly string[]).includes(qs.get("category") ?? "") ? (qs.get("category") as CategoryChoice) : "all";
  const q = qs.get("q") ?? "";
  const page = Math.max(1, Number(qs.get("page")) || 1);
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const { data, error, loading } = useLoad(
    () => client.events.list({ category, search: q || undefined, page, pageSize: PAGE_SIZE }),
    [category, q, page],
  );
  const pages = data ? Math.max(1, Math.ceil(data.pagination.total / PAGE_SIZE)) : 1;

  return (
    <>
      <h1>Markets</h1>
      <form
        class="search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(query(category, text.trim(), 1));
        }}
      >
        <label for="search">Search events</label>
        <input
          id="search"
          type="search"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          placeholder="e.g. bitcoin"
          maxLength={200}
        />
        <button type="submit">Search</button>
      </form>
      <Toggle
        label="Category"
        options={CHOICES}
        value={category}
        onChange={(c) => navigate(query(c, q, 1))}
        labels={{ all: "All" }}
        scroll
      />
      <ErrorText error={error} />
      {loading && !data && <Loading what="events" />}
      {data && (
        <>
          <p class="muted" role="status">
            {data.pagination.total} event{data.pagination.total === 1 ? "" : "s"}
            {q && ` matching “${q}”`}
          </p>
          <ul class="grid" data-testid="events">
            {data.items.map((e) => (
              <EventCard key={e.id} e={e} />
            ))}
          </ul>
          <Pager
            label="Pages"
            page={data.pagination.page /* the page shown, not the one on its way */}
            pages={pages}
            hasNext={data.pagination.hasNext}
            onPage={(p) => navigate(query(category, q, p))}
          />
        </>
      )}
    </>
  );
}

const usd = (decimal: string) => dollars(BigInt(Math.round(Number(decimal) * 1e6)));

/** The YES chance a market's best prices imply (midpoint of best buy and sell), or null. */
function oddsOf(m: Pick<MarketItem, "buyYesPrice" | "sellYesPrice">): number | null {
  const b = m.buyYesPrice ? Number(m.buyYesPrice) : null;
  const s = m.sellYesPrice ? Number(m.sellYesPrice) : null;
  return b !== null && s !== null ? (b + s) / 2 : (b ?? s);
}

/** An event's outcomes by chance, highest first (no chance yet: last). */
export function ranked(e: Event): Event["outcomes"] {
  return [...(e.outcomes ?? [])].sort((a, b) => Number(b.chance ?? -1) - Number(a.chance ?? -1));
}

/** An event as a card: its picture, the chance of its leading outcomes (as the list gives them), volume and end date. */
function EventCard({ e }: { e: Event }) {
  const open = (e.outcomes ?? []).filter((o) => o.status === "open");
  const top = ranked({ ...e, outcomes: open });
  const single = (e.outcomes ?? []).length === 1 ? e.outcomes[0] : null;
  // Lists carry no markets: the event's closeTime is the earliest close among its open markets.
  const ends = e.closeTime;
  return (
    <li class="card event">
      <div class="event-top">
        <EventImage title={e.title} />
        <a href={pathFor("event", { id: e.id })}>
          <h2>{e.title}</h2>
        </a>
      </div>
      {single && single.status === "open" && single.chance !== null && (
        <p class="big-odds" data-testid="event-chance" title="Midpoint of the best YES prices, or the last trade when they are far apart">
          {chance(single.chance)}
          <span class="small"> chance</span>
        </p>
      )}
      {e.subtitle && <p>{e.subtitle}</p>}
      {!single && top.length > 0 && (
        <ul class="top-outcomes" data-testid="top-outcomes">
          {top.slice(0, 3).map((o) => (
            <li key={o.marketId}>
              <a href={pathFor("market", { id: o.marketId })}>{o.label}</a> <strong>{chance(o.chance)}</strong>
            </li>
          ))}
          {top.length > 3 && <li class="muted small">and {top.length - 3} more</li>}
        </ul>
      )}
      {single?.status === "resolved" && <p class="muted">Resolved</p>}
      <p class="meta">
        <span class="tag">{e.category}</span>
        {e.mutuallyExclusive && <span class="tag">one winner</span>}
        {e.isLive && <span class="tag live">Live</span>}
        <span>{usd(e.volumeUsd)} vol.</span>
        {ends && <span data-testid="event-ends">Ends {day(ends)}</span>}
      </p>
    </li>
  );
}

/** The market's prices, moving with the market channel. */
export function useLivePrices<T extends { id: string } & Partial<MarketPrices>>(
  markets: T[] | null,
): Record<string, Partial<MarketPrices>> {
  const [live, setLive] = useState<Record<string, Partial<MarketPrices>>>({});
  const ids = markets?.map((m) => m.id).join(",") ?? "";
  useEffect(() => {
    if (!ids) return;
    setLive({});
    const sub = socket.subscribeMarkets(ids.split(","), (p) => setLive((cur) => ({ ...cur, [p.marketId]: p })));
    sub.ready.catch(() => undefined);
    return () => sub.unsubscribe();
  }, [ids]);
  return live;
}

export function MarketRow({ m, live }: { m: MarketItem; live?: Partial<MarketPrices> }) {
  const yes = live?.buyYesPrice !== undefined ? live.buyYesPrice : m.buyYesPrice;
  const no = live?.buyNoPrice !== undefined ? live.buyNoPrice : m.buyNoPrice;
  const sellYes = live?.sellYesPrice !== undefined ? live.sellYesPrice : m.sellYesPrice;
  const odds = oddsOf({ buyYesPrice: yes, sellYesPrice: sellYes });
  return (
    <li class="card market-row">
      <div class="event-top">
        <a href={pathFor("market", { id: m.id })}>
          <h3>{m.title}</h3>
        </a>
        {m.status === "open" && odds !== null && (
          <span class="big-odds" data-testid="market-chance">
            {chance(odds)}
          </span>
        )}
      </div>
      <p class="meta">
        <span class={`status ${m.status}`}>{m.status === "resolved" ? `Resolved ${m.result}` : m.status}</span>
        <span>{usd(m.volume)} vol.</span>
        {closesLabel(m) && <span data-testid="market-closes">{closesLabel(m)}</span>}
      </p>
      {m.status === "open" && (
        <p class="prices" title="Best price now across the order book and the AMM">
          <a class="yes" href={pathFor("market", { id: m.id })}>
            Buy YES {cents(yes)}
          </a>
          <a class="no" href={pathFor("market", { id: m.id })}>
            Buy NO {cents(no)}
          </a>
        </p>
      )}
    </li>
  );
}

type RaceChartProps = { lines: Array<{ marketId: string; label: string }>; refresh: number };
let RaceChartView: ComponentType<RaceChartProps> | null = null;

/** The race chart arrives after the page (it carries lightweight-charts). */
function LazyRaceChart(props: RaceChartProps) {
  const [, setLoaded] = useState(!!RaceChartView);
  useEffect(() => {
    if (!RaceChartView)
      import("../components/race-chart").then((m) => {
        RaceChartView = m.default;
        setLoaded(true);
      });
  }, []);
  return RaceChartView ? <RaceChartView {...props} /> : <Loading what="the chart" />;
}

/** A race (one winner among its outcomes): outcomes ranked by chance, each with its YES and NO prices. */
function Race({ event, live }: { event: Event; live: Record<string, Partial<MarketPrices>> }) {
  const rows = ranked(event);
  const byId = Object.fromEntries(event.markets.map((m) => [m.id, m]));
  const price = (id: string, k: "buyYesPrice" | "buyNoPrice") => (live[id]?.[k] !== undefined ? live[id][k] : byId[id]?.[k]) ?? null;
  return (
    <>
      <section class="card" aria-labelledby="race-chart-title">
        <h2 id="race-chart-title">Last trade price over the last day (leading outcomes)</h2>
        <LazyRaceChart lines={rows.slice(0, 4).map((o) => ({ marketId: o.marketId, label: o.label }))} refresh={0} />
      </section>
      <ol class="race" data-testid="race">
        {rows.map((o) => (
          <li key={o.marketId} class="card race-row" data-market={o.marketId}>
            <a href={pathFor("market", { id: o.marketId })} class="race-label">
              {o.label}
            </a>
            <span class="race-chance">
              <strong data-field="chance">{chance(o.chance)}</strong>
              <span class="muted small"> {o.chance !== null ? cents(o.chance) : ""}</span>
            </span>
            {o.status === "open" ? (
              <span class="prices">
                <a
                  class="yes"
                  href={pathFor("market", { id: o.marketId })}
                  aria-label={`Yes ${cents(price(o.marketId, "buyYesPrice"))}: buy YES on ${o.label}`}
                >
                  Yes {cents(price(o.marketId, "buyYesPrice"))}
                </a>
                <a
                  class="no"
                  href={pathFor("market", { id: o.marketId })}
                  aria-label={`No ${cents(price(o.marketId, "buyNoPrice"))}: buy NO on ${o.label}`}
                >
                  No {cents(price(o.marketId, "buyNoPrice"))}
                </a>
              </span>
            ) : (
              <span class="muted">{o.status}</span>
            )}
          </li>
        ))}
      </ol>
      <p class="muted small">
        Chance: the midpoint of an outcome's best YES prices (book and AMM) when they are at most 10¢ apart, else its last trade. Yes and No
        are the best prices to buy now.
      </p>
    </>
  );
}

export function EventPage({ params }: { params: Record<string, string> }) {
  const { data: event, error, loading } = useLoad<Event>(() => client.events.get(params.id), [params.id]);
  const live = useLivePrices(event?.markets ?? null);
  return (
    <>
      <p class="crumbs">
        <a href="/">Markets</a>
      </p>
      <ErrorText error={error} />
      {loading && !event && <Loading what="the event" />}
      {event && (
        <>
          <div class="market-head">
            <EventImage title={event.title} size={56} />
            <h1>{event.title}</h1>
          </div>
          {event.subtitle && <p>{event.subtitle}</p>}
          <p class="meta">
            <span class="tag">{event.category}</span>
            {event.subcategory && <span class="tag">{event.subcategory}</span>}
            <span>
              {new Date(event.beginAt).getTime() > Date.now() ? "Begins" : "Began"} {when(event.beginAt)}
            </span>
            {event.closeTime && <span data-testid="event-ends">Ends {day(event.closeTime)}</span>}
          </p>
          {event.mutuallyExclusive ? (
            <Race event={event} live={live} />
          ) : (
            <ul class="grid">
              {event.markets.map((m) => (
                <MarketRow key={m.id} m={m} live={live[m.id]} />
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}
