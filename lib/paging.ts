/** The contract's Pagination (contract/wire.ts holds the two equal). */
export interface Pagination {
  total: number;
  page: number;
  pageSize: number;
  hasNext: boolean;
}

/** What list actions return; the gateway lifts `pagination` next to `data`. */
export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

export function page<T>(items: T[], total: number, pageNo: number, pageSize: number): Page<T> {
  return { items, pagination: { total, page: pageNo, pageSize, hasNext: pageNo * pageSize < total } };
}

export function isPage(x: unknown): x is Page<unknown> {
  const p = x as Page<unknown> | null;
  return !!p && typeof p === "object" && Array.isArray(p.items) && !!p.pagination && typeof p.pagination.total === "number";
}
