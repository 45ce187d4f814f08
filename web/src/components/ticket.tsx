/**
 * The order ticket: market (smart-routed between book and AMM), AMM only, or limit (the order
 * book only). Market and AMM orders show the exchange's quote before anything executes, with the
 * average price, what it costs and what it pays if the outcome wins; an amount in dollars is turned
 * into shares by quoting. Limit orders show where they rest or what they take from the book.
 * The ticket says why it cannot trade (no funds, no shares, market not open, trading paused)
 * instead of offering a button that can only fail.
 */
import { useEffect, useState } from "preact/hooks";
import type {
  Balance,
  MarketItem,
  OrderType,
  Outcome,
  PlacedOrder,
  PlaceOrderRequest,
  Quote,
  Side,
  TradeExecution,
} from "@pmx/client/models";
import type { BookState } from "@pmx/client/socket";
import { isLotQuantity, notional, priceToTick, tickToPriceNumber, toMicro, toMicroBigInt } from "@pmx/client/money";
import { client } from "../api";
import { cents, dollars, shareCount, signedDollars, usdt } from "../format";
import { pathFor } from "../router";
import { Done, ErrorText, Toggle, useAction } from "../ui";

export type TicketMode = "MARKET" | "AMM" | "LIMIT";
const MODES: readonly TicketMode[] = ["MARKET", "LIMIT", "AMM"];
const MODE_LABELS: Record<TicketMode, string> = { MARKET: "Market", LIMIT: "Limit", AMM: "AMM" };
/** Where each order type trades: said on the ticket so no price on the page is read for another venue. */
export const VENUE_OF: Record<TicketMode, string> = {
  MARKET: "Fills now at the best total price across the order book and the AMM (the router).",
  AMM: "Fills now against the market's automated market maker (AMM) only.",
  LIMIT: "Trades on the order book only, at your price or better; the AMM does not fill limit orders.",
};
export const VENUE_WORDS: Record<Quote["source"], string> = { CLOB: "order book", AMM: "AMM", HYBRID: "order book + AMM" };

/** Time in force of limit orders, as the server accepts them. */
export const LIMIT_TYPES: ReadonlyArray<{ value: OrderType; label: string; help: string }> = [
  { value: "GTC", label: "Good till cancelled (GTC)", help: "Rests on the book until it fills or you cancel it." },
  { value: "GTD", label: "Good till date (GTD)", help: "Rests on the book until it fills, you cancel it, or the time you set." },
  { value: "FOK", label: "Fill or kill (FOK)", help: "Fills completely at once at your price or better, or nothing happens." },
  { value: "FAK", label: "Fill and kill (FAK)", help: "Fills what it can at once at your price or better; the rest is cancelled." },
];

const LOT_MICRO = 100n;

export interface TicketPreset {
  side?: Side;
  outcome?: Outcome;
  price?: string;
  mode?: TicketMode;
  /** Changes on every preset so the same values can be applied twice. */
  nonce: number;
}

type Unit = "SHARES" | "USD";

interface Form {
  mode: TicketMode;
  side: Side;
  outcome: Outcome;
  unit: Unit;
  amount: string;
  price: string;
  orderType: OrderType;
  postOnly: boolean;
  /** datetime-local value (the viewer's time zone) for GTD. */
  expires: string;
}

type Review = { kind: "quote"; quote: Quote; quantity: string } | { kind: "limit"; body: PlaceOrderRequest; locks: bigint };

function checkedQuantity(q: string): string {
  const micro = toMicro(q.trim() || "0", "quantity");
  if (!isLotQuantity(micro)) throw new RangeError("Quantity must be more than 0, in steps of 0.0001 share.");
  return micro;
}

const floorLot = (q: bigint) => q - (q % LOT_MICRO);

