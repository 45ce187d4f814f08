/**
 * Convert: NO held on outcomes of one race (a mutually exclusive event) becomes dollars plus YES
 * of the race's other open outcomes (POST /events/:id/convert). Giving up q NO of each of k
 * outcomes pays (k - 1) x q dollars and q YES of every other open outcome: at most one of the k
 * can win, so k - 1 of those NO shares pay out whatever happens.
 */
import { useMemo, useState } from "preact/hooks";
import type { Event, MarketItem, Position } from "@pmx/client/models";
import { toMicroBigInt } from "@pmx/client/money";
import { client } from "../api";
import { dollars, shareCount } from "../format";
import { portfolioPulse } from "../live";
import { pathFor } from "../router";
import { Done, ErrorText, Section, useAction, useLoad } from "../ui";

/** NO shares of a position not locked by resting sell orders. */
const freeOf = (p: Position) => BigInt(p.quantity) - BigInt(p.lockedQuantity);

export interface ConvertOffer {
  event: Event;
  /** Free NO shares held, by market id, in the event's display order. */
  held: Array<{ market: MarketItem; free: bigint }>;
}

/** Races where the user holds free NO on two or more open outcomes. */
async function offersFor(positions: Position[]): Promise<ConvertOffer[]> {
  const no = positions.filter((p) => p.outcome === "NO" && p.status === "open" && freeOf(p) > 0n);
  if (no.length < 2) return [];
  const markets = await Promise.all(no.map((p) => client.markets.get(p.marketId)));
  const byEvent = new Map<string, string[]>();
  for (const m of markets) if (m.status === "open") byEvent.set(m.eventId, [...(byEvent.get(m.eventId) ?? []), m.id]);
  const candidates = [...byEvent].filter(([, ids]) => ids.length >= 2).map(([id]) => id);
  const events = await Promise.all(candidates.map((id) => client.events.get(id)));
  const free = new Map(no.map((p) => [p.marketId, freeOf(p)]));
  return events
    .filter((e) => e.mutuallyExclusive)
    .map((event) => ({
      event,
      held: event.markets.filter((m) => m.status === "open" && free.has(m.id)).map((market) => ({ market, free: free.get(market.id)! })),
    }))
    .filter((o) => o.held.length >= 2);
}

const label = (m: Pick<MarketItem, "outcomeLabel" | "title">) => m.outcomeLabel ?? m.title;

/** What converting `quantity` NO of each chosen market gives: dollars and YES of the other open outcomes. */
export function conversionOf(event: Pick<Event, "markets">, chosen: string[], quantity: bigint) {
  const others = event.markets.filter((m) => m.status === "open" && !chosen.includes(m.id));
  return { cash: BigInt(Math.max(chosen.length - 1, 0)) * quantity, yes: others };
}

