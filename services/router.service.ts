import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import type { AppContext } from "../mixins/context";
import { formatTick } from "../engine/money";

export interface LivePrices {
  buyYesPrice: string | null;
  buyNoPrice: string | null;
  sellYesPrice: string | null;
  sellNoPrice: string | null;
}

type RouterThis = Service;

/** Best prices of the YES view turned into the four prices a trader sees; null where nothing trades. */
export function livePricesFromBook(yesBid: number | null, yesAsk: number | null): LivePrices {
  return {
    buyYesPrice: yesAsk === null ? null : formatTick(yesAsk),
    sellYesPrice: yesBid === null ? null : formatTick(yesBid),
    buyNoPrice: yesBid === null ? null : formatTick(100 - yesBid),
    sellNoPrice: yesAsk === null ? null : formatTick(100 - yesAsk),
  };
}

const RouterService = defineService<RouterThis>({
  name: "router",

  actions: {
    /** Internal: the price source of market listings (catalog) and the market channel. */
    livePrices: {
      visibility: "public",
      params: { marketIds: { type: "array", items: "string", max: 200 } },
      async handler(this: RouterThis, ctx: AppContext<{ marketIds: string[] }>): Promise<Record<string, LivePrices>> {
        const top = await ctx.call<Record<string, { yesBid: number | null; yesAsk: number | null }>, { marketIds: string[] }>("book.topOfBook", { marketIds: ctx.params.marketIds });
        const out: Record<string, LivePrices> = {};
        for (const id of ctx.params.marketIds) out[id] = livePricesFromBook(top[id]?.yesBid ?? null, top[id]?.yesAsk ?? null);
        return out;
      },
    },
  },
});

export default RouterService;
