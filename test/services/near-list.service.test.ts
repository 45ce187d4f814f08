/**
 * GET /events on the embedded process's main node (mixins/near-cache.middleware.ts): two real
 * brokers joined as the main and side nodes are (lib/local-transporter.ts over a MessagePort),
 * the real catalog on the side with its count of writes shared (mixins/catalog-writes.ts), the
 * router faked on the main node. A page is asked of the catalog once while it writes nothing; the
 * live prices are the main node's at every read; a new event, a print and a status change are in
 * the next answer.
 */
import { MessageChannel } from "node:worker_threads";
import type { Context, Middleware, ServiceBroker, ServiceSchema } from "moleculer";
import CatalogService from "../../services/catalog.service";
import type { EventView, MarketView } from "../../catalog/views";
import { LocalSocketTransporter } from "../../lib/local-transporter";
import { bindCatalogWrites } from "../../mixins/catalog-writes";
import { SharedCount } from "../../mixins/shared-count";
import { createNearCache } from "../../mixins/near-cache.middleware";
import { until } from "../support/until";
import { serviceBroker } from "../support/service-broker";

type Page = { items: EventView[]; pagination: { total: number } };

describe("the events list on the main node", () => {
  let main: ServiceBroker;
  let side: ServiceBroker;
  /** listEvents calls the side node's catalog answered. */
  let asked = 0;
  let priced = 0;
  const quotes = new Map<string, { sellYesPrice: string; buyYesPrice: string }>();

  const router: ServiceSchema = {
    name: "router",
    actions: {
      livePrices: (ctx: Context<{ marketIds: string[] }>) => {
        priced++;
        return Object.fromEntries(ctx.params.marketIds.map((id) => [id, { buyNoPrice: null, sellNoPrice: null, ...quotes.get(id) }]));
      },
    },
  };
  const counting = {
    name: "CountLists",
    localAction(handler: (ctx: Context) => Promise<unknown>, action: { name: string }) {
      return action.name === "catalog.listEvents" ? (ctx: Context) => (asked++, handler(ctx)) : handler;
    },
  } as unknown as Middleware;

  const list = (params: object = { category: "Sports" }) => main.call<Page, object>("catalog.listEvents", params);
  const create = (title: string) =>
    main.call<EventView, object>("catalog.createEvent", {
      title,
      category: "Sports",
      markets: [{ title: `${title}: home?` }, { title: `${title}: away?` }],
    });

  beforeAll(async () => {
    const { port1, port2 } = new MessageChannel();
    const hub = new LocalSocketTransporter({ mode: "hub" });
    hub.attachPort(port1);
    const env = { RESOLUTION_CLOCK_MS: "60000" };
    main = serviceBroker(env, [router], { nodeID: "main", transporter: hub, middlewares: [createNearCache()] });
    side = serviceBroker(env, [CatalogService], {
      nodeID: "main-side",
      transporter: new LocalSocketTransporter({ mode: "join", port: port2 }),
      middlewares: [counting],
    });
    const count = new SharedCount();
    bindCatalogWrites(main, count);
    bindCatalogWrites(side, new SharedCount(count.shared));
    await main.start();
    await side.start();
    await main.waitForServices(["catalog"], 10_000);
  });
  afterAll(async () => {
    await side?.stop();
    await main?.stop();
  });

  test("a page is asked of the catalog once while it writes nothing; the prices are the main node's at each read", async () => {
    const e = await create("Derby");
    const [home, away] = e.markets.map((m) => m.id);
    asked = 0;
    priced = 0;
    const first = await list();
    expect(first.items.map((x) => x.id)).toEqual([e.id]);
    expect(first.items[0].outcomes.map((o) => o.chance)).toEqual([null, null]);
    quotes.set(home, { sellYesPrice: "0.60", buyYesPrice: "0.64" });
    const second = await list();
    expect(second.items[0].outcomes.map((o) => [o.marketId, o.chance])).toEqual([
      [home, "0.62"],
      [away, null],
    ]);
    quotes.set(home, { sellYesPrice: "0.20", buyYesPrice: "0.25" });
    quotes.set(away, { sellYesPrice: "0.70", buyYesPrice: "0.74" });
    const third = await list();
    expect(third.items[0].outcomes.map((o) => o.chance)).toEqual(["0.225", "0.72"]);
    expect(asked).toBe(1);
    expect(priced).toBe(3);
    // Another page or filter is its own copy.
    expect((await list({ category: "Sports", pageSize: 1 })).pagination.total).toBe(1);
    expect(asked).toBe(2);
    // The answer is the catalog's own (the same prices asked on the side node's own behalf).
    const direct = await side.call<Page, object>("catalog.listEvents", { category: "Sports" });
    expect(direct.items).toEqual(third.items);
  });

  test("a new event, a print and a status change are in the next answer", async () => {
    const e = await create("Final");
    expect((await list()).items.map((x) => x.id)).toContain(e.id);
    const [home] = e.markets.map((m) => m.id);
    main.emit("market.trade", {
      marketId: home,
      tradeId: "t-final-1",
      outcome: "YES",
      yesPrice: 37,
      quantity: 1_000_000,
      notional: 370_000,
      at: new Date().toISOString(),
    });
    const row = async () => (await list()).items.find((x) => x.id === e.id)!;
    // Prints are written in batches: the list follows once the batch is written.
    await until("the print in the list", async () => ((await row()).outcomes[0].chance === "0.37" ? true : null));
    expect((await row()).volumeUsd).toBe("0.37");
    const closed = await main.call<MarketView, object>("catalog.closeMarket", { id: home });
    expect(closed.status).toBe("closed");
    expect((await row()).outcomes[0]).toMatchObject({ marketId: home, status: "closed", chance: "0.37" });
  });
});
