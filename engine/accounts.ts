import type { MicroUnits } from "./money";
import type { Outcome } from "./types";
import { Refusal, isRefusal } from "./refusal";

/**
 * The ledger's books as a pure state machine: cash accounts (users and system accounts such as
 * the AMM pools and the house), share positions, market collateral and the fee account. Every
 * change is an entry of postings applied all-or-nothing: if any account would go negative, or a
 * position would lock more shares than it holds, nothing changes.
 */
export interface CashPosting {
  kind: "cash";
  account: string;
  available?: MicroUnits;
  locked?: MicroUnits;
}

export interface SharePosting {
  kind: "shares";
  account: string;
  marketId: string;
  outcome: Outcome;
  quantity?: MicroUnits;
  locked?: MicroUnits;
  /** Change of the cost basis of the held shares. */
  cost?: MicroUnits;
  realized?: MicroUnits;
  /**
   * Net cash received for shares leaving the position (quantity < 0): the ledger removes the
   * proportional cost basis and books the difference as realized PnL.
   */
  proceeds?: MicroUnits;
  /** Marks the position settled (redeemed or refunded). */
  settle?: boolean;
}

export interface CollateralPosting {
  kind: "collateral";
  marketId: string;
  amount: MicroUnits;
}

export interface FeePosting {
  kind: "fee";
  amount: MicroUnits;
}

/** Money entering or leaving the system; the right-hand side of the conservation equation. */
export interface ExternalPosting {
  kind: "external";
  flow: "deposit" | "withdrawal" | "house";
  amount: MicroUnits;
}

export type Posting = CashPosting | SharePosting | CollateralPosting | FeePosting | ExternalPosting;

export interface CashAccount {
  available: MicroUnits;
  locked: MicroUnits;
}

export interface PositionState {
  account: string;
  marketId: string;
  outcome: Outcome;
  quantity: MicroUnits;
  locked: MicroUnits;
  totalCost: MicroUnits;
  realizedPnl: MicroUnits;
  settled: boolean;
}

/** The codes an entry's postings are refused with (kind "rejected"). */
export const POSTING_CODES = ["INSUFFICIENT_BALANCE", "INSUFFICIENT_SHARES", "INVALID_POSTING", "NEGATIVE_COLLATERAL"] as const;
export type PostingCode = (typeof POSTING_CODES)[number];

const postingRefusal = (code: PostingCode, message: string) => new Refusal<PostingCode>("rejected", code, message);

/** A refusal of postings (Accounts.prepare and apply). */
export function isPostingRefusal(err: unknown): err is Refusal<PostingCode> {
  return isRefusal(err) && (POSTING_CODES as readonly string[]).includes(err.code);
}

export interface ConservationReport {
  ok: boolean;
  /** Users' and system accounts' available + locked. */
  cash: MicroUnits;
  collateral: MicroUnits;
  fees: MicroUnits;
  deposits: MicroUnits;
  withdrawals: MicroUnits;
  house: MicroUnits;
  /** Markets whose YES shares, NO shares and collateral disagree. */
  unbalancedMarkets: string[];
}

export interface AccountsSnapshot {
  cash: Array<[string, CashAccount]>;
  positions: PositionState[];
  collateral: Array<[string, MicroUnits]>;
  fees: MicroUnits;
  external: { deposit: MicroUnits; withdrawal: MicroUnits; house: MicroUnits };
}

export interface PreparedChange {
  cash: Map<string, CashAccount>;
  pos: Map<string, PositionState>;
  coll: Map<string, MicroUnits>;
  fees: MicroUnits;
  ext: { deposit: MicroUnits; withdrawal: MicroUnits; house: MicroUnits };
}

/** What a committed change replaced (undefined: did not exist): `revert` puts it back. */
export interface AccountsUndo {
  cash: Array<[string, CashAccount | undefined]>;
  pos: Array<[string, PositionState | undefined]>;
  coll: Array<[string, MicroUnits | undefined]>;
  fees: MicroUnits;
  ext: { deposit: MicroUnits; withdrawal: MicroUnits; house: MicroUnits };
}

const posKey = (account: string, marketId: string, outcome: Outcome) => `${account}|${marketId}|${outcome}`;

function checkInt(v: number | undefined, what: string): number {
  if (v === undefined) return 0;
  if (!Number.isSafeInteger(v)) throw postingRefusal("INVALID_POSTING", `${what} is not a safe integer`);
  return v;
}

/** No negative balance, no negative or over-locked position, no negative collateral or fees. */
function validate(cash: Map<string, CashAccount>, pos: Map<string, PositionState>, coll: Map<string, MicroUnits>, fees: MicroUnits): void {
  for (const [account, c] of cash) {
    if (c.available < 0 || c.locked < 0) throw postingRefusal("INSUFFICIENT_BALANCE", `insufficient balance on ${account}`);
  }
  for (const p of pos.values()) {
    if (p.quantity < 0 || p.locked < 0 || p.locked > p.quantity)
      throw postingRefusal("INSUFFICIENT_SHARES", `insufficient ${p.outcome} shares on ${p.account}`);
  }
  for (const [m, v] of coll) if (v < 0) throw postingRefusal("NEGATIVE_COLLATERAL", `collateral of ${m} would go negative`);
  if (fees < 0) throw postingRefusal("INSUFFICIENT_BALANCE", "fee account would go negative");
}

