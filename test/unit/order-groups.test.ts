import fc from "fast-check";
import { FillWindow, OrderGroups, type OrderGroupSource } from "../../trading/order-groups";
import type { GroupOrderFill, OrderGroupRecord, StoredOrderGroup } from "../../models/trading";

const SHARE = 1_000_000;

/**
 * A fake money store: the journaled group records projected as the stores project them, the
 * orders that named a group, and their fills.
 */
class FakeJournal {
  readonly records: OrderGroupRecord[] = [];
  readonly groups = new Map<string, StoredOrderGroup>();
  readonly open = new Map<string, { orderGroupId: string; marketId: string }>();
  readonly fills: Array<GroupOrderFill & { userId: string; orderGroupId: string }> = [];
  failing = false;

  constructor(private readonly clock: { ms: number }) {}

  async record(r: OrderGroupRecord): Promise<void> {
    if (this.failing) throw new Error("disk full");
    this.records.push(r);
    const at = new Date(this.clock.ms).toISOString();
    if (r.kind === "create") this.groups.set(r.orderGroupId, { ...r, triggered: false, since: at });
    else if (r.kind === "delete") this.groups.delete(r.orderGroupId);
    else
      Object.assign(
        this.groups.get(r.orderGroupId) as StoredOrderGroup,
        r.kind === "reset" ? { triggered: false, since: at } : { triggered: true },
      );
  }

  fill(orderId: string, quantity: number, userId = "usr_a"): void {
    const g = this.open.get(orderId)?.orderGroupId ?? (this.fills.find((f) => f.orderId === orderId)?.orderGroupId as string);
    this.fills.push({ orderId, quantity, at: new Date(this.clock.ms).toISOString(), userId, orderGroupId: g });
  }

  source(): OrderGroupSource {
    return {
      groups: async () => [...this.groups.values()].map((g) => ({ ...g })),
      openOrders: async () => [...this.open].map(([orderId, o]) => ({ orderId, ...o })),
      fills: async (userId, orderGroupId, after) =>
        this.fills
          .filter((f) => f.userId === userId && f.orderGroupId === orderGroupId && f.at > after)
          .map(({ orderId, quantity, at }) => ({ orderId, quantity, at })),
    };
  }
}

function world() {
  const clock = { ms: Date.parse("2026-03-01T12:00:00.000Z") };
  let n = 0;
  const journal = new FakeJournal(clock);
  const warnings: string[] = [];
  const make = () =>
    new OrderGroups({
      now: () => clock.ms,
      newId: (p) => `${p}_${++n}`,
      record: (r) => journal.record(r),
      warn: (m) => void warnings.push(m),
    });
  return { clock, journal, warnings, make, groups: make() };
}

describe("the rolling fill window (fake clock)", () => {
  test("counts what filled within the last windowMs only; a fill exactly windowMs old has left", () => {
    const w = new FillWindow(15_000);
    expect(w.add(0, 5)).toBe(5);
    expect(w.add(10_000, 7)).toBe(12);
    expect(w.total(14_999)).toBe(12);
    expect(w.total(15_000)).toBe(7);
    expect(w.add(24_999, 1)).toBe(8);
    expect(w.total(25_000)).toBe(1);
    w.clear();
    expect(w.total(25_000)).toBe(0);
  });

  test("equals a naive sum over random fills", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 1, max: 100 })), { maxLength: 300 }), (steps) => {
        const w = new FillWindow(2_000);
        const fills: Array<[number, number]> = [];
        let t = 0;
        for (const [dt, q] of steps) {
          t += dt;
          fills.push([t, q]);
          const naive = fills.filter(([at]) => at > t - 2_000).reduce((s, [, x]) => s + x, 0);
          expect(w.add(t, q)).toBe(naive);
        }
      }),
    );
  });
});

