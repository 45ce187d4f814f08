/**
 * How a market ends: its rules and settlement sources, the close time with a countdown, a proposed
 * result with its dispute window (and the holders' Dispute form), and the trading mode when it is
 * not normal. The market page keeps these current from the socket's lifecycle messages.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, RateLimitError } from "@pmx/client/errors";
import type { MarketItem } from "@pmx/client/models";
import type { ServerMessage } from "@pmx/client/socket";
import { client } from "../api";
import { day, timeLeft, when } from "../format";
import { socket } from "../live";
import { Done, ErrorText, Section, useAction } from "../ui";

export type TradingMode = MarketItem["tradingMode"];
/** A market's status, resolution and trading mode, as the market channel's lifecycle message carries them. */
export type MarketLifecycle = Extract<ServerMessage, { type: "lifecycle" }>["data"];

/** The clock, ticking every `ms` while `on` (countdowns). */
export function useNow(on: boolean, ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [on, ms]);
  return now;
}

/**
 * Calls `refresh` after every reconnection of the socket: lifecycle messages sent while it was
 * down are lost, so what the page shows is fetched again once it is back.
 */
export function useRefreshOnReconnect(refresh: () => void): void {
  useEffect(() => {
    const onBack = () => refresh();
    socket.on("reconnect", onBack);
    return () => {
      socket.off("reconnect", onBack);
    };
  }, [refresh]);
}

/** The socket's lifecycle messages for one market (the page subscribes to its market channel). */
export function useLifecycle(marketId: string, onChange: (l: MarketLifecycle) => void): void {
  useEffect(() => {
    const listener = (m: ServerMessage) => {
      if (m.type === "lifecycle" && m.data.marketId === marketId) onChange(m.data);
    };
    socket.on("message", listener);
    return () => {
      socket.off("message", listener);
    };
  }, [marketId]);
}

const MODE_WORDS: Record<TradingMode, string> = {
  normal: "normal",
  post_only: "post-only (only post-only limit orders and cancels)",
  cancel_only: "cancel only",
  halted: "halted (no order changes)",
};

/** Why the ticket takes no new orders in this mode, or null when it does. */
export function modeRefusal(mode: TradingMode): string | null {
  if (mode === "normal") return null;
  if (mode === "post_only")
    return "Trading is paused to post-only: only post-only limit orders are taken, which this ticket does not place.";
  if (mode === "cancel_only") return "Trading is paused: cancel only. You can cancel your open orders; no new orders are taken.";
  return "Trading is halted: no new orders and no cancels for now.";
}

/** The operator's reason is not part of a market's public data, so the banner names the mode. */
export function ModeBanner({ mode }: { mode: TradingMode }) {
  if (mode === "normal") return null;
  return (
    <p class="card mode-banner" role="status" data-testid="mode-banner" data-mode={mode}>
      <strong>Trading paused:</strong> {MODE_WORDS[mode]}
    </p>
  );
}

/** "Closes 31 Dec" for cards and rows; null without a close time or once past it. */
export function closesLabel(m: Pick<MarketItem, "closeTime" | "status">): string | null {
  if (!m.closeTime || m.status !== "open") return null;
  return `Closes ${day(m.closeTime)}`;
}

/** A link that opens elsewhere: only http(s) addresses are made links. */
function SourceLink({ name, url }: { name: string; url: string }) {
  const safe = /^https?:\/\//i.test(url);
  return safe ? (
    <a href={url} target="_blank" rel="noopener noreferrer">
      {name}
    </a>
  ) : (
    <span>{name}</span>
  );
}

export function RulesSection({ market }: { market: MarketItem }) {
  const open = market.status === "open" && !!market.closeTime && new Date(market.closeTime).getTime() > Date.now();
  const now = useNow(open);
  const closing = open && market.closeTime && new Date(market.closeTime).getTime() > now;
  if (!market.rules && !market.settlementSources.length && !market.closeTime) return null;
  return (
    <Section title="Rules" id="rules">
      {market.rules && <p class="rules-text">{market.rules}</p>}
      {market.settlementSources.length > 0 && (
        <>
          <h3 class="small">Settlement sources</h3>
          <ul class="sources" data-testid="sources">
            {market.settlementSources.map((s) => (
              <li key={s.url + s.name}>
                <SourceLink name={s.name} url={s.url} />
              </li>
            ))}
          </ul>
        </>
      )}
      <p data-testid="close-time">
        {market.closeTime && closing ? (
          <>
            Closes {when(market.closeTime)}{" "}
            <span class="muted" data-testid="close-countdown">
              (in {timeLeft(market.closeTime, now)})
            </span>
          </>
        ) : market.status === "open" ? (
          market.closeTime ? (
            "Closing…"
          ) : (
            <span class="muted">No close time set.</span>
          )
        ) : (
          <>
            Closed
            {market.closeTime &&
              (new Date(market.closeTime).getTime() <= now
                ? ` ${when(market.closeTime)}`
                : ` (before its close time, ${when(market.closeTime)})`)}
          </>
        )}
      </p>
    </Section>
  );
}

