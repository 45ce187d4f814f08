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
