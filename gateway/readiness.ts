/**
 * Readiness of a gateway node: can it serve the contract right now? Pure: the caller says which
 * actions have a reachable endpoint (the broker's registry); liveness (`GET /health`) stays a
 * constant answer so a slow or missing core never restarts gateways.
 */

/** Services without which the gateway cannot serve the contract: sessions, markets, books, money. */
export const REQUIRED_SERVICES = ["auth", "catalog", "book", "amm", "router", "ledger"] as const;

export interface Readiness {
  ready: boolean;
  /** `ready`, `degraded` (only optional services are missing) or `unavailable`. */
  status: "ready" | "degraded" | "unavailable";
  /** Required services with an action the gateway routes to and no reachable endpoint for it. */
  missing: string[];
  /** Other routed services that are unreachable (their routes answer 503; the rest works). */
  degraded: string[];
}

/** The service of `service.action`. */
export const serviceOf = (action: string): string => action.slice(0, action.indexOf("."));

/**
 * `actions` are every action the gateway routes to; a service counts as reachable when each of its
 * routed actions has an available endpoint. The required services must be reachable.
 */
export function readiness(
  actions: Iterable<string>,
  available: (action: string) => boolean,
  required: readonly string[] = REQUIRED_SERVICES,
): Readiness {
  const down = new Set<string>();
  const seen = new Set<string>();
  for (const action of actions) {
    const svc = serviceOf(action);
    seen.add(svc);
    if (!available(action)) down.add(svc);
  }
  // A required service no routed action names cannot be checked: fail closed.
  const missing = required.filter((s) => down.has(s) || !seen.has(s)).sort();
  const degraded = [...down].filter((s) => !required.includes(s)).sort();
  const ready = missing.length === 0;
  return { ready, status: !ready ? "unavailable" : degraded.length ? "degraded" : "ready", missing, degraded };
}