describe("order groups", () => {
  test("a burst of fills reaching the limit within the window triggers: the group's open orders to cancel, new orders refused until reset", async () => {
    const { clock, groups } = world();
    const g = await groups.create("usr_a", { fillLimit: String(10 * SHARE), windowSeconds: 5 });
    expect(g).toEqual({ orderGroupId: "grp_1", fillLimit: String(10 * SHARE), windowSeconds: 5, triggered: false });
    groups.admit(g.orderGroupId, "usr_a");
    for (const o of ["o1", "o2", "o3"]) expect(await groups.join(g.orderGroupId, o, true, 0)).toBeNull();
    expect(await groups.filled("o1", 4 * SHARE, false)).toBeNull();
    // Slow fills never trigger: the first has left the window when the next comes.
    clock.ms += 5_000;
    expect(await groups.filled("o2", 5 * SHARE, true)).toBeNull();
    clock.ms += 1_000;
    expect(await groups.filled("o2", 5 * SHARE, true)).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o2", "o3"] });
    expect(groups.list("usr_a")[0].triggered).toBe(true);
    expect(() => groups.admit(g.orderGroupId, "usr_a")).toThrow(
      expect.objectContaining({ kind: "conflict", code: "ORDER_GROUP_TRIGGERED" }),
    );
    // Further fills of former members change nothing.
    expect(await groups.filled("o3", SHARE, true)).toBeNull();
    expect((await groups.reset(g.orderGroupId, "usr_a")).triggered).toBe(false);
    groups.admit(g.orderGroupId, "usr_a");
  });

  test("an order that fills at once counts; another user's or an unknown group is not found; bad terms are refused", async () => {
    const { groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100" });
    expect(g.windowSeconds).toBe(15);
    expect(await groups.join(g.orderGroupId, "o1", true, 60)).toBeNull();
    expect(await groups.join(g.orderGroupId, "o2", false, 40)).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o1"] });
    expect(() => groups.admit(g.orderGroupId, "usr_b")).toThrow(expect.objectContaining({ code: "ORDER_GROUP_NOT_FOUND" }));
    await expect(groups.reset("grp_x", "usr_a")).rejects.toThrow(expect.objectContaining({ code: "ORDER_GROUP_NOT_FOUND" }));
    for (const bad of [
      { fillLimit: "0" },
      { fillLimit: "-1" },
      { fillLimit: "1", windowSeconds: 0 },
      { fillLimit: "1", windowSeconds: 3601 },
    ])
      await expect(groups.create("usr_a", bad)).rejects.toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
  });

  test("deleting a group hands back its open orders; orders that left are not among them", async () => {
    const { groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100", windowSeconds: 3600 });
    await groups.join(g.orderGroupId, "o1", true, 0);
    await groups.join(g.orderGroupId, "o2", true, 0);
    groups.left("o1");
    expect(await groups.remove(g.orderGroupId, "usr_a")).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o2"] });
    expect(groups.list("usr_a")).toEqual([]);
  });
});

describe("order groups kept across a restart (a fake journal)", () => {
  test("creation, trigger, reset and deletion are journaled; a change the journal refused did not happen", async () => {
    const { journal, groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100", windowSeconds: 60 });
    await groups.join(g.orderGroupId, "o1", true, 0);
    await groups.filled("o1", 100, false);
    await groups.reset(g.orderGroupId, "usr_a");
    await groups.remove(g.orderGroupId, "usr_a");
    expect(journal.records).toEqual([
      { kind: "create", orderGroupId: g.orderGroupId, userId: "usr_a", fillLimit: 100, windowSeconds: 60 },
      { kind: "trigger", orderGroupId: g.orderGroupId, userId: "usr_a" },
      { kind: "reset", orderGroupId: g.orderGroupId, userId: "usr_a" },
      { kind: "delete", orderGroupId: g.orderGroupId, userId: "usr_a" },
    ]);

    const h = await groups.create("usr_a", { fillLimit: "100" });
    await groups.join(h.orderGroupId, "o2", true, 100);
    journal.failing = true;
    await expect(groups.create("usr_a", { fillLimit: "5" })).rejects.toThrow("disk full");
    await expect(groups.reset(h.orderGroupId, "usr_a")).rejects.toThrow("disk full");
    await expect(groups.remove(h.orderGroupId, "usr_a")).rejects.toThrow("disk full");
    expect(groups.list("usr_a")).toEqual([{ ...h, triggered: true }]);
  });

  test("a trigger the journal refused still cancels the group's orders, and says so", async () => {
    const { journal, warnings, groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100" });
    await groups.join(g.orderGroupId, "o1", true, 0);
    journal.failing = true;
    expect(await groups.filled("o1", 100, true)).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o1"] });
    expect(warnings).toEqual([`order group ${g.orderGroupId} triggered but not journaled: disk full`]);
  });

  test("after a restart a triggered group still refuses new orders and hands back its orders still open; reset works", async () => {
    const { journal, make, groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100", windowSeconds: 60 });
    await groups.join(g.orderGroupId, "o1", true, 0);
    await groups.filled("o1", 100, true);
    // The process died before o1's cancel was written: the store still has it open in the group.
    journal.open.set("o1", { orderGroupId: g.orderGroupId, marketId: "mkt_1" });

    const again = make();
    expect(await again.load(journal.source())).toEqual([{ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o1"] }]);
    expect(again.list("usr_a")).toEqual([{ ...g, triggered: true }]);
    expect(() => again.admit(g.orderGroupId, "usr_a")).toThrow(expect.objectContaining({ code: "ORDER_GROUP_TRIGGERED" }));
    // An order admitted just before the trigger is cancelled as it joins.
    expect(await again.join(g.orderGroupId, "o9", true, 0)).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o9"] });
    expect((await again.reset(g.orderGroupId, "usr_a")).triggered).toBe(false);
    again.admit(g.orderGroupId, "usr_a");
    expect(await make().load(journal.source())).toEqual([]);
  });

  test("the window is rebuilt from the fills of the last windowSeconds since the last reset; open orders stay members", async () => {
    const { clock, journal, make, groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100", windowSeconds: 10 });
    journal.open.set("o1", { orderGroupId: g.orderGroupId, marketId: "mkt_1" });
    journal.open.set("o2", { orderGroupId: g.orderGroupId, marketId: "mkt_2" });
    journal.fill("o1", 50); // before the reset: never counts again
    clock.ms += 1_000;
    await groups.reset(g.orderGroupId, "usr_a");
    clock.ms += 1_000;
    journal.fill("o1", 30); // leaves the window 10 s later
    clock.ms += 5_000;
    journal.fill("o2", 40);
    clock.ms += 6_000;

    const again = make();
    expect(await again.load(journal.source())).toEqual([]);
    // 40 in the window: 59 more do not trigger, 60 do, and both open orders are handed back.
    expect(await again.filled("o2", 59, true)).toBeNull();
    expect(await again.filled("o1", 1, true)).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o1", "o2"] });
  });

  test("a window that reached its limit before the trigger was journaled triggers at load", async () => {
    const { clock, journal, make, groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100", windowSeconds: 60 });
    journal.open.set("o1", { orderGroupId: g.orderGroupId, marketId: "mkt_1" });
    journal.open.set("o2", { orderGroupId: g.orderGroupId, marketId: "mkt_1" });
    clock.ms += 1_000;
    journal.fill("o1", 60);
    journal.fill("o2", 40);
    const again = make();
    expect(await again.load(journal.source())).toEqual([{ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o1", "o2"] }]);
    expect(journal.records.at(-1)).toEqual({ kind: "trigger", orderGroupId: g.orderGroupId, userId: "usr_a" });
    expect(again.list("usr_a")[0].triggered).toBe(true);
  });

  test("a deleted group is gone after a restart, and its orders belong to no group", async () => {
    const { journal, make, groups } = world();
    const g = await groups.create("usr_a", { fillLimit: "100" });
    const h = await groups.create("usr_b", { fillLimit: "7", windowSeconds: 30 });
    await groups.remove(g.orderGroupId, "usr_a");
    journal.open.set("o1", { orderGroupId: g.orderGroupId, marketId: "mkt_1" });
    const again = make();
    await again.load(journal.source());
    expect(again.list("usr_a")).toEqual([]);
    expect(again.list("usr_b")).toEqual([h]);
    expect(await again.filled("o1", 1_000, true)).toBeNull();
  });
});
