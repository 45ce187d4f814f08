/**
 * History routing over the pages the gateway serves (contract/web-routes.ts: one list for both).
 * Same-origin links to those pages are followed without a reload; focus moves to the new page's
 * main region so keyboard and screen-reader users land on it.
 */
import { matchRoute, pathFor, type AppRoute } from "../../contract/web-routes";
import { Store, useStore } from "./store";

export { pathFor, type AppRoute };

interface Loc {
  path: string;
  search: string;
}

const current = (): Loc => ({ path: location.pathname, search: location.search });
export const location$ = new Store<Loc>(current());

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  location$.set(current());
  window.scrollTo(0, 0);
  requestAnimationFrame(() => document.getElementById("main")?.focus({ preventScroll: true }));
}

addEventListener("popstate", () => location$.set(current()));

document.addEventListener("click", (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.("a");
  if (!a || a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !matchRoute(url.pathname)) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});

export interface RouteState {
  route: AppRoute | null;
  params: Record<string, string>;
  query: URLSearchParams;
}

export function useRoute(): RouteState {
  const loc = useStore(location$);
  const m = matchRoute(loc.path);
  return { route: m?.route ?? null, params: m?.params ?? {}, query: new URLSearchParams(loc.search) };
}
