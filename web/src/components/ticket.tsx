/**
 * The order ticket: market (smart-routed between book and AMM), AMM only, or limit. Market and
 * AMM orders show the exchange's quote before anything executes; limit orders show what they lock.
 *
 * Limit options are data: LIMIT_TYPES lists the time-in-force choices and `limitRequest` builds
 * the body, so the trader-API options (GTD with an expiry, FAK, post-only, a client order id) slot
 * in as entries and fields of the "Options" group without changing the flow.
 */
import { useEffect, useState } from "preact/hooks";
import type { MarketItem, OrderType, Outcome, PlacedOrder, PlaceOrderRequest, Quote, Side, TradeExecution } from "@pmx/client/models";
import { isLotQuantity, notional, priceToTick, tickToPriceNumber, toMicro } from "@pmx/client/money";
import { client } from "../api";
import { shares, usdt } from "../format";
import { Done, ErrorText, Toggle, useAction } from "../ui";

export type TicketMode = "MARKET" | "AMM" | "LIMIT";
const MODES: readonly TicketMode[] = ["MARKET", "LIMIT", "AMM"];
const MODE_LABELS: Record<TicketMode, string> = { MARKET: "Market", LIMIT: "Limit", AMM: "AMM" };

/** Time in force of limit orders, as the server accepts them. */
export const LIMIT_TYPES: ReadonlyArray<{ value: OrderType; label: string; help: string }> = [
  { value: "GTC", label: "Good till cancelled (GTC)", help: "Rests on the book until it fills or you cancel it." },
  { value: "FOK", label: "Fill or kill (FOK)", help: "Fills completely at once at your price or better, or nothing happens." },
];

export interface TicketPreset {
  side?: Side;
  outcome?: Outcome;
  price?: string;
  mode?: TicketMode;
  /** Changes on every preset so the same values can be applied twice. */
  nonce: number;
}

interface Form {
  mode: TicketMode;
  side: Side;
  outcome: Outcome;
  quantity: string;
  price: string;
  orderType: OrderType;
}

type Review = { kind: "quote"; quote: Quote; quantity: string } | { kind: "limit"; body: PlaceOrderRequest; locks: bigint };

function checkedQuantity(q: string): string {
  const micro = toMicro(q.trim() || "0", "quantity");
  if (!isLotQuantity(micro)) throw new RangeError("Quantity must be more than 0, in steps of 0.0001 share.");
  return micro;
}

/** POST /orders body of the ticket's limit order. */
export function limitRequest(marketId: string, f: Form): PlaceOrderRequest {
  const tick = priceToTick(f.price.trim() || "0");
  return {
    marketId,
    side: f.side,
    outcome: f.outcome,
    orderType: f.orderType,
    price: tickToPriceNumber(tick),
    quantity: Number(checkedQuantity(f.quantity)),
  };
}

function executionText(f: Form, r: TradeExecution): string {
  return `${f.side === "BUY" ? "Bought" : "Sold"} ${shares(r.filledQuantity)} ${f.outcome} at ${r.avgPrice} average (${r.venue}): ${usdt(r.totalCost)} USDT, fee ${usdt(r.fee)} USDT.`;
}

function orderText(o: PlacedOrder): string {
  const what = `${o.side} ${shares(o.quantity)} ${o.outcome} at ${o.price}`;
  if (o.status === "filled") return `Filled: ${what}, average ${o.avgPrice}, fee ${usdt(o.fee)} USDT.`;
  if (o.status === "partially_filled")
    return `Partly filled: ${what}; ${shares(o.filledQuantity)} filled, ${shares(o.remainingQuantity)} resting on the book.`;
  return `Order open: ${what}, resting on the book.`;
}

