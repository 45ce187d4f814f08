/**
 * Recent trades on the market page (web/src/tape.ts says what a row is): the first page from the
 * last hour's prints, then each new trade prepended as the market moves, without a reload.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Candle } from "@pmx/client/models";
import { client } from "../api";
import { cents, shareCount } from "../format";
import { firstPage, newPrints, prepend, TAPE_ROWS, type TapeRow } from "../tape";
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
          if (!prev) return setRows(firstPage(h.candles).slice(0, TAPE_ROWS));
          const added = newPrints(prev, h.candles, Date.now(), undefined);
          // A move whose print was not recorded yet: read once more a little later.
          if (!added.length && retry) again = setTimeout(() => readOnce(false), 1500);
          else setRows((r) => prepend(r ?? [], newPrints(prev, h.candles, Date.now(), r?.[0]?.tick)));
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
                <td>{time(r)}</td>
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
