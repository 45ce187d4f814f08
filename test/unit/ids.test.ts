import { ServiceBroker } from "moleculer";
import { brokerUidGenerator, newId } from "../../lib/ids";

describe("ids", () => {
  it("newId: prefix, time, 20 hex digits of randomness; no repeat across many refills of the random pool", () => {
    const ids = Array.from({ length: 5000 }, () => newId("ord"));
    for (const id of ids) expect(id).toMatch(/^ord_[0-9a-z]{8,9}[0-9a-f]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // The random parts differ too (not only the counter-like time part).
    expect(new Set(ids.map((id) => id.slice(-20))).size).toBe(ids.length);
  });

  it("newId: each id sorts after the one before, within one ms and when the clock steps back", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("ord"));
    expect(ids.filter((id, i) => i > 0 && id <= ids[i - 1])).toEqual([]);
    const now = jest.spyOn(Date, "now");
    try {
      const t = Date.now() + 10_000;
      now.mockReturnValue(t);
      const a = newId("ord");
      const b = newId("ord");
      now.mockReturnValue(t - 5_000); // the clock steps back
      const c = newId("ord");
      expect(b > a && c > b).toBe(true);
      expect(c.slice(4, 12)).toBe(t.toString(36));
      // Within one ms the next id is not the previous plus one.
      expect(BigInt(`0x${b.slice(-20)}`) - BigInt(`0x${a.slice(-20)}`)).not.toBe(1n);
    } finally {
      now.mockRestore();
    }
  });

  it("newId: two processes minting in the same ms get different ids", () => {
    const copies: Array<typeof newId> = [];
    for (let i = 0; i < 2; i++)
      jest.isolateModules(() => copies.push((jest.requireActual("../../lib/ids") as { newId: typeof newId }).newId));
    const now = jest.spyOn(Date, "now").mockReturnValue(Date.now() + 20_000);
    try {
      const a = Array.from({ length: 1000 }, () => copies[0]("ord"));
      const b = Array.from({ length: 1000 }, () => copies[1]("ord"));
      expect(new Set([...a, ...b]).size).toBe(2000);
    } finally {
      now.mockRestore();
    }
  });

  it("broker ids: unique per call, carry the node id, and are what a real broker hands its contexts", async () => {
    const gen = brokerUidGenerator();
    const node = { nodeID: "engine-1" };
    const a = gen.call(node);
    const b = gen.call(node);
    expect(a).not.toBe(b);
    expect(a.startsWith("engine-1-")).toBe(true);

    const broker = new ServiceBroker({ logger: false, nodeID: "n-ids", uidGenerator: brokerUidGenerator() });
    const seen: string[] = [];
    broker.createService({ name: "echo", actions: { id: (ctx) => seen.push(ctx.id) } });
    await broker.start();
    try {
      await Promise.all([broker.call("echo.id"), broker.call("echo.id")]);
      expect(seen).toHaveLength(2);
      expect(seen[0]).not.toBe(seen[1]);
      for (const id of seen) expect(id.startsWith("n-ids-")).toBe(true);
    } finally {
      await broker.stop();
    }
  });
});