function ConvertForm({ offer, onDone }: { offer: ConvertOffer; onDone: (text: string) => void }) {
  const { event, held } = offer;
  const [chosen, setChosen] = useState<string[]>(held.map((h) => h.market.id));
  const most = held
    .filter((h) => chosen.includes(h.market.id))
    .reduce<bigint | null>((a, h) => (a === null || h.free < a ? h.free : a), null);
  const [amount, setAmount] = useState("");
  const [review, setReview] = useState<{ marketIds: string[]; quantity: bigint } | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [confirm, state] = useAction(async () => {
    if (!review) return;
    const r = await client.events.convert(event.id, { marketIds: review.marketIds, quantity: review.quantity.toString() });
    const names = (ids: string[]) => ids.map((id) => label(event.markets.find((m) => m.id === id) ?? { outcomeLabel: null, title: id }));
    onDone(
      `Converted ${shareCount(r.quantity)} NO of ${names(r.marketIds).join(", ")}: ${dollars(r.cashCredited)} added to your balance` +
        (r.yesReceived.length ? ` and ${shareCount(r.quantity)} YES of ${names(r.yesReceived.map((y) => y.marketId)).join(", ")}.` : "."),
    );
    setReview(null);
    setAmount("");
    portfolioPulse.fire();
  });
  const toggle = (id: string, on: boolean) => {
    setReview(null);
    setChosen((c) => (on ? held.map((h) => h.market.id).filter((x) => x === id || c.includes(x)) : c.filter((x) => x !== id)));
  };
  const prepare = () => {
    if (!chosen.length) return setInvalid("Choose at least one outcome whose NO you give up.");
    let q: bigint;
    try {
      q = toMicroBigInt(amount || "0", "Shares");
    } catch {
      return setInvalid("Enter the number of shares, e.g. 5 or 2.5.");
    }
    if (q <= 0n) return setInvalid("Enter how many NO shares of each chosen outcome to convert.");
    if (most !== null && q > most) return setInvalid(`You hold ${shareCount(most)} free NO shares of every chosen outcome at most.`);
    setInvalid(null);
    setReview({ marketIds: chosen, quantity: q });
  };
  const preview = review && conversionOf(event, review.marketIds, review.quantity);
  const fid = (s: string) => `convert-${event.id}-${s}`;
  return (
    <form
      class="convert"
      data-testid="convert-form"
      data-event={event.id}
      aria-label={`Convert NO shares of ${event.title}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (review) confirm();
        else prepare();
      }}
    >
      <h3>
        <a href={pathFor("event", { id: event.id })}>{event.title}</a>
      </h3>
      <fieldset class="plain">
        <legend>Give up NO of</legend>
        {held.map((h) => (
          <label class="check" key={h.market.id}>
            <input
              type="checkbox"
              name="market"
              value={h.market.id}
              checked={chosen.includes(h.market.id)}
              onChange={(e) => toggle(h.market.id, e.currentTarget.checked)}
            />
            <span>
              {label(h.market)} <span class="muted small">({shareCount(h.free)} NO free)</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for={fid("shares")}>Shares of each</label>
        <div class="with-button">
          <input
            id={fid("shares")}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            placeholder="0"
            onInput={(e) => {
              setAmount(e.currentTarget.value);
              setReview(null);
              setInvalid(null);
            }}
          />
          {most !== null && (
            <button
              type="button"
              aria-label="Max: all the free NO shares the chosen outcomes have in common"
              onClick={() => {
                setAmount(shareCount(most).replace(/,/g, ""));
                setReview(null);
              }}
            >
              Max
            </button>
          )}
        </div>
      </div>
      <ErrorText error={invalid ? { text: invalid } : null} />
      {preview && review && (
        <div class="review" role="region" aria-label="Review" data-testid="convert-review">
          <dl>
            <dt>You give up</dt>
            <dd>
              {shareCount(review.quantity)} NO of each of{" "}
              {review.marketIds.map((id) => label(event.markets.find((m) => m.id === id)!)).join(", ")}
            </dd>
            <dt>You get</dt>
            <dd>
              <strong data-testid="convert-cash">{dollars(preview.cash)}</strong>
              {preview.yes.length > 0 && (
                <>
                  {" "}
                  and{" "}
                  <span data-testid="convert-yes">
                    {shareCount(review.quantity)} YES of each of {preview.yes.map(label).join(", ")}
                  </span>
                </>
              )}
            </dd>
          </dl>
          <p class="muted small">
            At most one outcome of this race wins, so {review.marketIds.length - 1} of every {review.marketIds.length} NO shares you give up
            would pay out anyway: that part is paid now, the rest becomes YES of the other outcomes.
          </p>
        </div>
      )}
      <ErrorText error={state.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={state.pending}>
          {review ? "Confirm convert" : "Review"}
        </button>
        {review && (
          <button type="button" onClick={() => setReview(null)}>
            Change
          </button>
        )}
      </div>
    </form>
  );
}

/** The Convert section of the portfolio: one form per race where it applies, nothing otherwise. */
export function ConvertSection({ positions }: { positions: Position[] }) {
  // Positions are refetched often; the races are looked up again only when the NO held changes.
  const key = useMemo(
    () =>
      positions
        .filter((p) => p.outcome === "NO")
        .map((p) => `${p.marketId}:${freeOf(p)}`)
        .sort()
        .join(","),
    [positions],
  );
  const { data } = useLoad<ConvertOffer[]>(() => offersFor(positions), [key]);
  // Said here: the form goes once the NO left no longer qualifies.
  const [done, setDone] = useState<string | null>(null);
  if (!data?.length && !done) return null;
  return (
    <Section title="Convert" id="convert">
      <Done text={done} testid="convert-result" />
      <p class="muted">
        NO on several outcomes of one race can be turned into dollars and YES of the race's other outcomes, with no trade and no price.
      </p>
      {data?.map((o) => (
        <ConvertForm key={o.event.id} offer={o} onDone={setDone} />
      ))}
    </Section>
  );
}
