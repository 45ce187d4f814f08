/**
 * The one way a core's port calls another service: `call` (contract/call.ts) with a refusal that
 * comes back as the broker's error turned into the Refusal it was (lib/errors.ts), so a core sees
 * kinds and codes only, never Moleculer's status or `type`.
 */
import { call, type ActionName, type ActionResult, type CallArgs, type Caller } from "../contract";
import { throwRefusal } from "../lib/errors";

export function portCall<A extends ActionName>(caller: Caller, action: A, ...args: CallArgs<A>): Promise<ActionResult<A>> {
  return call(caller, action, ...args).catch(throwRefusal);
}
