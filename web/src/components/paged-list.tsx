/**
 * A portfolio list section: loaded (again on `refresh`), its error in words, a sentence when it is
 * empty, the items, and for paged answers the Newer/Older pager (GET lists are newest first).
 */
import type { ComponentChildren, VNode } from "preact";
import { useState } from "preact/hooks";
import type { Page } from "@pmx/client/models";
import { ErrorText, Loading, Pager, Section, useLoad } from "../ui";

export function PagedList<T>({
  title,
  id,
  load,
  refresh,
  empty,
  testid,
  listClass = "list",
  pagerLabel,
  item,
  above,
  loadingWhat,
  after,
}: {
  title: string;
  id: string;
  /** One page of the list (`page` from 1), or the whole list when the endpoint is not paged. */
  load: (page: number) => Promise<Page<T> | T[]>;
  refresh: number;
  empty: ComponentChildren;
  testid: string;
  listClass?: "list" | "cards";
  /** The pager's accessible name (paged lists only). */
  pagerLabel?: string;
  /** One item as its `<li>`, keyed. */
  item: (it: T) => VNode;
  /** Said above the list (e.g. what an action on an item did). */
  above?: ComponentChildren;
  /** Said while the first load is on its way. */
  loadingWhat?: string;
  /** After the section, from the loaded items. */
  after?: (items: T[]) => ComponentChildren;
}) {
  const [page, setPage] = useState(1);
  const { data, error, loading } = useLoad<Page<T> | T[]>(() => load(page), [page, refresh]);
  const items = data === null ? null : Array.isArray(data) ? data : data.items;
  return (
    <>
      <Section title={title} id={id}>
        <ErrorText error={error} />
        {above}
        {loadingWhat && loading && !data && <Loading what={loadingWhat} />}
        {items && !items.length && <p class="muted">{empty}</p>}
        {items && items.length > 0 && (
          <>
            <ul class={listClass} data-testid={testid}>
              {items.map(item)}
            </ul>
            {data && !Array.isArray(data) && (
              <Pager
                label={pagerLabel ?? `${title} pages`}
                page={data.pagination.page}
                hasNext={data.pagination.hasNext}
                onPage={setPage}
                labels={["Newer", "Older"]}
              />
            )}
          </>
        )}
      </Section>
      {items && after?.(items)}
    </>
  );
}