export class Accounts {
  private readonly cash = new Map<string, CashAccount>();
  private readonly positions = new Map<string, PositionState>();
  private readonly byAccount = new Map<string, Set<string>>();
  private readonly collateral = new Map<string, MicroUnits>();
  /** YES and NO shares outstanding per market, kept alongside to check pairs in O(markets). */
  private readonly outstanding = new Map<string, { YES: MicroUnits; NO: MicroUnits }>();
  private fees = 0;
  private readonly external = { deposit: 0, withdrawal: 0, house: 0 };

  balance(account: string): CashAccount & { total: MicroUnits } {
    const c = this.cash.get(account) ?? { available: 0, locked: 0 };
    return { available: c.available, locked: c.locked, total: c.available + c.locked };
  }

  position(account: string, marketId: string, outcome: Outcome): PositionState | undefined {
    return this.positions.get(posKey(account, marketId, outcome));
  }

  positionsOf(account: string): PositionState[] {
    const keys = this.byAccount.get(account);
    return keys ? [...keys].map((k) => this.positions.get(k) as PositionState) : [];
  }

  /** Every holder of a market's positions (redemption, refunds, resolution notices). */
  holders(marketId: string): PositionState[] {
    return [...this.positions.values()].filter((p) => p.marketId === marketId && p.quantity > 0);
  }

  collateralOf(marketId: string): MicroUnits {
    return this.collateral.get(marketId) ?? 0;
  }

  feeBalance(): MicroUnits {
    return this.fees;
  }

  externalTotals(): { deposit: MicroUnits; withdrawal: MicroUnits; house: MicroUnits } {
    return { ...this.external };
  }

  /** Cash accounts holding a locked balance. */
  *lockedCash(): IterableIterator<[string, MicroUnits]> {
    for (const [account, c] of this.cash) if (c.locked !== 0) yield [account, c.locked];
  }

  /** Positions with shares locked (offered by open SELL orders). */
  *lockedPositions(): IterableIterator<PositionState> {
    for (const p of this.positions.values()) if (p.locked !== 0) yield p;
  }

  /** Apply an entry's postings atomically; throws a posting refusal and changes nothing on failure. */
  apply(postings: readonly Posting[]): void {
    this.commit(this.prepare(postings));
  }

  /**
   * Validate postings against the current state without changing it; the result commits them.
   * Lets a caller journal the entry between the two steps (nothing may run in between).
   * `checkAfter`: the state after the first n postings must be valid too (an order's placement lock
   * is its first postings: the trader must be able to hold it even where the fills cost less).
   */
  prepare(postings: readonly Posting[], checkAfter = 0): PreparedChange {
    const cash = new Map<string, CashAccount>();
    const pos = new Map<string, PositionState>();
    const coll = new Map<string, MicroUnits>();
    let fees = this.fees;
    const ext = { ...this.external };

    for (let i = 0; i < postings.length; i++) {
      if (i === checkAfter && i > 0) validate(cash, pos, coll, fees);
      const p = postings[i];
      switch (p.kind) {
        case "cash": {
          const cur = cash.get(p.account) ?? { ...(this.cash.get(p.account) ?? { available: 0, locked: 0 }) };
          cur.available += checkInt(p.available, "available");
          cur.locked += checkInt(p.locked, "locked");
          cash.set(p.account, cur);
          break;
        }
        case "shares": {
          const k = posKey(p.account, p.marketId, p.outcome);
          const base = this.positions.get(k);
          const cur =
            pos.get(k) ??
            (base
              ? { ...base }
              : {
                  account: p.account,
                  marketId: p.marketId,
                  outcome: p.outcome,
                  quantity: 0,
                  locked: 0,
                  totalCost: 0,
                  realizedPnl: 0,
                  settled: false,
                });
          const dq = checkInt(p.quantity, "quantity");
          if (p.proceeds !== undefined && dq < 0 && cur.quantity > 0) {
            // Basis leaves in proportion to the shares sold, rounded down; the last share takes the rest.
            const sold = Math.min(-dq, cur.quantity);
            const removed = sold === cur.quantity ? cur.totalCost : Number((BigInt(cur.totalCost) * BigInt(sold)) / BigInt(cur.quantity));
            cur.totalCost -= removed;
            cur.realizedPnl += checkInt(p.proceeds, "proceeds") - removed;
          }
          cur.quantity += dq;
          cur.locked += checkInt(p.locked, "locked shares");
          cur.totalCost += checkInt(p.cost, "cost");
          cur.realizedPnl += checkInt(p.realized, "realized");
          if (p.settle) cur.settled = true;
          else if (dq > 0) cur.settled = false;
          pos.set(k, cur);
          break;
        }
        case "collateral":
          coll.set(p.marketId, (coll.get(p.marketId) ?? this.collateralOf(p.marketId)) + checkInt(p.amount, "collateral"));
          break;
        case "fee":
          fees += checkInt(p.amount, "fee");
          break;
        case "external":
          ext[p.flow] += checkInt(p.amount, "external");
          break;
        default:
          throw postingRefusal("INVALID_POSTING", "unknown posting");
      }
    }

    validate(cash, pos, coll, fees);
    return { cash, pos, coll, fees, ext };
  }

