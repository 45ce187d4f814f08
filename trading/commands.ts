import type { OrderType, Outcome, Side } from "../engine/types";
import type { IdemKey, PlaceResult, RouteExecution, RouteRequest } from "../models/trading";

/** A request's Idempotency-Key: its answer is rendered from the command's result and journaled with it. */
export interface IdemRequest<T> extends IdemKey {
  render(value: T): unknown;
}

export interface PlaceCommand {
  userId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  price: number;
  quantity: number;
  /** GTD: when the rest is cancelled (ISO); the scheduler fires it, the order only carries it. */
  expiresAt?: string;
  postOnly?: boolean;
  clientOrderId?: string;
  /** Cancelled (reason `paused`) when the market leaves the normal trading mode. */
  cancelOnPause?: boolean;
  idem?: IdemRequest<PlaceResult>;
}

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
