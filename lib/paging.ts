import type { Model } from "../contract";

/** The contract's Pagination. */
export type Pagination = Model<"Pagination">;

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
