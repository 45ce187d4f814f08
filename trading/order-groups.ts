/**
 * Order groups, a fill-rate kill switch (Kalshi's order groups), as a pure core on an injected
 * clock: a user's group has a fill limit over a rolling window; when the quantity filled on the
 * group's orders within the last `windowSeconds` reaches the limit, the group triggers: every
 * open order of it is to be cancelled at once (reason `order_group`) and new orders naming it are
 * refused (409 ORDER_GROUP_TRIGGERED) until the owner resets it.
 *
 * Durable: creation, reset, trigger and deletion are journaled through `record` (answered once
 * written); an order names its group in its own placement, so `load` rebuilds every group after a
 * restart: its trigger state, its open orders, and its window from its orders' fills.
 */
import { conflicting, invalid, notFoundFault } from "../engine/refusal";
import { ORDER_GROUP_WINDOW_SECONDS } from "../lib/order-rules";
import type { GroupOrderFill, OrderGroupRecord, StoredOrderGroup } from "../models/trading";

export const MIN_WINDOW_SECONDS = ORDER_GROUP_WINDOW_SECONDS.min;
export const MAX_WINDOW_SECONDS = ORDER_GROUP_WINDOW_SECONDS.max;
export const DEFAULT_WINDOW_SECONDS = ORDER_GROUP_WINDOW_SECONDS.default;

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
  /** Created or last reset (ISO): earlier fills never count again. */
  since: string;
}

/** What a trigger (or a deletion) asks the caller to cancel: the group's open orders. */
export interface GroupCancel {
  orderGroupId: string;
  userId: string;
  orderIds: string[];
}

export interface OrderGroupPorts {
  now(): number;
  newId(prefix: string): string;
  /** Journal a group's change; resolves once it is durable. */
  record(r: OrderGroupRecord): Promise<void>;
  /** A trigger that could not be journaled (its orders are cancelled all the same). */
  warn(message: string): void;
}

/** What a start rebuilds the groups from (the money store). */
export interface OrderGroupSource {
  groups(): Promise<StoredOrderGroup[]>;
  /** Open orders placed in a group. */
  openOrders(): Promise<Array<{ orderId: string; orderGroupId: string; marketId: string }>>;
  /** The group's orders' fills after `after` (ISO), oldest first. */
  fills(userId: string, orderGroupId: string, after: string): Promise<GroupOrderFill[]>;
}

export class OrderGroups {
  private readonly groups = new Map<string, Group>();
  private readonly groupOfOrder = new Map<string, string>();
  /** Orders that joined a group: a replayed answer (Idempotency-Key) joins once. */
  private readonly joined = new Set<string>();

  constructor(private readonly ports: OrderGroupPorts) {}

  /**
   * The groups as stored, with their open orders and the fills still in their windows. What a
   * crash interrupted is handed back to finish: a triggered group's orders still open, and a
   * group whose window reached its limit before its trigger was written (triggered now).
   */
  async load(source: OrderGroupSource): Promise<GroupCancel[]> {
    this.groups.clear();
    this.groupOfOrder.clear();
    const now = this.ports.now();
    for (const s of await source.groups())
      this.groups.set(s.orderGroupId, {
        id: s.orderGroupId,
        userId: s.userId,
        fillLimit: s.fillLimit,
        window: new FillWindow(s.windowSeconds * 1000),
        triggered: s.triggered,
        orders: new Set(),
        since: s.since,
      });
    for (const o of await source.openOrders()) {
      const g = this.groups.get(o.orderGroupId);
      if (!g) continue; // a deleted group's order (its cancel was interrupted): not in any group now
      this.joined.add(o.orderId);
      g.orders.add(o.orderId);
      this.groupOfOrder.set(o.orderId, g.id);
    }
    const cancels: GroupCancel[] = [];
    for (const g of this.groups.values()) {
      if (g.triggered) {
        const c = this.drain(g);
        if (c.orderIds.length) cancels.push(c);
        continue;
      }
      const from = Math.max(Date.parse(g.since), now - g.window.windowMs);
      let total = 0;
      for (const f of await source.fills(g.userId, g.id, new Date(from).toISOString()))
        total = g.window.add(Math.min(Date.parse(f.at), now), f.quantity);
      if (total >= g.fillLimit) cancels.push(await this.trigger(g));
    }
    return cancels;
  }

