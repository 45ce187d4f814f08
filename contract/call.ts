/**
 * Typed calls by action name: `call(ctx, "ledger.post", entry)` takes the params the contract
 * names for that action and answers its result (contract/actions.ts). The one place where an
 * action's answer is given its type.
 */
import type { ActionName, ActionParams, ActionResult } from "./actions";

/** What can call an action: a Moleculer Context or ServiceBroker (structurally; no Moleculer import). */
export interface Caller {
  call(actionName: string, params?: unknown, opts?: object): Promise<unknown>;
}

/** Options of one call (Moleculer's CallingOptions; those the services use). */
export interface CallOptions {
  timeout?: number;
  retries?: number;
  nodeID?: string;
  meta?: object;
}

export type CallArgs<A extends ActionName> = [ActionParams<A>] extends [void]
  ? [params?: undefined, opts?: CallOptions]
  : [params: ActionParams<A>, opts?: CallOptions];

export function call<A extends ActionName>(caller: Caller, action: A, ...[params, opts]: CallArgs<A>): Promise<ActionResult<A>> {
  return caller.call(action, params, opts) as Promise<ActionResult<A>>;
}
