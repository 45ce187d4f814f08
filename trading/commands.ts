import type { IdemKey, PlaceTerms, RouteExecution, RouteRequest } from "../models/trading";

/** A request's Idempotency-Key: its answer is rendered from the command's result and journaled with it. */
export interface IdemRequest<T> extends IdemKey {
  render(value: T): unknown;
}

/** One command's outcome among several: its value, or its refusal (another's refusal leaves it alone). */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A placement on the market's own actor: the desk's terms as they are (the actor is the market). */
export type PlaceCommand = Omit<PlaceTerms, "marketId">;

export interface AmendCommand {
  orderId: string;
  userId: string;
  /** New limit (tick) and new open remainder; at least one differs from the order's. */
  price?: number;
  quantity?: number;
  /** The order's own post-only flag: the new terms must not cross either. */
  postOnly?: boolean;
}

export interface RouteCommand extends Omit<RouteRequest, "marketId" | "idem"> {
  idem?: IdemRequest<RouteExecution>;
}
