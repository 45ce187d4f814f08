/**
 * Recent trades on the market page (web/src/tape.ts says what a row is): the first page from the
 * last hour's prints, then each new trade prepended as the market moves, without a reload.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Candle } from "@pmx/client/models";
import type { TradeUpdate } from "@pmx/client/socket";
import { client } from "../api";
import { cents, shareCount } from "../format";
import { ownTrades } from "../live";
import { firstPage, markMine, newPrints, prepend, TAPE_ROWS, type OwnTrade, type TapeRow } from "../tape";
import { describeError } from "../errors";
import { ErrorText, type ActionState } from "../ui";

const MOVE_WORDS = { up: "up", down: "down", same: "unchanged" } as const;

function time(r: TapeRow): string {
  return new Date(r.at).toLocaleTimeString(undefined, r.minute ? { hour: "2-digit", minute: "2-digit" } : undefined);
}

export function RecentTrades({ marketId, refresh }: { marketId: string; refresh: number }) {
  const [rows, setRows] = useState<TapeRow[] | null>(null);
  const [error, setError] = useState<ActionState["error"]>(null);
  // The hour's minutes as last read, and for which market.
  const read = useRef<{ marketId: string; candles: Candle[] } | null>(null);
  // The newest price shown (the next row's move is against it).
  const top = useRef<number | undefined>(undefined);
  // The user's own trades here whose print is not read yet (a few seconds at most).
  const mine = useRef<Array<OwnTrade & { heard: number }>>([]);
  useEffect(() => {
    mine.current = [];
    const hear = (t: TradeUpdate) => {
      if (t.marketId === marketId)
        mine.current.push({ side: t.side, outcome: t.outcome, shares: Number(t.filledQuantity), heard: Date.now() });
    };
    ownTrades.add(hear);
    return () => void ownTrades.delete(hear);
  }, [marketId]);
  useEffect(() => {
    let live = true;
    let again: ReturnType<typeof setTimeout> | undefined;
    const readOnce = (retry: boolean) =>
      client.markets.priceHistory(marketId, { interval: "1H", outcome: "YES" }).then(
        (h) => {
          if (!live) return;
          const prev = read.current?.marketId === marketId ? read.current.candles : null;
          read.current = { marketId, candles: h.candles };
          setError(null);
          if (!prev) {
            const page = firstPage(h.candles).slice(0, TAPE_ROWS);
            top.current = page[0]?.tick;
            mine.current = []; // already in this page
            return setRows(page);
          }
          const fresh = newPrints(prev, h.candles, Date.now(), top.current);
          // A move whose print was not recorded yet: read once more a little later.
          if (!fresh.length && retry) again = setTimeout(() => readOnce(false), 1500);
          if (!fresh.length) return;
          const { rows: marked, left } = markMine(fresh, mine.current);
          mine.current = left.filter((t) => Date.now() - t.heard < 5_000);
          top.current = marked[0].tick;
          setRows((r) => prepend(r ?? [], marked));
        },
        (err: unknown) => {
          if (!live) return;
          const d = describeError(err);
          setError({ text: d.text, detail: d.detail });
        },
      );
    readOnce(refresh > 0);
    return () => {
      live = false;
      clearTimeout(again);
    };
  }, [marketId, refresh]);
  return (
    <>
      <ErrorText error={error} />
      {rows && !rows.length && <p class="muted small">No trades in the last hour.</p>}
      {rows && rows.length > 0 && (
        <table class="recent" data-testid="recent-trades">
          <caption class="sr-only">Recent trades, newest first; rows with a minute only add up that minute's trades</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col" class="num">
                YES price
              </th>
              <th scope="col" class="num">
                Shares
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} class={r.minute ? "minute" : "fresh"} data-tick={r.tick} data-shares={r.shares}>
                <td>
                  {time(r)}
                  {r.mine && (
                    <span class={`side ${r.mine.outcome.toLowerCase()}`} data-testid="recent-mine">
                      {" "}
                      you {r.mine.side === "BUY" ? "bought" : "sold"} {r.mine.outcome}
                    </span>
                  )}
                </td>
                <td class={`num move-${r.move}`} data-testid="recent-price">
                  <span aria-hidden="true">{r.move === "up" ? "▲ " : r.move === "down" ? "▼ " : ""}</span>
                  {cents(r.tick / 100)}
                  <span class="sr-only"> ({MOVE_WORDS[r.move]})</span>
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
