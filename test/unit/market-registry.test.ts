import { MarketRegistry, type RegisteredActor, type RegistryPorts } from "../../trading/market-registry";
import { isRefusal } from "../../engine/refusal";

/** The market actors' registry on in-memory fakes: engines, loads, actors. */
class FakeActor implements RegisteredActor {
  fenced = false;
  queueDepth = 0;
  drained = 0;
  constructor(
    readonly marketId: string,
    readonly generation: number,
    public status: string | null = "open",
  ) {}
  async drain(): Promise<void> {
    this.drained++;
  }
}

function world(nodeID = "eng-a") {
  const owners = new Map<string, string | null>();
  const loads: string[] = [];
  const measured: Array<{ marketId: string; queueDepth: number }> = [];
  const logs: string[] = [];
  const statuses = new Map<string, string | null>();
  const failNext = new Set<string>();
  let refreshed = 0;
  let gen = 0;
  const ports: RegistryPorts<FakeActor> = {
    nodeID,
    ownerOf: (m) => (owners.has(m) ? (owners.get(m) as string | null) : nodeID),
    refreshOwners: () => void refreshed++,
    load: async (m) => {
      loads.push(m);
      await new Promise((r) => setImmediate(r));
      if (failNext.delete(m)) throw new Error(`ledger down for ${m}`);
      return new FakeActor(m, ++gen, statuses.has(m) ? (statuses.get(m) as string | null) : "open");
    },
    measured: (marketId, _ms, queueDepth) => void measured.push({ marketId, queueDepth }),
    log: (message) => void logs.push(message),
  };
  return { registry: new MarketRegistry(ports), owners, loads, measured, logs, statuses, failNext, refreshed: () => refreshed };
}

describe("MarketRegistry", () => {
  test("an actor is loaded once on first use, also for callers arriving while it loads", async () => {
    const w = world();
    const [a, b] = await Promise.all([w.registry.actor("m1"), w.registry.actor("m1")]);
    expect(a).toBe(b);
    expect(await w.registry.actor("m1")).toBe(a);
    expect(w.loads).toEqual(["m1"]);
  });

  test("only the market's owner in this node's view loads it; elsewhere the refusal is MARKET_MOVED and nothing loads", async () => {
    const w = world();
    w.owners.set("m2", "eng-b");
    const err = await w.registry.actor("m2").catch((e: unknown) => e);
    expect(isRefusal(err) && { kind: err.kind, code: err.code }).toEqual({ kind: "moved", code: "MARKET_MOVED" });
    expect(w.loads).toEqual([]);
    // No engine seen at all: this node takes it (the ledger's lease arbitrates).
    w.owners.set("m3", null);
    expect(w.registry.owns("m3")).toBe(true);
    await w.registry.actor("m3");
    expect(w.loads).toEqual(["m3"]);
  });

  test("a fenced actor is rebuilt from the ledger on its next use; a failed load is not kept", async () => {
    const w = world();
    const first = await w.registry.actor("m1");
    first.fenced = true;
    const second = await w.registry.actor("m1");
    expect(second).not.toBe(first);
    expect(second.generation).toBe(first.generation + 1);
    w.failNext.add("m4");
    await expect(w.registry.actor("m4")).rejects.toThrow("ledger down for m4");
    expect((await w.registry.actor("m4")).marketId).toBe("m4");
    expect(w.loads).toEqual(["m1", "m1", "m4", "m4"]);
  });

  test("markets that moved to another node are dropped and their actors fenced at once", async () => {
    const w = world();
    const stay = await w.registry.actor("m1");
    const moved = await w.registry.actor("m2");
    w.owners.set("m2", "eng-b");
    w.registry.dropForeignMarkets();
    await new Promise((r) => setImmediate(r));
    expect(w.refreshed()).toBe(1);
    expect(moved.fenced).toBe(true);
    expect(stay.fenced).toBe(false);
    expect(w.logs).toEqual(["market m2 moved to another engine node"]);
    await expect(w.registry.actor("m2")).rejects.toMatchObject({ code: "MARKET_MOVED" });
  });

  test("a market the catalog does not know has no actor, and none is kept", async () => {
    const w = world();
    w.statuses.set("ghost", null);
    expect(await w.registry.existingActor("ghost")).toBeNull();
    expect(await w.registry.existingActor("ghost")).toBeNull();
    expect(w.loads).toEqual(["ghost", "ghost"]);
    const err = await w.registry.onMarket("ghost", async () => 1).catch((e: unknown) => e);
    expect(isRefusal(err) && { kind: err.kind, code: err.code, message: err.message }).toEqual({
      kind: "not_found",
      code: "RESOURCE_NOT_FOUND",
      message: "Market not found",
    });
  });

  test("a command runs on the market's actor and is measured, also when it fails", async () => {
    const w = world();
    const actor = await w.registry.actor("m1");
    actor.queueDepth = 3;
    expect(await w.registry.onMarket("m1", async (a) => a.generation)).toBe(actor.generation);
    await expect(w.registry.onMarket("m1", async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(w.measured).toEqual([
      { marketId: "m1", queueDepth: 3 },
      { marketId: "m1", queueDepth: 3 },
    ]);
  });

  test("best prices never fail: a market served elsewhere answers null", async () => {
    const w = world();
    w.owners.set("m2", "eng-b");
    expect(await w.registry.actorIfServed("m2")).toBeNull();
    expect((await w.registry.actorIfServed("m1"))?.marketId).toBe("m1");
  });

  test("drain lets every actor finish", async () => {
    const w = world();
    const a = await w.registry.actor("m1");
    const b = await w.registry.actor("m2");
    await w.registry.drain();
    expect([a.drained, b.drained]).toEqual([1, 1]);
  });
});
