/**
 * Notifications, newest first, unread ones marked; reading updates the badge. A trade and the
 * on-chain settlement of it are one item whose status changes (the API keeps them as two
 * notifications, TRADE_FILLED and SETTLEMENT_CONFIRMED/FAILED; they are joined here by trade id).
 */
import { useState } from "preact/hooks";
import type { Notification, NotificationSettings, Page } from "@pmx/client/models";
import { telegram$ } from "../telegram";
import { client, session$ } from "../api";
import { when } from "../format";
import { pathFor } from "../router";
import { notificationPulse, unread$ } from "../live";
import { NeedsSession } from "../signin";
import { useStore } from "../store";
import { ErrorText, Loading, Pager, useAction, useLoad } from "../ui";

const PAGE_SIZE = 20;

interface Item {
  n: Notification;
  /** Ids this item stands for (the trade's and its settlement's). */
  ids: string[];
  read: boolean;
  settlement?: "settled on chain" | "settlement failed";
}

/** Joins each trade with its settlement when both are on the page; anything else stands alone. */
export function groupNotifications(list: Notification[]): Item[] {
  const byTrade = new Map<string, Item>();
  const items: Item[] = list.map((n) => ({ n, ids: [n.id], read: n.read }));
  for (const it of items) {
    const tradeId = it.n.type === "TRADE_FILLED" ? it.n.metadata.tradeId : undefined;
    if (typeof tradeId === "string") byTrade.set(tradeId, it);
  }
  return items.filter((it) => {
    if (it.n.type !== "SETTLEMENT_CONFIRMED" && it.n.type !== "SETTLEMENT_FAILED") return true;
    const ids = Array.isArray(it.n.metadata.tradeIds) ? (it.n.metadata.tradeIds as unknown[]) : [];
    const trades = ids.map((id) => (typeof id === "string" ? byTrade.get(id) : undefined));
    if (!ids.length || trades.some((t) => !t)) return true;
    for (const t of trades as Item[]) {
      t.settlement = it.n.type === "SETTLEMENT_CONFIRMED" ? "settled on chain" : "settlement failed";
      t.ids.push(it.n.id);
      t.read &&= it.read;
    }
    return false;
  });
}

const KINDS: Array<{ key: keyof NotificationSettings["push"]; label: string }> = [
  { key: "trades", label: "Trades and cancelled orders" },
  { key: "settlement", label: "On-chain settlement of trades" },
  { key: "results", label: "Market results and proposals" },
  { key: "transfers", label: "Deposits and withdrawals" },
];

/** Which kinds the Telegram bot pushes (everything stays listed here). */
function PushSettings() {
  const tg = useStore(telegram$);
  const { data, error } = useLoad<NotificationSettings>(() => client.notifications.settings(), []);
  const [current, setCurrent] = useState<NotificationSettings | null>(null);
  const shown = current ?? data;
  // The switch moves at once (a controlled input would otherwise snap back while saving); a refusal puts it back.
  const [save, state] = useAction(async (key: keyof NotificationSettings["push"], on: boolean) => {
    const before = shown;
    if (before) setCurrent({ ...before, push: { ...before.push, [key]: on } });
    try {
      setCurrent(await client.notifications.updateSettings({ push: { [key]: on } }));
    } catch (err) {
      setCurrent(before);
      throw err;
    }
  });
  return (
    <details class="card push-settings">
      <summary>Telegram messages</summary>
      <p class="muted small">
        {tg?.user
          ? "The bot sends you these kinds as messages."
          : "When you sign in from Telegram, the bot sends you these kinds as messages."}{" "}
        A failed settlement is always sent.
      </p>
      <ErrorText error={error ?? state.error} />
      {shown && (
        <fieldset class="plain" data-testid="push-settings">
          <legend class="sr-only">Kinds the bot sends</legend>
          {KINDS.map((k) => (
            <label class="check" key={k.key}>
              <input
                type="checkbox"
                checked={shown.push[k.key]}
                disabled={state.pending}
                onChange={(e) => save(k.key, e.currentTarget.checked)}
              />{" "}
              {k.label}
            </label>
          ))}
        </fieldset>
      )}
    </details>
  );
}

function marketOf(n: Notification): string | null {
  const id = n.metadata.marketId;
  return typeof id === "string" ? id : null;
}

export function NotificationsPage() {
  const session = useStore(session$);
  const refresh = notificationPulse.use();
  const [page, setPage] = useState(1);
  const { data, error, loading, reload } = useLoad<Page<Notification> | null>(
    () => (session ? client.notifications.list({ page, pageSize: PAGE_SIZE }) : Promise.resolve(null)),
    [session?.userId, page, refresh],
  );
  const [markRead, state] = useAction(async (ids: string[] | "all") => {
    const r = await client.notifications.markRead(ids === "all" ? { all: true } : { ids });
    unread$.set(r.unread);
    reload();
  });
  if (!session) return <NeedsSession title="Notifications" headline="Sign in to see your notifications" />;
  const unread = data?.items.filter((n) => !n.read) ?? [];
  const items = data ? groupNotifications(data.items) : [];
  return (
    <>
      <div class="page-head">
        <h1>Notifications</h1>
        <button type="button" onClick={() => markRead("all")} disabled={state.pending || !unread.length}>
          Mark all as read
        </button>
      </div>
      <PushSettings />
      <ErrorText error={error ?? state.error} />
      {loading && !data && <Loading what="notifications" />}
      {data && !data.items.length && <p class="muted">Nothing yet. Trades, deposits, withdrawals and results show up here.</p>}
      {data && data.items.length > 0 && (
        <ul class="list notifications" data-testid="notifications">
          {items.map(({ n, ids, read, settlement }) => (
            <li key={n.id} class={read ? "" : "unread"} data-type={n.type}>
              <div>
                <strong>{n.title}</strong>
                {!read && <span class="tag">new</span>}
                {n.type === "TRADE_FILLED" && (
                  <span class="tag" data-testid="trade-settlement">
                    {settlement ?? "settling on chain"}
                  </span>
                )}
                <p>{n.body}</p>
                <p class="muted small">
                  {when(n.createdAt)}
                  {marketOf(n) && (
                    <>
                      {" · "}
                      <a href={pathFor("market", { id: marketOf(n) as string })}>Open the market</a>
                    </>
                  )}
                  {n.type === "MARKET_RESOLVED" && (
                    <>
                      {" · "}
                      <a href={pathFor("portfolio")}>Redeem in your portfolio</a>
                    </>
                  )}
                </p>
              </div>
              {!read && (
                <button type="button" onClick={() => markRead(ids)} disabled={state.pending} aria-label={`Mark read: ${n.title}`}>
                  Mark read
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {data && (
        <Pager
          label="Notification pages"
          page={data.pagination.page}
          hasNext={data.pagination.hasNext}
          onPage={setPage}
          labels={["Newer", "Older"]}
        />
      )}
    </>
  );
}