  /** POST /order-groups: fillLimit micro-units (> 0), windowSeconds 1..3600 (default 15). */
  async create(userId: string, p: { fillLimit: string; windowSeconds?: number }): Promise<OrderGroupView> {
    const fillLimit = Number(p.fillLimit);
    if (!/^[1-9][0-9]*$/.test(p.fillLimit) || !Number.isSafeInteger(fillLimit))
      throw invalid("fillLimit must be a positive integer of micro-units", [{ field: "fillLimit", rule: "min" }]);
    const windowSeconds = p.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
    if (!Number.isInteger(windowSeconds) || windowSeconds < MIN_WINDOW_SECONDS || windowSeconds > MAX_WINDOW_SECONDS)
      throw invalid(`windowSeconds must be ${MIN_WINDOW_SECONDS} to ${MAX_WINDOW_SECONDS}`, [{ field: "windowSeconds", rule: "range" }]);
    const id = this.ports.newId("grp");
    await this.ports.record({ kind: "create", orderGroupId: id, userId, fillLimit, windowSeconds });
    const g: Group = {
      id,
      userId,
      fillLimit,
      window: new FillWindow(windowSeconds * 1000),
      triggered: false,
      orders: new Set(),
      since: new Date(this.ports.now()).toISOString(),
    };
    this.groups.set(g.id, g);
    return view(g);
  }

  /** The user's groups, oldest first (ids grow with time). */
  list(userId: string): OrderGroupView[] {
    return [...this.groups.values()]
      .filter((g) => g.userId === userId)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(view);
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

  /**
   * A placed order joins its group (`filled`: what it filled at once, which counts like any fill).
   * An order admitted just before its group triggered is cancelled like the group's others.
   */
  async join(orderGroupId: string, orderId: string, open: boolean, filled: number): Promise<GroupCancel | null> {
    const g = this.groups.get(orderGroupId);
    if (!g || this.joined.has(orderId)) return null;
    this.joined.add(orderId);
    if (g.triggered) return open ? { orderGroupId: g.id, userId: g.userId, orderIds: [orderId] } : null;
    if (open) {
      g.orders.add(orderId);
      this.groupOfOrder.set(orderId, orderGroupId);
    }
    return filled > 0 ? this.count(g, filled) : null;
  }

  /** A fill of a resting order; when it takes the group to its limit, what to cancel. */
  async filled(orderId: string, quantity: number, stillOpen: boolean): Promise<GroupCancel | null> {
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
  async reset(orderGroupId: string, userId: string): Promise<OrderGroupView> {
    const g = this.own(orderGroupId, userId);
    await this.ports.record({ kind: "reset", orderGroupId: g.id, userId });
    g.triggered = false;
    g.window.clear();
    g.since = new Date(this.ports.now()).toISOString();
    return view(g);
  }

  /** DELETE /order-groups/:id: gone, and its open orders to cancel. */
  async remove(orderGroupId: string, userId: string): Promise<GroupCancel> {
    const g = this.own(orderGroupId, userId);
    await this.ports.record({ kind: "delete", orderGroupId: g.id, userId });
    if (this.groups.get(g.id) !== g) throw notFoundFault("Order group", "ORDER_GROUP_NOT_FOUND");
    this.groups.delete(g.id);
    return this.drain(g);
  }

  private async count(g: Group, quantity: number): Promise<GroupCancel | null> {
    const total = g.window.add(this.ports.now(), quantity);
    if (g.triggered || total < g.fillLimit) return null;
    return this.trigger(g);
  }

  /** Triggered at once (new orders are refused from here on), then journaled; its open orders to cancel. */
  private async trigger(g: Group): Promise<GroupCancel> {
    g.triggered = true;
    const c = this.drain(g);
    await this.ports
      .record({ kind: "trigger", orderGroupId: g.id, userId: g.userId })
      .catch((err: unknown) => this.ports.warn(`order group ${g.id} triggered but not journaled: ${(err as Error)?.message}`));
    return c;
  }

  /** The group's open orders, which leave it. */
  private drain(g: Group): GroupCancel {
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