function resultWords(r: "YES" | "NO" | "SPLIT"): string {
  return r === "SPLIT" ? "SPLIT (each YES and each NO share pays 50¢)" : r;
}

const REASON_MIN = 10;
const REASON_MAX = 1000;

function DisputeForm({ marketId, onDisputed }: { marketId: string; onDisputed: () => void }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [invalid, setInvalid] = useState<string | null>(null);
  const [send, state] = useAction(async () => {
    try {
      await client.markets.dispute(marketId, { reason: reason.trim() });
    } catch (err) {
      // The exchange's own sentence says why (window closed, already disputed, not a holder).
      if (err instanceof ApiError && !(err instanceof RateLimitError) && err.code !== "VALIDATION_ERROR") throw new Error(err.message);
      throw err;
    }
    onDisputed();
  });
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Dispute
      </button>
    );
  const n = reason.trim().length;
  return (
    <form
      class="dispute"
      aria-label="Dispute the proposed result"
      onSubmit={(e) => {
        e.preventDefault();
        if (n < REASON_MIN || n > REASON_MAX) {
          setInvalid(`Please give a reason of ${REASON_MIN} to ${REASON_MAX} characters (now ${n}).`);
          return;
        }
        setInvalid(null);
        send();
      }}
    >
      <div class="field">
        <label for="dispute-reason">Why is the proposed result wrong?</label>
        <textarea
          id="dispute-reason"
          rows={3}
          maxLength={REASON_MAX}
          value={reason}
          onInput={(e) => {
            setReason(e.currentTarget.value);
            setInvalid(null);
          }}
        />
        <span class="small muted">
          {n} / {REASON_MAX} characters, at least {REASON_MIN}
        </span>
      </div>
      {invalid && (
        <div class="error" role="alert">
          <p>{invalid}</p>
        </div>
      )}
      <ErrorText error={state.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={state.pending}>
          Send dispute
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The proposal and its dispute window; `holder`: whether the signed-in user holds a position here. */
export function ResolutionSection({ market, holder }: { market: MarketItem; holder: boolean }) {
  const r = market.resolution;
  const [disputed, setDisputed] = useState(false);
  useEffect(() => setDisputed(false), [r?.proposedAt]);
  const windowOpen = !!r && !r.finalizedAt && new Date(r.disputeEndsAt).getTime() > Date.now();
  const now = useNow(windowOpen);
  if (!r) return null;
  const pending = !r.finalizedAt && market.status !== "resolved";
  const stillOpen = pending && new Date(r.disputeEndsAt).getTime() > now;
  return (
    <Section title={pending ? "Proposed result" : "Resolution"} id="resolution">
      <p>
        Proposed result: <strong data-testid="proposed-result">{resultWords(r.proposedResult)}</strong>{" "}
        <span class="muted small">({when(r.proposedAt)})</span>
      </p>
      {r.note && (
        <p class="rules-text" data-testid="proposal-note">
          {r.note}
        </p>
      )}
      {pending && (
        <p data-testid="dispute-window">
          {stillOpen ? (
            <>
              Dispute window ends {when(r.disputeEndsAt)} <span class="muted">(in {timeLeft(r.disputeEndsAt, now)})</span>
            </>
          ) : r.disputed ? (
            "The dispute window has ended; the operator decides the disputed result."
          ) : (
            "The dispute window has ended; the result is being finalized."
          )}
        </p>
      )}
      <p data-testid="dispute-count">
        {r.disputes === 0 ? "No disputes" : r.disputes === 1 ? "1 dispute" : `${r.disputes} disputes`}
        {r.disputed && pending ? " — the operator will review it before finalizing." : "."}
      </p>
      {r.finalizedAt && (
        <p>
          Finalized {when(r.finalizedAt)}
          {market.result && market.result !== r.proposedResult ? `, amended to ${resultWords(market.result)}` : ""}.
        </p>
      )}
      {holder &&
        stillOpen &&
        (disputed ? <Done text="Disputed" testid="disputed" /> : <DisputeForm marketId={market.id} onDisputed={() => setDisputed(true)} />)}
    </Section>
  );
}
