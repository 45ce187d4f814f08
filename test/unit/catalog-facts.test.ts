import { CatalogFacts } from "../../mixins/catalog-facts";
import type { EventInternal, MarketInternal } from "../../models/catalog";

const market = (id: string, eventId: string | null, status = "open") =>
  ({ id, eventId, status, ammLiquidity: "0" }) as unknown as MarketInternal;
const event = (id: string, marketIds: string[]) =>
  ({
    id,
    mutuallyExclusive: true,
    ammLiquidity: "1000",
    markets: marketIds.map((m) => ({ id: m, status: "open" })),
  }) as unknown as EventInternal;

describe("CatalogFacts", () => {
  let now = 0;
  const facts = () => new CatalogFacts(5_000, () => now);
  beforeEach(() => (now = 1_000));

  it("asks the catalog once per market within its time, again after it", async () => {
    const f = facts();
    const load = jest.fn(async () => market("m1", null));
    await f.market("m1", load);
    await f.market("m1", load);
    expect(load).toHaveBeenCalledTimes(1);
    now += 5_000;
    await f.market("m1", load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("forgets a changed market and its event", async () => {
    const f = facts();
    const m = jest.fn(async () => market("m1", "e1"));
    const e = jest.fn(async () => event("e1", ["m1", "m2"]));
    await f.market("m1", m);
    await f.event("e1", e);
    f.forget("m1");
    await f.market("m1", m);
    await f.event("e1", e);
    expect(m).toHaveBeenCalledTimes(2);
    expect(e).toHaveBeenCalledTimes(2);
  });

  it("forgets an event when another of its markets changes", async () => {
    const f = facts();
    const e = jest.fn(async () => event("e1", ["m1", "m2"]));
    await f.event("e1", e);
    f.forget("m2");
    await f.event("e1", e);
    expect(e).toHaveBeenCalledTimes(2);
  });

  it("asks for the event again when a market it does not list is first seen (an outcome added)", async () => {
    const f = facts();
    let ids = ["m1"];
    const e = jest.fn(async () => event("e1", ids));
    await f.event("e1", e);
    ids = ["m1", "m2"];
    await f.market("m2", async () => market("m2", "e1"));
    const seen = await f.event("e1", e);
    expect(seen.markets.map((x) => x.id)).toEqual(["m1", "m2"]);
    expect(e).toHaveBeenCalledTimes(2);
  });

  it("keeps no failure", async () => {
    const f = facts();
    const load = jest.fn().mockRejectedValueOnce(new Error("down")).mockResolvedValue(market("m1", null));
    await expect(f.market("m1", load)).rejects.toThrow("down");
    await expect(f.market("m1", load)).resolves.toMatchObject({ id: "m1" });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("shares one question among reads that come together", async () => {
    const f = facts();
    const load = jest.fn(async () => market("m1", null));
    await Promise.all([f.market("m1", load), f.market("m1", load), f.market("m1", load)]);
    expect(load).toHaveBeenCalledTimes(1);
  });
});
