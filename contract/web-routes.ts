/**
 * The web app's own pages: the gateway answers each with the app's index.html (the app then
 * routes on the client), and the app's router matches the same patterns. Kept free of imports so
 * both the gateway (Node) and the app (browser, through Vite) compile it.
 */
export const APP_ROUTES = {
  events: "/",
  event: "/events/:id",
  market: "/markets/:id",
  portfolio: "/portfolio",
  wallet: "/wallet",
  notifications: "/notifications",
} as const;

export type AppRoute = keyof typeof APP_ROUTES;

/** The route's path for these parameters, e.g. pathFor("market", {id: "mkt_1"}) = "/markets/mkt_1". */
export function pathFor(route: AppRoute, params: Record<string, string> = {}): string {
  return APP_ROUTES[route].replace(/:([A-Za-z]+)/g, (_, k: string) => encodeURIComponent(params[k] ?? ""));
}

/** The route a path names and its parameters, or null (a page the app does not have). */
export function matchRoute(path: string): { route: AppRoute; params: Record<string, string> } | null {
  const clean = path.length > 1 ? path.replace(/\/+$/, "") : path;
  for (const route of Object.keys(APP_ROUTES) as AppRoute[]) {
    const names: string[] = [];
    const re = new RegExp(`^${APP_ROUTES[route].replace(/:([A-Za-z]+)/g, (_, k: string) => (names.push(k), "([^/]+)"))}$`);
    const m = re.exec(clean);
    if (!m) continue;
    const params: Record<string, string> = {};
    names.forEach((k, i) => {
      try {
        params[k] = decodeURIComponent(m[i + 1]);
      } catch {
        params[k] = m[i + 1];
      }
    });
    return { route, params };
  }
  return null;
}
