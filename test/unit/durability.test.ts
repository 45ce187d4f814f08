/**
 * The durability watch (trading/durability.ts): waits end on the ledger's watermark; a wait that
 * sees none for the fallback time asks the ledger itself; a watermark of another ledger process
 * sends the waits of the old one to the ledger (which knows their outcome); one timer serves all.
 */
import { DurabilityWatch } from "../../trading/durability";

describe("DurabilityWatch", () => {
  let t = 0;
  let asked: Array<[number, string]>;
  let answer: (seq: number, instance: string) => Promise<void>;

  beforeEach(() => {
    jest.useFakeTimers();
    t = 0;
    asked = [];
    answer = async () => undefined;
  });
  afterEach(() => jest.useRealTimers());

  const watch = () =>
    new DurabilityWatch(
      (seq, instance) => {
        asked.push([seq, instance]);
        return answer(seq, instance);
      },
      1000,
      () => t,
    );
  const state = (p: Promise<void>) => {
    const s = { v: "pending" as string };
    p.then(
      () => (s.v = "resolved"),
      (e: Error) => (s.v = `rejected: ${e.message}`),
    );
    return s;
  };
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  test("the watermark ends every wait it passes, and only those; many waits share one timer", async () => {
    const w = watch();
    const a = state(w.wait(5, "L1"));
    const b = state(w.wait(6, "L1"));
    const c = state(w.wait(9, "L1"));
    expect(jest.getTimerCount()).toBe(1);
    w.observe("L1", 6);
    await settle();
    expect([a.v, b.v, c.v]).toEqual(["resolved", "resolved", "pending"]);
    // Already durable: answered at once.
    const d = state(w.wait(6, "L1"));
    await settle();
    expect(d.v).toBe("resolved");
    expect(jest.getTimerCount()).toBe(1);
    w.observe("L1", 9);
    await settle();
    expect(c.v).toBe("resolved");
    expect(jest.getTimerCount()).toBe(0);
    expect(asked).toEqual([]);
  });

  test("a wait that sees no watermark for the fallback time asks the ledger, the oldest first", async () => {
    const w = watch();
    const a = state(w.wait(3, "L1"));
    t = 600;
    jest.advanceTimersByTime(600);
    const b = state(w.wait(4, "L1"));
    t = 1000;
    jest.advanceTimersByTime(400);
    await settle();
    expect(asked).toEqual([[3, "L1"]]);
    expect([a.v, b.v]).toEqual(["resolved", "pending"]);
    t = 1600;
    jest.advanceTimersByTime(600);
    await settle();
    expect(asked).toEqual([
      [3, "L1"],
      [4, "L1"],
    ]);
    expect(b.v).toBe("resolved");
    expect(jest.getTimerCount()).toBe(0);
  });

  test("a watermark of another ledger process: the old process's waits get the ledger's answer (unknown outcome refused)", async () => {
    answer = async (_seq, instance) => {
      if (instance === "L1") throw new Error("LEDGER_RESTARTED");
    };
    const w = watch();
    const a = state(w.wait(7, "L1"));
    w.observe("L2", 1);
    await settle();
    expect(asked).toEqual([[7, "L1"]]);
    expect(a.v).toBe("rejected: LEDGER_RESTARTED");
  });

  test("closing fails every wait", async () => {
    const w = watch();
    const a = state(w.wait(1, "L1"));
    w.close(new Error("stopping"));
    await settle();
    expect(a.v).toBe("rejected: stopping");
    expect(jest.getTimerCount()).toBe(0);
  });
});
