/**
 * A listed page rendered without prices, then shown with live prices (catalog/views.ts
 * `withLiveChances`, what the main node does with its copy of the events list), is what rendering
 * it with the prices gives; and the catalog's count of writes (mixins/catalog-writes.ts) counts
 * every write to the watched stores and nothing else.
 */
import fc from "fast-check";
import { NO_PRICES, renderEvent, renderOutcome, withLiveChances, type EventView } from "../../catalog/views";
import { openOutcomeIds } from "../../catalog/reads";
import { watchWrites } from "../../mixins/catalog-writes";
import { SharedCount } from "../../mixins/shared-count";
import type { EventDoc, LivePrice, MarketDoc } from "../../models/catalog";
import type { Doc, Store, Stores } from "../../lib/store";

const STATUSES = ["open", "closed", "resolved", "cancelled", "resolution_failed"] as const;

const price = fc.option(
  fc.integer({ min: 1, max: 999_999 }).map((micro) => `0.${String(micro).padStart(6, "0").replace(/0+$/, "") || "0"}`),
  { nil: null },
);
const livePrice = fc.record({ buyYesPrice: price, sellYesPrice: price, buyNoPrice: price, sellNoPrice: price }) as fc.Arbitrary<LivePrice>;

const market = (i: number, status: string, lastYesPrice: number | undefined, yesPayout: number | undefined): MarketDoc =>
  ({
    _id: `mkt_${i}`,
    eventId: "evt_1",
    position: i,
    title: `Outcome ${i}?`,
    outcomeLabel: `O${i}`,
    status,
    result: null,
    outcomes: ["YES", "NO"],
    volume: 0,
    conditionId: "0x00",
    ammLiquidity: "0",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...(lastYesPrice === undefined ? {} : { lastYesPrice }),
    ...(yesPayout === undefined ? {} : { yesPayout }),
  }) as MarketDoc;

const event = { _id: "evt_1", title: "E", tags: [], volumeUsd: 0 } as unknown as EventDoc;
const listed = (markets: MarketDoc[], live: Record<string, LivePrice>): EventView =>
  renderEvent(
    event,
    [],
    markets.map((m) => renderOutcome(m, live[m._id])),
  );

describe("withLiveChances", () => {
  test("a page rendered without prices, then given the open markets' live prices, is the page rendered with them", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            status: fc.constantFrom(...STATUSES),
            last: fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }),
            payout: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
            live: livePrice,
          }),
          { maxLength: 8 },
        ),
        (rows) => {
          const markets = rows.map((r, i) => market(i, r.status, r.last, r.payout));
          // As the catalog asks: prices of open markets only.
          const live = Object.fromEntries(rows.flatMap((r, i) => (r.status === "open" ? [[`mkt_${i}`, r.live]] : [])));
          const bare = [listed(markets, {})];
          const frozen = JSON.stringify(bare);
          // Prices given for every market: only the open ones' count, as the catalog asks for no others.
          const all = Object.fromEntries(rows.map((r, i) => [`mkt_${i}`, r.live]));
          expect(withLiveChances(bare, all)).toEqual([listed(markets, live)]);
          expect(JSON.stringify(bare)).toBe(frozen);
          expect(openOutcomeIds(bare)).toEqual(Object.keys(live));
        },
      ),
    );
  });

  test("a midpoint wider than 0.10 or a missing side keeps the last trade's price", () => {
    const m = market(1, "open", 42, undefined);
    const bare = [listed([m], {})];
    const wide: LivePrice = { ...NO_PRICES, sellYesPrice: "0.30", buyYesPrice: "0.41" };
    const oneSide: LivePrice = { ...NO_PRICES, sellYesPrice: "0.30" };
    const near: LivePrice = { ...NO_PRICES, sellYesPrice: "0.30", buyYesPrice: "0.35" };
    expect(withLiveChances(bare, { mkt_1: wide })[0].outcomes[0].chance).toBe("0.42");
    expect(withLiveChances(bare, { mkt_1: oneSide })[0].outcomes[0].chance).toBe("0.42");
    expect(withLiveChances(bare, { mkt_1: near })[0].outcomes[0].chance).toBe("0.325");
  });
});

/** A store that records the calls it gets (a write answers 1, a read nothing found). */
function recording(calls: string[], fail?: string): Store<Doc> {
  const op =
    (name: string, answer: unknown) =>
    async (..._args: unknown[]) => {
      calls.push(name);
      if (name === fail) throw new Error("disk");
      return answer;
    };
  return {
    insert: op("insert", { _id: "x" }),
    insertMany: op("insertMany", undefined),
    insertOnce: op("insertOnce", true),
    findOne: op("findOne", null),
    find: op("find", []),
    count: op("count", 0),
    update: op("update", 1),
    remove: op("remove", 0),
    put: op("put", undefined),
  } as Store<Doc>;
}

describe("watchWrites", () => {
  type C = { events: Doc; markets: Doc; prints: Doc };

  test("each write to a watched store counts once it ended, before its caller goes on; reads and other stores do not", async () => {
    const calls: string[] = [];
    const stores: Stores<C> = { events: recording(calls), markets: recording(calls), prints: recording(calls) };
    const count = new SharedCount();
    const watched = watchWrites(
      () => stores,
      ["events", "markets"],
      () => count.bump(),
    );
    const s = watched();
    expect(watched()).toBe(s);
    const seen: number[] = [];
    await s.events.insert({ _id: "e1" }).then(() => seen.push(count.value()));
    await s.events.insertMany([{ _id: "e2" }]);
    expect(await s.events.insertOnce({ _id: "e1" })).toBe(true);
    expect(await s.events.update({ _id: "e2" }, { $set: { n: 1 } })).toBe(1);
    await s.events.put({ _id: "e4" });
    await s.markets.remove({ _id: "none" });
    expect(seen).toEqual([1]);
    expect(count.value()).toBe(6);
    await s.events.find({});
    await s.events.findOne({ _id: "e1" });
    await s.events.count({});
    await s.prints.insert({ _id: "p1" });
    expect(count.value()).toBe(6);
    expect(calls).toEqual(["insert", "insertMany", "insertOnce", "update", "put", "remove", "find", "findOne", "count", "insert"]);
  });

  test("a write that fails counts too (it may have changed something)", async () => {
    const count = new SharedCount();
    const stores: Stores<C> = { events: recording([], "update"), markets: recording([]), prints: recording([]) };
    const s = watchWrites(
      () => stores,
      ["events"],
      () => count.bump(),
    )();
    await expect(s.events.update({}, {})).rejects.toThrow("disk");
    expect(count.value()).toBe(1);
  });

  test("two views of one shared count see each other's writes", () => {
    const a = new SharedCount();
    const b = new SharedCount(a.shared);
    a.bump();
    b.bump();
    expect(a.value()).toBe(2);
    expect(b.value()).toBe(2);
  });
});
