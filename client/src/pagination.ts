import type { Page, PageParams } from "./models";

/**
 * Every item of a paginated list, fetching page after page while `hasNext` says so. Stops early
 * when the consumer breaks out of the loop, and after `maxPages` pages as a safety net.
 */
export async function* paginate<T, P extends PageParams>(
  fetchPage: (params: P) => Promise<Page<T>>,
  params: P,
  opts: { maxPages?: number } = {},
): AsyncGenerator<T, void, undefined> {
  const maxPages = opts.maxPages ?? 10_000;
  let page = params.page ?? 1;
  for (let n = 0; n < maxPages; n++) {
    const res = await fetchPage({ ...params, page });
    for (const item of res.items) yield item;
    if (!res.pagination.hasNext || res.items.length === 0) return;
    page = res.pagination.page + 1;
  }
}

/** Every page (not item) of a paginated list. */
export async function* pages<T, P extends PageParams>(
  fetchPage: (params: P) => Promise<Page<T>>,
  params: P,
  opts: { maxPages?: number } = {},
): AsyncGenerator<Page<T>, void, undefined> {
  const maxPages = opts.maxPages ?? 10_000;
  let page = params.page ?? 1;
  for (let n = 0; n < maxPages; n++) {
    const res = await fetchPage({ ...params, page });
    yield res;
    if (!res.pagination.hasNext || res.items.length === 0) return;
    page = res.pagination.page + 1;
  }
}

/** Collect an async iterable into an array (at most `limit` items). */
export async function collect<T>(it: AsyncIterable<T>, limit = Infinity): Promise<T[]> {
  const out: T[] = [];
  if (limit <= 0) return out;
  for await (const x of it) {
    out.push(x);
    if (out.length >= limit) break;
  }
  return out;
}
