import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import { QUANTITY } from "../lib/params";
import { currentUser, type AppContext } from "../mixins/context";
import { formatTick } from "../engine/money";
import { parseTradeQuantity, tradeView, type MarketTradeParams } from "../trading/market-order";
import type { RouteExecution } from "../trading/market-actor";
import type { TopOfBook } from "./book.service";

export interface LivePrices {
  buyYesPrice: string | null;
  buyNoPrice: string | null;
  sellYesPrice: string | null;
  sellNoPrice: string | null;
}

type RouterThis = Service;

const ID = { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9_:-]+$/ } as const;
const ORDER_PARAMS = {
  side: { type: "enum", values: ["BUY", "SELL"] },
  outcome: { type: "enum", values: ["YES", "NO"] },
  quantity: QUANTITY,
} as const;

const ceilTick = (num: bigint, den: bigint) => Number((num * 100n + den - 1n) / den);
const floorTick = (num: bigint, den: bigint) => Number((num * 100n) / den);
const better = (a: number | null, b: number | null, pick: (x: number, y: number) => number) => (a === null ? b : b === null ? a : pick(a, b));
const clampTick = (t: number | null) => (t === null ? null : Math.min(99, Math.max(1, t)));

/**
 * The four prices a trader sees, from both venues: the best book price or the pool's marginal
 * price (rounded against the trader to a cent), whichever is better; null where neither trades.
 */
export function livePrices(top: TopOfBook | undefined): LivePrices {
  const yesBid = top?.yesBid ?? null;
  const yesAsk = top?.yesAsk ?? null;
  let ammBuyYes: number | null = null;
  let ammSellYes: number | null = null;
  let ammBuyNo: number | null = null;
  let ammSellNo: number | null = null;
  if (top?.ammYes) {
    const num = BigInt(top.ammYes.num);
    const den = BigInt(top.ammYes.den);
    ammBuyYes = clampTick(ceilTick(num, den));
    ammSellYes = clampTick(floorTick(num, den));
    ammBuyNo = clampTick(ceilTick(den - num, den));
    ammSellNo = clampTick(floorTick(den - num, den));
  }
  const fmt = (t: number | null) => (t === null ? null : formatTick(t));
  return {
    buyYesPrice: fmt(better(yesAsk, ammBuyYes, Math.min)),
    sellYesPrice: fmt(better(yesBid, ammSellYes, Math.max)),
    buyNoPrice: fmt(better(yesBid === null ? null : 100 - yesBid, ammBuyNo, Math.min)),
    sellNoPrice: fmt(better(yesAsk === null ? null : 100 - yesAsk, ammSellNo, Math.max)),
  };
}

/** POST /trade/market and POST /markets/:id/quote: the smart router, planned and executed in the market's actor. */
const RouterService = defineService<RouterThis>({
  name: "router",

  actions: {
    trade: {
      auth: "user",
      idempotent: true,
      params: { marketId: ID, ...ORDER_PARAMS, $$strict: "remove" },
      async handler(this: RouterThis, ctx: AppContext<MarketTradeParams>) {
        const user = currentUser(ctx);
        const quantity = parseTradeQuantity(ctx.params.quantity);
        const r = await ctx.call<RouteExecution, object>("book.route", { marketId: ctx.params.marketId, userId: user.id, side: ctx.params.side, outcome: ctx.params.outcome, quantity, mode: "ROUTE", ...(ctx.meta.idem ? { idem: ctx.meta.idem } : {}) });
        return tradeView(r);
      },
    },

    /** `venue: "AMM"` prices what POST /trade/amm would do; the default what POST /trade/market would. */
    quote: {
      auth: "user",
      params: { marketId: ID, ...ORDER_PARAMS, venue: { type: "enum", values: ["AUTO", "AMM"], optional: true, default: "AUTO" }, $$strict: "remove" },
      async handler(this: RouterThis, ctx: AppContext<MarketTradeParams & { venue: "AUTO" | "AMM" }>) {
        const user = currentUser(ctx);
        const quantity = parseTradeQuantity(ctx.params.quantity);
        const mode = ctx.params.venue === "AMM" ? "AMM" : "ROUTE";
        const q = await ctx.call<{ venue: string; totalCost: number; fee: number; avgPrice: string }, object>("book.quote", { marketId: ctx.params.marketId, userId: user.id, side: ctx.params.side, outcome: ctx.params.outcome, quantity, mode });
        return { estimatedPrice: q.avgPrice, estimatedCost: String(q.totalCost), source: q.venue, fee: String(q.fee) };
      },
    },

    /** Internal: the price source of market listings (catalog) and the market channel. */
    livePrices: {
      visibility: "public",
      params: { marketIds: { type: "array", items: "string", max: 200 } },
      async handler(this: RouterThis, ctx: AppContext<{ marketIds: string[] }>): Promise<Record<string, LivePrices>> {
        const top = await ctx.call<Record<string, TopOfBook>, { marketIds: string[] }>("book.topOfBook", { marketIds: ctx.params.marketIds });
        const out: Record<string, LivePrices> = {};
        for (const id of ctx.params.marketIds) out[id] = livePrices(top[id]);
        return out;
      },
    },
  },
});

export default RouterService;
