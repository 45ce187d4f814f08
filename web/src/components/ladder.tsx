/** The order-book ladder of one view (YES or NO): asks above, bids below, depth bars. */
import { useEffect, useState } from "preact/hooks";
import type { Outcome } from "@pmx/client/models";
import { priceToTick } from "@pmx/client/money";
import type { BookState } from "@pmx/client/socket";
import { cents, shares } from "../format";
import { socket } from "../live";

/** One book view over the socket: snapshot, then updates by sequence number (the SDK's BookSubscription). */
export function useBook(marketId: string, outcome: Outcome, onChange?: () => void): BookState | null {
  const [book, setBook] = useState<BookState | null>(null);
  useEffect(() => {
    setBook(null);
    // A change is an update after the first snapshot (the page fetched everything else with it).
    let synced = false;
    const sub = socket.subscribeBook(marketId, {
      outcome,
      onUpdate: (b) => {
        setBook(b);
        if (synced) onChange?.();
        synced ||= b.synced;
      },
    });
    sub.ready.catch(() => undefined);
    return () => sub.unsubscribe();
    // onChange is a stable callback of the page.
  }, [marketId, outcome]);
  return book;
}

export function Ladder({ book, outcome, onPick }: { book: BookState | null; outcome: Outcome; onPick?: (price: string) => void }) {
  if (!book?.synced)
    return (
      <p class="muted" role="status">
        Loading the order book…
      </p>
    );
  const asks = [...book.asks].reverse();
  const max = [...book.asks, ...book.bids].reduce((m, l) => (BigInt(l.quantity) > m ? BigInt(l.quantity) : m), 1n);
  const width = (q: string) => `${Number((BigInt(q) * 1000n) / max) / 10}%`;
  // In ticks (cents): exact.
  const spread = book.asks[0] && book.bids[0] ? priceToTick(book.asks[0].price) - priceToTick(book.bids[0].price) : null;
  const row = (kind: "ask" | "bid") => (l: BookState["asks"][number]) => (
    <tr key={`${kind}${l.price}`} class={kind} data-price={l.price}>
      <td>
        {onPick ? (
          <button type="button" class="link" onClick={() => onPick(l.price)} aria-label={`Use price ${cents(l.price)} in a limit order`}>
            {cents(l.price)}
          </button>
        ) : (
          cents(l.price)
        )}
      </td>
      <td class="num">
        <span class="depth" style={{ width: width(l.quantity) }} aria-hidden="true" />
        {shares(l.quantity)}
      </td>
      <td class="num">{l.numOrders}</td>
    </tr>
  );
  return (
    <table class="ladder" data-testid="ladder" data-seq={book.seq} data-outcome={outcome}>
      <caption class="sr-only">Order book, {outcome} view: asks then bids, best prices nearest the middle</caption>
      <thead>
        <tr>
          <th scope="col">Price</th>
          <th scope="col" class="num">
            Shares
          </th>
          <th scope="col" class="num">
            Orders
          </th>
        </tr>
      </thead>
      <tbody>
        {asks.length ? (
          asks.map(row("ask"))
        ) : (
          <tr>
            <td colSpan={3} class="muted">
              No asks
            </td>
          </tr>
        )}
        <tr class="spread">
          <td colSpan={3}>{spread === null ? "–" : `Spread ${spread}¢`}</td>
        </tr>
        {book.bids.length ? (
          book.bids.map(row("bid"))
        ) : (
          <tr>
            <td colSpan={3} class="muted">
              No bids
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
