/**
 * Each user's quote set in one market: the resting orders their last mass quote placed (POST
 * /quotes), which the next one replaces. Kept by the market's actor beside its book; an order
 * leaves when it stops resting (filled, cancelled) or is replaced.
 */
export class QuoteSets {
  private readonly byUser = new Map<string, Set<string>>();
  private readonly ownerOf = new Map<string, string>();

  add(userId: string, orderId: string): void {
    let set = this.byUser.get(userId);
    if (!set) this.byUser.set(userId, (set = new Set()));
    set.add(orderId);
    this.ownerOf.set(orderId, userId);
  }

  /** An order that no longer rests (unknown ids are ignored). */
  remove(orderId: string): void {
    const userId = this.ownerOf.get(orderId);
    if (userId === undefined) return;
    this.ownerOf.delete(orderId);
    const set = this.byUser.get(userId);
    set?.delete(orderId);
    if (set && set.size === 0) this.byUser.delete(userId);
  }

  /** The user's quote orders, in the order they were placed. */
  of(userId: string): string[] {
    return [...(this.byUser.get(userId) ?? [])];
  }

  has(orderId: string): boolean {
    return this.ownerOf.has(orderId);
  }

  clear(): void {
    this.byUser.clear();
    this.ownerOf.clear();
  }
}
