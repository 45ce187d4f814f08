import fc from "fast-check";
import { FillWindow, OrderGroups } from "../../trading/order-groups";

const SHARE = 1_000_000;

function world() {
  const clock = { ms: Date.parse("2026-03-01T12:00:00.000Z") };
  let n = 0;
  return { clock, groups: new OrderGroups({ now: () => clock.ms, newId: (p) => `${p}_${++n}` }) };
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
  test("a burst of fills reaching the limit within the window triggers: the group's open orders to cancel, new orders refused until reset", () => {
    const { clock, groups } = world();
    const g = groups.create("usr_a", { fillLimit: String(10 * SHARE), windowSeconds: 5 });
    expect(g).toEqual({ orderGroupId: "grp_1", fillLimit: String(10 * SHARE), windowSeconds: 5, triggered: false });
    groups.admit(g.orderGroupId, "usr_a");
    for (const o of ["o1", "o2", "o3"]) expect(groups.join(g.orderGroupId, o, true, 0)).toBeNull();
    expect(groups.filled("o1", 4 * SHARE, false)).toBeNull();
    // Slow fills never trigger: the first has left the window when the next comes.
    clock.ms += 5_000;
    expect(groups.filled("o2", 5 * SHARE, true)).toBeNull();
    clock.ms += 1_000;
    expect(groups.filled("o2", 5 * SHARE, true)).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o2", "o3"] });
    expect(groups.list("usr_a")[0].triggered).toBe(true);
    expect(() => groups.admit(g.orderGroupId, "usr_a")).toThrow(
      expect.objectContaining({ kind: "conflict", code: "ORDER_GROUP_TRIGGERED" }),
    );
    // Further fills of former members change nothing.
    expect(groups.filled("o3", SHARE, true)).toBeNull();
    expect(groups.reset(g.orderGroupId, "usr_a").triggered).toBe(false);
    groups.admit(g.orderGroupId, "usr_a");
  });

  test("an order that fills at once counts; another user's or an unknown group is not found; bad terms are refused", () => {
    const { groups } = world();
    const g = groups.create("usr_a", { fillLimit: "100" });
    expect(g.windowSeconds).toBe(15);
    expect(groups.join(g.orderGroupId, "o1", true, 60)).toBeNull();
    expect(groups.join(g.orderGroupId, "o2", false, 40)).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o1"] });
    expect(() => groups.admit(g.orderGroupId, "usr_b")).toThrow(expect.objectContaining({ code: "ORDER_GROUP_NOT_FOUND" }));
    expect(() => groups.reset("grp_x", "usr_a")).toThrow(expect.objectContaining({ code: "ORDER_GROUP_NOT_FOUND" }));
    for (const bad of [
      { fillLimit: "0" },
      { fillLimit: "-1" },
      { fillLimit: "1", windowSeconds: 0 },
      { fillLimit: "1", windowSeconds: 3601 },
    ])
      expect(() => groups.create("usr_a", bad)).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
  });

  test("deleting a group hands back its open orders; orders that left are not among them", () => {
    const { groups } = world();
    const g = groups.create("usr_a", { fillLimit: "100", windowSeconds: 3600 });
    groups.join(g.orderGroupId, "o1", true, 0);
    groups.join(g.orderGroupId, "o2", true, 0);
    groups.left("o1");
    expect(groups.remove(g.orderGroupId, "usr_a")).toEqual({ orderGroupId: g.orderGroupId, userId: "usr_a", orderIds: ["o2"] });
    expect(groups.list("usr_a")).toEqual([]);
  });
});
