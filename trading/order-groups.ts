/**
 * Order groups, a fill-rate kill switch (Kalshi's order groups), as a pure core on an injected
 * clock: a user's group has a fill limit over a rolling window; when the quantity filled on the
 * group's orders within the last `windowSeconds` reaches the limit, the group triggers: every
 * open order of it is to be cancelled at once (reason `order_group`) and new orders naming it are
 * refused (409 ORDER_GROUP_TRIGGERED) until the owner resets it.
 */
import { conflicting, invalid, notFoundFault } from "../engine/refusal";

export const MIN_WINDOW_SECONDS = 1;
export const MAX_WINDOW_SECONDS = 3600;
export const DEFAULT_WINDOW_SECONDS = 15;

/**
 * Fills of a window, oldest first (runs of one time share an entry), with their running sum:
 * adding is O(1), sliding drops from the front (amortized O(1)).
 */
export class FillWindow {
  private times: number[] = [];
  private quantities: number[] = [];
  private head = 0;
  private sum = 0;

  constructor(readonly windowMs: number) {}

  /** The quantity filled within the window ending at `nowMs`. */
  total(nowMs: number): number {
    while (this.head < this.times.length && this.times[this.head] <= nowMs - this.windowMs) {
      this.sum -= this.quantities[this.head];
      this.head++;
    }
    if (this.head > 64 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.quantities = this.quantities.slice(this.head);
      this.head = 0;
    }
    return this.sum;
  }

  /** A fill at `atMs` (never earlier than the last one's time: a late report counts as now); the window's total after it. */
  add(atMs: number, quantity: number): number {
    const last = this.times.length - 1;
    const t = last >= this.head ? Math.max(atMs, this.times[last]) : atMs;
    if (last >= this.head && this.times[last] === t) this.quantities[last] += quantity;
    else {
      this.times.push(t);
      this.quantities.push(quantity);
    }
    this.sum += quantity;
    return this.total(t);
  }

  clear(): void {
    this.times = [];
    this.quantities = [];
    this.head = 0;
    this.sum = 0;
  }
}

export interface OrderGroupView {
  orderGroupId: string;
  fillLimit: string;
  windowSeconds: number;
  triggered: boolean;
}

interface Group {
  id: string;
  userId: string;
  fillLimit: number;
  window: FillWindow;
  triggered: boolean;
  /** Open orders of the group (an order leaves when it is filled or cancelled). */
  orders: Set<string>;
}

/** What a trigger (or a deletion) asks the caller to cancel: the group's open orders. */
export interface GroupCancel {
  orderGroupId: string;
  userId: string;
  orderIds: string[];
}

export class OrderGroups {
  private readonly groups = new Map<string, Group>();
  private readonly groupOfOrder = new Map<string, string>();
  /** Orders that joined a group: a replayed answer (Idempotency-Key) joins once. */
  private readonly joined = new Set<string>();

  constructor(private readonly ports: { now(): number; newId(prefix: string): string }) {}

  /** POST /order-groups: fillLimit micro-units (> 0), windowSeconds 1..3600 (default 15). */
  create(userId: string, p: { fillLimit: string; windowSeconds?: number }): OrderGroupView {
    const fillLimit = Number(p.fillLimit);
    if (!/^[1-9][0-9]*$/.test(p.fillLimit) || !Number.isSafeInteger(fillLimit))
      throw invalid("fillLimit must be a positive integer of micro-units", [{ field: "fillLimit", rule: "min" }]);
    const windowSeconds = p.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
    if (!Number.isInteger(windowSeconds) || windowSeconds < MIN_WINDOW_SECONDS || windowSeconds > MAX_WINDOW_SECONDS)
      throw invalid(`windowSeconds must be ${MIN_WINDOW_SECONDS} to ${MAX_WINDOW_SECONDS}`, [{ field: "windowSeconds", rule: "range" }]);
    const g: Group = {
      id: this.ports.newId("grp"),
      userId,
      fillLimit,
      window: new FillWindow(windowSeconds * 1000),
      triggered: false,
      orders: new Set(),
    };
    this.groups.set(g.id, g);
    return view(g);
  }

  list(userId: string): OrderGroupView[] {
    return [...this.groups.values()].filter((g) => g.userId === userId).map(view);
  }

  /** May a new order of `userId` name this group? 404 for another user's or an unknown group, 409 while triggered. */
  admit(orderGroupId: string, userId: string): void {
    const g = this.own(orderGroupId, userId);
    if (g.triggered)
      throw conflicting(
        "ORDER_GROUP_TRIGGERED",
        `Order group ${orderGroupId} was triggered by its fill limit; reset it to place orders in it`,
      );
  }

  /** A placed order joins its group (`filled`: what it filled at once, which counts like any fill). */
  join(orderGroupId: string, orderId: string, open: boolean, filled: number): GroupCancel | null {
    const g = this.groups.get(orderGroupId);
    if (!g || this.joined.has(orderId)) return null;
    this.joined.add(orderId);
    if (open) {
      g.orders.add(orderId);
      this.groupOfOrder.set(orderId, orderGroupId);
    }
    return filled > 0 ? this.count(g, filled) : null;
  }

  /** A fill of a resting order; when it takes the group to its limit, what to cancel. */
  filled(orderId: string, quantity: number, stillOpen: boolean): GroupCancel | null {
    const id = this.groupOfOrder.get(orderId);
    const g = id ? this.groups.get(id) : undefined;
    if (!g) return null;
    if (!stillOpen) this.left(orderId);
    return this.count(g, quantity);
  }

  /** An order of a group left the book (cancelled, expired). */
  left(orderId: string): void {
    const id = this.groupOfOrder.get(orderId);
    if (!id) return;
    this.groupOfOrder.delete(orderId);
    this.groups.get(id)?.orders.delete(orderId);
  }

  /** POST /order-groups/:id/reset: orders may name it again; its window starts empty. */
  reset(orderGroupId: string, userId: string): OrderGroupView {
    const g = this.own(orderGroupId, userId);
    g.triggered = false;
    g.window.clear();
    return view(g);
  }

  /** DELETE /order-groups/:id: gone, and its open orders to cancel. */
  remove(orderGroupId: string, userId: string): GroupCancel {
    const g = this.own(orderGroupId, userId);
    this.groups.delete(g.id);
    const orderIds = [...g.orders];
    for (const o of orderIds) this.groupOfOrder.delete(o);
    return { orderGroupId: g.id, userId, orderIds };
  }

  private count(g: Group, quantity: number): GroupCancel | null {
    const total = g.window.add(this.ports.now(), quantity);
    if (g.triggered || total < g.fillLimit) return null;
    g.triggered = true;
    const orderIds = [...g.orders];
    for (const o of orderIds) this.groupOfOrder.delete(o);
    g.orders.clear();
    return { orderGroupId: g.id, userId: g.userId, orderIds };
  }

  private own(orderGroupId: string, userId: string): Group {
    const g = this.groups.get(orderGroupId);
    if (!g || g.userId !== userId) throw notFoundFault("Order group", "ORDER_GROUP_NOT_FOUND");
    return g;
  }
}

function view(g: Group): OrderGroupView {
  return { orderGroupId: g.id, fillLimit: String(g.fillLimit), windowSeconds: g.window.windowMs / 1000, triggered: g.triggered };
}
