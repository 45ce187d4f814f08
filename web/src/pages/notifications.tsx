/** Notifications, newest first, unread ones marked; reading updates the badge. */
import { useState } from "preact/hooks";
import type { Notification, Page } from "@pmx/client/models";
import { client, session$ } from "../api";
import { when } from "../format";
import { notificationPulse, unread$ } from "../live";
import { NeedsSession } from "../signin";
import { useStore } from "../store";
import { ErrorText, Loading, Pager, useAction, useLoad } from "../ui";

const PAGE_SIZE = 20;

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
  return (
    <>
      <div class="page-head">
        <h1>Notifications</h1>
        <button type="button" onClick={() => markRead("all")} disabled={state.pending || !unread.length}>
          Mark all as read
        </button>
      </div>
      <ErrorText error={error ?? state.error} />
      {loading && !data && <Loading what="notifications" />}
      {data && !data.items.length && <p class="muted">Nothing yet. Trades, deposits, withdrawals and results show up here.</p>}
      {data && data.items.length > 0 && (
        <ul class="list notifications" data-testid="notifications">
          {data.items.map((n) => (
            <li key={n.id} class={n.read ? "" : "unread"}>
              <div>
                <strong>{n.title}</strong>
                {!n.read && <span class="tag">new</span>}
                <p>{n.body}</p>
                <p class="muted small">{when(n.createdAt)}</p>
              </div>
              {!n.read && (
                <button type="button" onClick={() => markRead([n.id])} disabled={state.pending} aria-label={`Mark read: ${n.title}`}>
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