export function Ticket({
  market,
  preset,
  onDone,
  paused = null,
}: {
  market: MarketItem;
  preset: TicketPreset | null;
  onDone: () => void;
  /** Why the market's trading mode takes no new orders from this ticket (then it is disabled). */
  paused?: string | null;
}) {
  const [f, setF] = useState<Form>({
    mode: "MARKET",
    side: "BUY",
    outcome: "YES",
    quantity: "10",
    price: market.buyYesPrice ?? "0.50",
    orderType: "GTC",
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

  const [prepare, prepareState, clearPrepare] = useAction(async () => {
    setResult(null);
    setInputError(null);
    let r: Review;
    try {
      if (f.mode === "LIMIT") {
        const body = limitRequest(market.id, f);
        r = { kind: "limit", body, locks: f.side === "BUY" ? notional(String(body.quantity), priceToTick(f.price.trim())) : 0n };
      } else {
        const quantity = checkedQuantity(f.quantity);
        r = {
          kind: "quote",
          quantity,
          quote: await client.markets.quote(market.id, {
            side: f.side,
            outcome: f.outcome,
            quantity,
            venue: f.mode === "AMM" ? "AMM" : "AUTO",
          }),
        };
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

  const open = market.status === "open" && !paused;
  const id = (k: string) => `ticket-${k}`;
  return (
    <form
      class="ticket"
      aria-label="Order ticket"
      aria-describedby={paused ? id("paused") : undefined}
      onSubmit={(e) => {
        e.preventDefault();
        if (!open) return;
        if (review) confirm();
        else prepare();
      }}
    >
      {paused && (
        <p class="paused" id={id("paused")} role="status" data-testid="ticket-paused">
          {paused}
        </p>
      )}
      <fieldset class="plain" disabled={!!paused}>
        <Toggle label="Order type" options={MODES} value={f.mode} onChange={(mode) => edit({ mode })} labels={MODE_LABELS} />
        <p class="muted small">
          {f.mode === "MARKET" && "Fills now at the best total price across the order book and the AMM."}
          {f.mode === "AMM" && "Fills now against the market's automated market maker only."}
          {f.mode === "LIMIT" && "Trades only at your price or better."}
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
        <div class="field">
          <label for={id("qty")}>Shares</label>
          <input
            id={id("qty")}
            inputMode="decimal"
            autoComplete="off"
            value={f.quantity}
            onInput={(e) => edit({ quantity: e.currentTarget.value })}
            aria-describedby={id("qty-help")}
          />
          <span id={id("qty-help")} class="muted small">
            Each winning share pays 1 USDT.
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
                0.01 to 0.99 in steps of 0.01.
              </span>
            </div>
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
                  {f.side} {shares(review.quantity)} {f.outcome}
                </dd>
                <dt>Average price</dt>
                <dd data-testid="quote-price">{review.quote.estimatedPrice}</dd>
                <dt>{f.side === "BUY" ? "Cost" : "Proceeds"}</dt>
                <dd>{usdt(review.quote.estimatedCost)} USDT</dd>
                <dt>Fee</dt>
                <dd>{usdt(review.quote.fee)} USDT</dd>
                <dt>Venue</dt>
                <dd data-testid="quote-venue">{review.quote.source}</dd>
              </dl>
            ) : (
              <dl>
                <dt>Order</dt>
                <dd>
                  {review.body.orderType} {review.body.side} {shares(String(review.body.quantity))} {review.body.outcome} at{" "}
                  {f.price.trim()}
                </dd>
                <dt>{review.body.side === "BUY" ? "Locks" : "Offers"}</dt>
                <dd>
                  {review.body.side === "BUY"
                    ? `${usdt(review.locks)} USDT, plus the taker fee if it fills at once`
                    : `${shares(String(review.body.quantity))} ${review.body.outcome} shares`}
                </dd>
              </dl>
            )}
            <p class="muted small">Quotes are estimates of this moment; the trade fills at the prices when it reaches the exchange.</p>
          </div>
        )}
        <ErrorText error={confirmState.error} />
        <Done text={result} testid="ticket-result" />
        <div class="actions">
          {review ? (
            <>
              <button type="submit" class="primary" disabled={confirmState.pending || !open}>
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
      {market.status !== "open" && <p class="muted">This market is {market.status}: no new orders.</p>}
    </form>
  );
}
