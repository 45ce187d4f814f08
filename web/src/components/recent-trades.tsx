/**
 * Recent trades on the market page (web/src/tape.ts says what a row is): the first page from
 * GET /markets/:id/trades, then each `trade` message of the market channel prepended as its own
 * row, without a reload. The page subscribes to the market channel; after a reconnection the
 * first page is read again (messages sent while the socket was down are lost).
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { ServerMessage, TradeUpdate } from "@pmx/client/socket";
import { client } from "../api";
import { cents, shareCount } from "../format";
import { ownTrades, socket } from "../live";
import { markMine, prepend, rowOf, TAPE_ROWS, type OwnTrade, type TapeRow } from "../tape";
import { describeError } from "../errors";
import { ErrorText, type ActionState } from "../ui";
import { useRefreshOnReconnect } from "./lifecycle";

const time = (r: TapeRow) => new Date(r.at).toLocaleTimeString();

export function RecentTrades({ marketId }: { marketId: string }) {
  const [rows, setRows] = useState<TapeRow[] | null>(null);
  const [error, setError] = useState<ActionState["error"]>(null);
  // The user's own trades here not matched to a row yet (they arrive with their rows).
  const own = useRef<OwnTrade[]>([]);
  const [reads, setReads] = useState(0);
  const reread = useCallback(() => setReads((n) => n + 1), []);
  useRefreshOnReconnect(reread);

  const show = useCallback((update: (r: TapeRow[]) => TapeRow[]) => {
    setRows((r) => {
      if (!r) return r;
      const marked = markMine(update(r), own.current, Date.now());
      own.current = marked.own;
      return marked.rows;
    });
  }, []);

  useEffect(() => {
    own.current = [];
    const hear = (t: TradeUpdate) => {
      if (t.marketId !== marketId) return;
      own.current.push({ side: t.side, outcome: t.outcome, shares: Number(t.filledQuantity), heard: Date.now() });
      show((r) => r);
    };
    // Trades heard before the first page are in it: held only once it is shown.
    const tape = (m: ServerMessage) => {
      if (m.type === "trade" && m.data.marketId === marketId) show((r) => prepend(r, [rowOf(m.data, true)]));
    };
    ownTrades.add(hear);
    socket.on("message", tape);
    return () => {
      ownTrades.delete(hear);
      socket.off("message", tape);
    };
  }, [marketId, show]);

  useEffect(() => {
    let live = true;
    client.markets.trades(marketId, { limit: TAPE_ROWS }).then(
      (page) => {
        if (!live) return;
        setError(null);
        // Rows that came over the socket meanwhile stay (each execution once, newest first).
        const listed = page.items.map((t) => rowOf(t, false));
        setRows((r) => prepend(listed, r?.filter((x) => x.live) ?? []).sort((a, b) => b.at - a.at));
      },
      (err: unknown) => {
        if (!live) return;
        const d = describeError(err);
        setError({ text: d.text, detail: d.detail });
      },
    );
    return () => {
      live = false;
    };
  }, [marketId, reads]);

  return (
    <>
      <ErrorText error={error} />
      {rows && !rows.length && <p class="muted small">No trades yet.</p>}
      {rows && rows.length > 0 && (
        <table class="recent" data-testid="recent-trades">
          <caption class="sr-only">Recent trades, newest first: the taker's side and outcome, its price and shares</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Trade</th>
              <th scope="col" class="num">
                Price
              </th>
              <th scope="col" class="num">
                Shares
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr
                key={r.key}
                class={r.live ? "fresh" : "listed"}
                data-trade-id={r.key}
                data-side={r.side}
                data-outcome={r.outcome}
                data-price={r.price}
                data-shares={r.shares}
              >
                <td>
                  {time(r)}
                  {r.mine && (
                    <span class={`side ${r.mine.outcome.toLowerCase()}`} data-testid="recent-mine">
                      {" "}
                      you {r.mine.side === "BUY" ? "bought" : "sold"} {r.mine.outcome}
                    </span>
                  )}
                </td>
                <td class={`side ${r.outcome.toLowerCase()}`} data-testid="recent-trade">
                  {r.side === "BUY" ? "Buy" : "Sell"} {r.outcome}
                </td>
                <td class="num" data-testid="recent-price">
                  {cents(r.price)}
                </td>
                <td class="num">{shareCount(r.shares)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