/** A datetime-local value an hour from now, to the minute. */
function inAnHour(): string {
  const d = new Date(Date.now() + 3_600_000);
  d.setSeconds(0, 0);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** POST /orders body of the ticket's limit order. */
export function limitRequest(marketId: string, f: Form): PlaceOrderRequest {
  const tick = priceToTick(f.price.trim() || "0");
  const body: PlaceOrderRequest = {
    marketId,
    side: f.side,
    outcome: f.outcome,
    orderType: f.orderType,
    price: tickToPriceNumber(tick),
    quantity: Number(checkedQuantity(f.amount)),
  };
  if (f.orderType === "GTD") {
    const at = new Date(f.expires);
    if (!f.expires || Number.isNaN(at.getTime())) throw new RangeError("Choose when the order expires.");
    if (at.getTime() < Date.now() + 5_000) throw new RangeError("The expiry must be in the future.");
    body.expiresAt = at.toISOString();
  }
  if (f.postOnly && (f.orderType === "GTC" || f.orderType === "GTD")) body.postOnly = true;
  return body;
}

/**
 * Shares a dollar amount buys now: quote a guess, scale by what it cost, and step down until the
 * quoted cost plus fee fits the amount (the quote is the router's own answer, so the review shows it).
 */
async function sharesForDollars(
  marketId: string,
  f: Pick<Form, "side" | "outcome">,
  budget: bigint,
  venue: "AUTO" | "AMM",
  guessPrice: number,
): Promise<{ quantity: string; quote: Quote }> {
  if (budget < 10_000n) throw new RangeError("Enter at least $0.01.");
  let q = floorLot((budget * 100n) / BigInt(Math.max(1, Math.min(99, Math.round(guessPrice * 100)))));
  let best: { quantity: string; quote: Quote } | null = null;
  for (let i = 0; i < 5 && q > 0n; i++) {
    const quote = await client.markets.quote(marketId, { side: f.side, outcome: f.outcome, quantity: String(q), venue });
    const pays = BigInt(quote.estimatedCost) + BigInt(quote.fee);
    if (pays <= budget) {
      best = { quantity: String(q), quote };
      // Close enough: within a cent of the amount.
      if (budget - pays < 10_000n) break;
    }
    const next = floorLot((q * budget) / (pays > 0n ? pays : 1n));
    q = pays <= budget ? (next > q ? next : q) : next < q ? next : q - LOT_MICRO;
    if (best && BigInt(best.quantity) === q) break;
  }
  if (!best) throw new RangeError("That amount buys less than one lot at the current prices.");
  return best;
}

function executionText(f: Form, r: TradeExecution): string {
  return `${f.side === "BUY" ? "Bought" : "Sold"} ${shareCount(r.filledQuantity)} ${f.outcome} at ${cents(r.avgPrice)} average (${r.venue}): ${dollars(r.totalCost)}, fee ${dollars(r.fee)}.`;
}

function orderText(o: PlacedOrder): string {
  const what = `${o.side} ${shareCount(o.quantity)} ${o.outcome} at ${cents(o.price)}`;
  if (o.status === "filled") return `Filled: ${what}, average ${cents(o.avgPrice)}, fee ${dollars(o.fee)}.`;
  if (o.status === "partially_filled")
    return `Partly filled: ${what}; ${shareCount(o.filledQuantity)} filled, ${shareCount(o.remainingQuantity)} resting on the book.`;
  if (o.status === "cancelled") return `Not filled: ${what}; ${shareCount(o.filledQuantity)} filled, the rest cancelled.`;
  return `Order open: ${what}, resting on the book.`;
}

/** The outcome's side of the book from its YES view: NO asks are YES bids at 1 - p, and the reverse. */
export function bookSide(book: BookState | null, outcome: Outcome, side: "asks" | "bids"): Array<{ tick: number; quantity: bigint }> {
  if (!book?.synced) return [];
  const levels = outcome === "YES" ? book[side] : book[side === "asks" ? "bids" : "asks"];
  return levels.map((l) => {
    const t = priceToTick(l.price);
    return { tick: outcome === "YES" ? t : 100 - t, quantity: BigInt(l.quantity) };
  });
}

/** What a limit order meets on the book now (top levels): how much fills at once and where the rest rests. */
function limitPlacement(book: BookState | null, f: Form, tick: number, quantity: bigint): string {
  if (!book?.synced) return "The order book is loading.";
  const against = bookSide(book, f.outcome, f.side === "BUY" ? "asks" : "bids");
  const crosses = against.filter((l) => (f.side === "BUY" ? l.tick <= tick : l.tick >= tick));
  const available = crosses.reduce((n, l) => n + l.quantity, 0n);
  const best = against[0];
  const bestText = best
    ? `best ${f.side === "BUY" ? "offer" : "bid"} ${cents(best.tick / 100)}`
    : `no ${f.side === "BUY" ? "offers" : "bids"}`;
  if (available === 0n) return `Rests on the book at ${cents(tick / 100)} (${bestText} now); nothing fills at once.`;
  const now = available >= quantity ? quantity : available;
  const rest = quantity - now;
  return `Takes ${shareCount(now)} shares from the book at once (${bestText})${rest > 0n ? `; ${shareCount(rest)} rest at ${cents(tick / 100)}` : ""}.`;
}

export function Ticket({
  market,
  preset,
  onDone,
  paused = null,
  book = null,
  balance = null,
  freeShares = { YES: 0n, NO: 0n },
}: {
  market: MarketItem;
  preset: TicketPreset | null;
  onDone: () => void;
  /** Why the market's trading mode takes no new orders from this ticket (then it is disabled). */
  paused?: string | null;
  /** The YES view of the book (the NO view is its mirror), to say where a limit order lands. */
  book?: BookState | null;
  balance?: Balance | null;
  /** Shares of each outcome not offered in open orders. */
  freeShares?: Record<Outcome, bigint>;
}) {
  const [f, setF] = useState<Form>({
    mode: "MARKET",
    side: "BUY",
    outcome: "YES",
    unit: "SHARES",
    amount: "10",
    price: market.buyYesPrice ?? "0.50",
    orderType: "GTC",
    postOnly: false,
    expires: inAnHour(),
  });
  const [review, setReview] = useState<Review | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [inputError, setInputError] = useState<string | null>(null);

  useEffect(() => {
    if (!preset) return;
    setF((cur) => ({
      ...cur,
      ...(preset.side && { side: preset.side }),
      ...(preset.outcome && { outcome: preset.outcome }),
      ...(preset.price && { price: preset.price }),
      ...(preset.mode && { mode: preset.mode }),
    }));
    setReview(null);
  }, [preset?.nonce]);

  const edit = (patch: Partial<Form>) => {
    setF((cur) => ({ ...cur, ...patch }));
    setReview(null);
    setResult(null);
    setInputError(null);
  };

  const dollarsIn = f.unit === "USD" && f.side === "BUY" && f.mode !== "LIMIT";
  const available = balance ? BigInt(balance.available) : null;
  const free = freeShares[f.outcome];

  const [prepare, prepareState, clearPrepare] = useAction(async () => {
    setResult(null);
    setInputError(null);
    let r: Review;
    try {
      if (f.mode === "LIMIT") {
        const body = limitRequest(market.id, f);
        r = { kind: "limit", body, locks: f.side === "BUY" ? notional(String(body.quantity), priceToTick(f.price.trim())) : 0n };
      } else {
        const venue = f.mode === "AMM" ? "AMM" : "AUTO";
        if (dollarsIn) {
          const guess = Number((f.outcome === "YES" ? market.buyYesPrice : market.buyNoPrice) ?? "0.5");
          const { quantity, quote } = await sharesForDollars(market.id, f, toMicroBigInt(f.amount.trim() || "0", "amount"), venue, guess);
          r = { kind: "quote", quantity, quote };
        } else {
          const quantity = checkedQuantity(f.amount);
          r = {
            kind: "quote",
            quantity,
            quote: await client.markets.quote(market.id, { side: f.side, outcome: f.outcome, quantity, venue }),
          };
        }
      }
    } catch (err) {
      if (err instanceof RangeError) {
        setInputError(err.message);
        return;
      }
      throw err;
    }
    setReview(r);
  });

  const [confirm, confirmState] = useAction(async () => {
    if (!review) return;
    if (review.kind === "limit") setResult(orderText(await client.orders.place(review.body)));
    else {
      const body = { marketId: market.id, side: f.side, outcome: f.outcome, quantity: review.quantity };
      setResult(executionText(f, f.mode === "AMM" ? await client.trade.amm(body) : await client.trade.market(body)));
    }
    setReview(null);
    onDone();
  });

  // Why nothing can be sent now (the first reason that applies), or null.
  const blocked =
    market.status !== "open"
      ? `This market is ${market.status}: no new orders.`
      : paused
        ? paused
        : f.side === "BUY" && available !== null && available === 0n
          ? "No funds to buy with: add USDT in your wallet first."
          : f.side === "SELL" && free === 0n
            ? `You hold no free ${f.outcome} shares to sell.`
            : null;
  const reviewCost = review
    ? review.kind === "quote"
      ? f.side === "BUY"
        ? BigInt(review.quote.estimatedCost) + BigInt(review.quote.fee)
        : 0n
      : review.locks
    : 0n;
  const reviewShares = review ? BigInt(review.kind === "quote" ? review.quantity : String(review.body.quantity)) : 0n;
  const cannotConfirm =
    review && f.side === "BUY" && available !== null && reviewCost > available
      ? `This costs ${dollars(reviewCost)}; you have ${dollars(available)} available.`
      : review && f.side === "SELL" && reviewShares > free
        ? `You hold ${shareCount(free)} free ${f.outcome} shares.`
        : null;

  const setMax = () => {
    if (f.side === "SELL") return edit({ unit: "SHARES", amount: usdt(free).replace(/\.?0+$/, "") });
    if (available === null) return;
    if (f.mode === "LIMIT") {
      let tick = 0;
      try {
        tick = priceToTick(f.price.trim() || "0");
      } catch {
        return setInputError("Enter a limit price first.");
      }
      const q = floorLot((available * 100n) / BigInt(tick));
      return edit({ amount: usdt(q - (q % 10_000n)).replace(/\.?0+$/, "") || "0" });
    }
    edit({ unit: "USD", amount: usdt(available - (available % 10_000n)) });
  };

  const open = !blocked;
  const id = (k: string) => `ticket-${k}`;
  const limitTick = (() => {
    try {
      return f.mode === "LIMIT" ? priceToTick(f.price.trim() || "0") : null;
    } catch {
      return null;
    }
  })();
  return (
    <form
      class="ticket"
      aria-label="Order ticket"
      aria-describedby={blocked ? id("blocked") : undefined}
      onSubmit={(e) => {
        e.preventDefault();
        if (!open) return;
        if (review) {
          if (!cannotConfirm) confirm();
        } else prepare();
      }}
    >
      {paused && (
        <p class="paused" role="status" data-testid="ticket-paused">
          {paused}
        </p>
      )}
      <fieldset class="plain" disabled={!!paused}>
        <Toggle label="Order type" options={MODES} value={f.mode} onChange={(mode) => edit({ mode })} labels={MODE_LABELS} />
        <p class="muted small" data-testid="ticket-venue">
          {VENUE_OF[f.mode]}
        </p>
        <div class="row">
          <Toggle
            label="Side"
            options={["BUY", "SELL"] as const}
            value={f.side}
            onChange={(side) => edit({ side })}
            labels={{ BUY: "Buy", SELL: "Sell" }}
          />
          <Toggle label="Outcome" options={["YES", "NO"] as const} value={f.outcome} onChange={(outcome) => edit({ outcome })} />
        </div>
        {f.mode !== "LIMIT" && f.side === "BUY" && (
          <Toggle
            label="Amount in"
            options={["SHARES", "USD"] as const}
            value={f.unit}
            onChange={(unit) => edit({ unit, amount: unit === "USD" ? "10.00" : "10" })}
            labels={{ SHARES: "Shares", USD: "Dollars" }}
          />
        )}
        <div class="field">
          <label for={id("qty")}>{dollarsIn ? "Amount ($)" : "Shares"}</label>
          <div class="with-button">
            <input
              id={id("qty")}
              inputMode="decimal"
              autoComplete="off"
              value={f.amount}
              onInput={(e) => edit({ amount: e.currentTarget.value })}
              aria-describedby={id("qty-help")}
            />
            <button
              type="button"
              onClick={setMax}
              aria-label={f.side === "BUY" ? "Max: all my available balance" : "Max: all my free shares"}
            >
              Max
            </button>
          </div>
          <span id={id("qty-help")} class="muted small" data-testid="ticket-funds">
            {f.side === "BUY"
              ? `Available ${available === null ? "…" : dollars(available)}. Each winning share pays $1.00.`
              : `You hold ${shareCount(free)} free ${f.outcome} shares. Each winning share pays $1.00.`}
          </span>
        </div>
        {f.mode === "LIMIT" && (
          <>
            <div class="field">
              <label for={id("price")}>Limit price (USDT per share)</label>
              <input
                id={id("price")}
                inputMode="decimal"
                autoComplete="off"
                value={f.price}
                onInput={(e) => edit({ price: e.currentTarget.value })}
                aria-describedby={id("price-help")}
              />
              <span id={id("price-help")} class="muted small">
                {limitTick ? `${cents(limitTick / 100)} a share, a ${limitTick}% chance. ` : ""}0.01 to 0.99 in steps of 0.01.
              </span>
            </div>
            {limitTick !== null && (
              <p class="muted small" data-testid="limit-placement">
                {(() => {
                  try {
                    return limitPlacement(book, f, limitTick, BigInt(checkedQuantity(f.amount)));
                  } catch {
                    return "";
                  }
                })()}
              </p>
            )}
            <fieldset class="options">
              <legend>Options</legend>
              <div class="field">
                <label for={id("tif")}>Time in force</label>
                <select
                  id={id("tif")}
                  value={f.orderType}
                  onChange={(e) => edit({ orderType: e.currentTarget.value as OrderType })}
                  aria-describedby={id("tif-help")}
                >
                  {LIMIT_TYPES.map((t) => (
                    <option key={t.value} value={t.value}>
                      {t.label}
                    </option>
                  ))}
                </select>
                <span id={id("tif-help")} class="muted small">
                  {LIMIT_TYPES.find((t) => t.value === f.orderType)?.help}
                </span>
              </div>
              {f.orderType === "GTD" && (
                <div class="field">
                  <label for={id("expires")}>Expires at</label>
                  <input
                    id={id("expires")}
                    type="datetime-local"
                    value={f.expires}
                    onInput={(e) => edit({ expires: e.currentTarget.value })}
                  />
                </div>
              )}
              {(f.orderType === "GTC" || f.orderType === "GTD") && (
                <label class="check">
                  <input type="checkbox" checked={f.postOnly} onChange={(e) => edit({ postOnly: e.currentTarget.checked })} /> Post only
                  (refused if any part would fill at once)
                </label>
              )}
            </fieldset>
          </>
        )}
        <ErrorText error={inputError ? { text: inputError } : prepareState.error} />
        {review && (
          <div class="review" role="region" aria-label="Review" data-testid="review">
            {review.kind === "quote" ? (
              <dl>
                <dt>Quote</dt>
                <dd>
                  {f.side} <span data-testid="quote-shares">{shareCount(review.quantity)}</span> {f.outcome}
                </dd>
                <dt>Average price</dt>
                <dd data-testid="quote-price">{cents(review.quote.estimatedPrice)}</dd>
                <dt>{f.side === "BUY" ? "Cost" : "Proceeds"}</dt>
                <dd>{dollars(review.quote.estimatedCost)}</dd>
                <dt>Fee</dt>
                <dd>{dollars(review.quote.fee)}</dd>
                {f.side === "BUY" ? (
                  <>
                    <dt>You pay</dt>
                    <dd data-testid="quote-total">{dollars(reviewCost)}</dd>
                    <dt>To win</dt>
                    <dd>
                      <strong data-testid="to-win">{dollars(BigInt(review.quantity))}</strong>{" "}
                      <span class="muted small">
                        if {f.outcome} wins ({signedDollars(BigInt(review.quantity) - reviewCost)} profit)
                      </span>
                    </dd>
                  </>
                ) : (
                  <>
                    <dt>You receive</dt>
                    <dd data-testid="quote-total">{dollars(BigInt(review.quote.estimatedCost) - BigInt(review.quote.fee))}</dd>
                  </>
                )}
                <dt>Venue</dt>
                <dd>
                  {VENUE_WORDS[review.quote.source]} (<span data-testid="quote-venue">{review.quote.source}</span>)
                </dd>
              </dl>
            ) : (
              <dl>
                <dt>Order</dt>
                <dd>
                  {review.body.orderType}
                  {review.body.postOnly ? " post-only" : ""} {review.body.side} {shareCount(String(review.body.quantity))}{" "}
                  {review.body.outcome} at {cents(review.body.price)}
                  {review.body.expiresAt && `, until ${new Date(review.body.expiresAt).toLocaleString()}`}
                </dd>
                <dt>{review.body.side === "BUY" ? "Locks" : "Offers"}</dt>
                <dd>
                  {review.body.side === "BUY"
                    ? `${dollars(review.locks)}, plus the taker fee if it fills at once`
                    : `${shareCount(String(review.body.quantity))} ${review.body.outcome} shares`}
                </dd>
                {review.body.side === "BUY" && (
                  <>
                    <dt>To win</dt>
                    <dd>
                      <strong data-testid="to-win">{dollars(BigInt(review.body.quantity))}</strong>{" "}
                      <span class="muted small">if it fills and {review.body.outcome} wins</span>
                    </dd>
                  </>
                )}
              </dl>
            )}
            <p class="muted small">Quotes are estimates of this moment; the trade fills at the prices when it reaches the exchange.</p>
          </div>
        )}
        <ErrorText error={confirmState.error} />
        <Done text={result} testid="ticket-result" />
        {((blocked && blocked !== paused) || cannotConfirm) && (
          <p class="paused" id={id("blocked")} data-testid="ticket-blocked">
            {blocked ?? cannotConfirm}{" "}
            {(blocked?.startsWith("No funds") || cannotConfirm?.startsWith("This costs")) && <a href={pathFor("wallet")}>Add funds</a>}
          </p>
        )}
        <div class="actions">
          {review ? (
            <>
              <button type="submit" class="primary" disabled={confirmState.pending || !open || !!cannotConfirm}>
                {confirmState.pending ? "Sending…" : `Confirm ${f.side === "BUY" ? "buy" : "sell"}`}
              </button>
              <button
                type="button"
                onClick={() => {
                  setReview(null);
                  clearPrepare();
                }}
              >
                Change
              </button>
            </>
          ) : (
            <button type="submit" class="primary" disabled={prepareState.pending || !open}>
              {prepareState.pending ? "Getting a quote…" : f.mode === "LIMIT" ? "Review order" : "Get quote"}
            </button>
          )}
        </div>
      </fieldset>
    </form>
  );
}