  /** Applies a prepared change; returns what it replaced (states are replaced whole, never mutated). */
  commit(change: PreparedChange): AccountsUndo {
    const { cash, pos, coll, fees, ext } = change;
    const undo: AccountsUndo = {
      cash: [...cash.keys()].map((a) => [a, this.cash.get(a)]),
      pos: [...pos.keys()].map((k) => [k, this.positions.get(k)]),
      coll: [...coll.keys()].map((m) => [m, this.collateral.get(m)]),
      fees: this.fees,
      ext: { ...this.external },
    };
    for (const [account, c] of cash) this.cash.set(account, c);
    for (const [k, p] of pos) {
      const before = this.positions.get(k);
      const o = this.outstanding.get(p.marketId) ?? { YES: 0, NO: 0 };
      o[p.outcome] += p.quantity - (before?.quantity ?? 0);
      this.outstanding.set(p.marketId, o);
      this.positions.set(k, p);
      let set = this.byAccount.get(p.account);
      if (!set) this.byAccount.set(p.account, (set = new Set()));
      set.add(k);
    }
    for (const [m, v] of coll) this.collateral.set(m, v);
    this.fees = fees;
    Object.assign(this.external, ext);
    return undo;
  }

  /**
   * Undoes a commit: the accounts it touched are again exactly what they were (absent ones absent).
   * Later commits are reverted first.
   */
  revert(undo: AccountsUndo): void {
    for (const [account, c] of undo.cash) {
      if (c) this.cash.set(account, c);
      else this.cash.delete(account);
    }
    for (const [k, before] of undo.pos) {
      const now = this.positions.get(k);
      const p = before ?? now;
      if (!p) continue;
      // A market left with no shares counts {0, 0}, which conservation reads as no entry.
      const o = this.outstanding.get(p.marketId) ?? { YES: 0, NO: 0 };
      o[p.outcome] += (before?.quantity ?? 0) - (now?.quantity ?? 0);
      this.outstanding.set(p.marketId, o);
      if (before) {
        this.positions.set(k, before);
        continue;
      }
      this.positions.delete(k);
      const set = this.byAccount.get(p.account);
      set?.delete(k);
      if (set && !set.size) this.byAccount.delete(p.account);
    }
    for (const [m, v] of undo.coll) {
      if (v === undefined) this.collateral.delete(m);
      else this.collateral.set(m, v);
    }
    this.fees = undo.fees;
    Object.assign(this.external, undo.ext);
  }

  /**
   * Conservation: all cash + collateral + fees = deposits - withdrawals + house funding, and in
   * every market YES outstanding = NO outstanding = collateral.
   */
  conservation(): ConservationReport {
    let cash = 0;
    for (const c of this.cash.values()) cash += c.available + c.locked;
    let collateral = 0;
    for (const v of this.collateral.values()) collateral += v;
    const unbalancedMarkets: string[] = [];
    const markets = new Set([...this.collateral.keys(), ...this.outstanding.keys()]);
    for (const m of markets) {
      const o = this.outstanding.get(m) ?? { YES: 0, NO: 0 };
      const c = this.collateral.get(m) ?? 0;
      if (o.YES !== o.NO || o.YES !== c) unbalancedMarkets.push(m);
    }
    const rhs = this.external.deposit - this.external.withdrawal + this.external.house;
    return {
      ok: cash + collateral + this.fees === rhs && unbalancedMarkets.length === 0,
      cash,
      collateral,
      fees: this.fees,
      deposits: this.external.deposit,
      withdrawals: this.external.withdrawal,
      house: this.external.house,
      unbalancedMarkets,
    };
  }

  /** Cash accounts and positions held: the size of a snapshot. */
  get size(): number {
    return this.cash.size + this.positions.size;
  }

  snapshot(): AccountsSnapshot {
    return {
      cash: [...this.cash.entries()].map(([k, v]) => [k, { ...v }]),
      positions: [...this.positions.values()].map((p) => ({ ...p })),
      collateral: [...this.collateral.entries()],
      fees: this.fees,
      external: { ...this.external },
    };
  }

  static restore(s: AccountsSnapshot): Accounts {
    const a = new Accounts();
    for (const [k, v] of s.cash) a.cash.set(k, { ...v });
    for (const [m, v] of s.collateral) a.collateral.set(m, v);
    a.fees = s.fees;
    Object.assign(a.external, s.external);
    for (const p of s.positions) {
      const k = posKey(p.account, p.marketId, p.outcome);
      a.positions.set(k, { ...p });
      let set = a.byAccount.get(p.account);
      if (!set) a.byAccount.set(p.account, (set = new Set()));
      set.add(k);
      const o = a.outstanding.get(p.marketId) ?? { YES: 0, NO: 0 };
      o[p.outcome] += p.quantity;
      a.outstanding.set(p.marketId, o);
    }
    return a;
  }
}
