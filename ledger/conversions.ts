/**
 * POST /events/:id/convert: the request's rules over the event's facts (from the catalog) and the
 * holder's positions, then one ledger entry with the conversion's plan (engine/conversion.ts),
 * carrying its record (the money check re-plans it) and the Idempotency-Key's answer.
 */
import type { PositionState } from "../engine/accounts";
import { ConversionRefusal, planConversion } from "../engine/conversion";
import { Refusal, type FieldError } from "../engine/refusal";
import type { EventInternal } from "../models/catalog";
import type { ConversionRecord, IdemKey, PostInput, PostOutcome } from "../models/trading";

/** The codes a conversion request is refused with (besides the ledger's own). */
export const CONVERSION_CODES = ["VALIDATION_ERROR", "EVENT_NOT_MUTUALLY_EXCLUSIVE", "MARKET_NOT_OPEN", "INSUFFICIENT_SHARES"] as const;
export type ConversionCode = (typeof CONVERSION_CODES)[number];

const invalid = (message: string, fields?: FieldError[]) =>
  new Refusal<ConversionCode>("rejected", "VALIDATION_ERROR", message, fields ? { fields } : undefined);
const refused = (code: ConversionCode, message: string) => new Refusal<ConversionCode>("rejected", code, message);
const conflicting = (code: ConversionCode, message: string) => new Refusal<ConversionCode>("conflict", code, message);

/** The most markets one conversion names (the size of the largest mutually exclusive event). */
export const MAX_CONVERT_MARKETS = 64;

export interface ConvertRequest {
  userId: string;
  eventId: string;
  marketIds: string[];
  /** Micro-shares, a canonical positive integer string (the contract's rule). */
  quantity: string;
}

export interface ConvertAnswer {
  eventId: string;
  quantity: string;
  marketIds: string[];
  cashCredited: string;
  yesReceived: Array<{ marketId: string; quantity: string }>;
}

export interface ConversionPorts {
  /** The event and its markets (a fault when it is unknown). */
  event(eventId: string): Promise<EventInternal>;
  positionsOf(account: string): PositionState[];
  post(entry: PostInput): Promise<PostOutcome>;
  feeBps: number;
  newId(): string;
}

export async function convertPositions(p: ConversionPorts, r: ConvertRequest, idem?: IdemKey & { status: number }): Promise<ConvertAnswer> {
  const quantity = Number(r.quantity);
  if (!Number.isSafeInteger(quantity) || quantity <= 0)
    throw invalid("quantity must be a positive safe integer of micro-shares", [{ field: "quantity", rule: "positive" }]);
  if (!r.marketIds.length || r.marketIds.length > MAX_CONVERT_MARKETS || new Set(r.marketIds).size !== r.marketIds.length)
    throw invalid(`marketIds must name 1 to ${MAX_CONVERT_MARKETS} distinct markets`, [{ field: "marketIds", rule: "distinct" }]);
  const event = await p.event(r.eventId);
  if (!event.mutuallyExclusive)
    throw refused("EVENT_NOT_MUTUALLY_EXCLUSIVE", `Event ${r.eventId} is not mutually exclusive: its NO positions cannot be converted`);
  const byId = new Map(event.markets.map((m) => [m.id, m]));
  const foreign = r.marketIds.filter((id) => !byId.has(id));
  if (foreign.length)
    throw invalid(`not markets of event ${r.eventId}: ${foreign.join(", ")}`, [{ field: "marketIds", rule: "eventMarkets" }]);
  const closed = r.marketIds.find((id) => byId.get(id)!.status !== "open");
  if (closed) throw conflicting("MARKET_NOT_OPEN", `Market ${closed} is not open`);
  const named = new Set(r.marketIds);
  const record: ConversionRecord = {
    eventId: event.id,
    userId: r.userId,
    marketIds: [...r.marketIds],
    otherOpen: event.markets.filter((m) => m.status === "open" && !named.has(m.id)).map((m) => m.id),
    quantity,
    feeBps: p.feeBps,
  };
  let plan;
  try {
    plan = planConversion({ ...record, account: r.userId, positions: p.positionsOf(r.userId) });
  } catch (err) {
    if (err instanceof ConversionRefusal)
      throw err.code === "INSUFFICIENT_SHARES" ? refused("INSUFFICIENT_SHARES", err.message) : invalid(err.message);
    throw err;
  }
  const answer: ConvertAnswer = {
    eventId: event.id,
    quantity: String(quantity),
    marketIds: record.marketIds,
    cashCredited: String(plan.cashCredited),
    yesReceived: plan.yesReceived.map((y) => ({ marketId: y.marketId, quantity: String(y.quantity) })),
  };
  await p.post({
    key: `convert:${p.newId()}`,
    postings: plan.postings,
    conversion: record,
    ...(idem ? { idem: { ...idem, response: answer } } : {}),
  });
  return answer;
}
