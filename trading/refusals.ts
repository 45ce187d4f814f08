import { Fault, type FaultKind } from "../lib/fault";

/** A refusal of the actor, by kind and code; the shell hands it on (gateway/faults.ts gives it its status). */
export class TradingError extends Fault {
  constructor(kind: FaultKind, code: string, message: string) {
    super(kind, code, message);
    this.name = "TradingError";
  }
}
