/** The events browser (categories, search, pages) and one event with its markets' live prices. */
import { useEffect, useState } from "preact/hooks";
import { CATEGORIES, type Category, type Event, type MarketItem } from "@pmx/client/models";
import type { MarketPrices } from "@pmx/client/socket";
import { client } from "../api";
import { price, when } from "../format";
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
              <li key={e.id} class="card event">
                <a href={pathFor("event", { id: e.id })}>
                  <h2>{e.title}</h2>
                </a>
                {e.subtitle && <p>{e.subtitle}</p>}
                <p class="meta">
                  <span class="tag">{e.category}</span>
                  {e.isLive && <span class="tag live">Live</span>}
                  <span>Volume {e.volumeUsd} USDT</span>
                </p>
              </li>
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
  return (
    <li class="card market-row">
      <a href={pathFor("market", { id: m.id })}>
        <h3>{m.title}</h3>
      </a>
      <p class="meta">
        <span class={`status ${m.status}`}>{m.status === "resolved" ? `Resolved ${m.result}` : m.status}</span>
        <span>Volume {m.volume} USDT</span>
        {closesLabel(m) && <span data-testid="market-closes">{closesLabel(m)}</span>}
      </p>
      <p class="prices">
        <span class="yes">YES {price(yes)}</span>
        <span class="no">NO {price(no)}</span>
      </p>
    </li>
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
          <h1>{event.title}</h1>
          {event.subtitle && <p>{event.subtitle}</p>}
          <p class="meta">
            <span class="tag">{event.category}</span>
            {event.subcategory && <span class="tag">{event.subcategory}</span>}
            <span>Begins {when(event.beginAt)}</span>
          </p>
          <ul class="grid">
            {event.markets.map((m) => (
              <MarketRow key={m.id} m={m} live={live[m.id]} />
            ))}
          </ul>
        </>
      )}
    </>
  );
}
