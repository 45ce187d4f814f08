/**
 * The money check: conservation, and the books against the read models committed with the
 * journal: every order's filled + open + cancelled = quantity, every user's locked = what their
 * open orders hold (withdrawals debit at once and lock nothing), every market's positions
 * contiguous with writer epochs that never go back. The ledger runs it when nothing is pending.
 */
import type { Accounts, ConservationReport } from "../engine/accounts";
import type { MoneyCheck } from "../models/trading";
import { USER_ACCOUNT_PREFIX, type ReadModelFacts } from "./store";

const posKey = (account: string, marketId: string, outcome: string) => `${account}|${marketId}|${outcome}`;

/** Locked cash and shares in the books against what the open orders of the read models hold. */
function badLocksOf(accounts: Accounts, facts: ReadModelFacts): MoneyCheck["badLocks"] {
  const badLocks: MoneyCheck["badLocks"] = [];
  const seen = new Set<string>();
  for (const [account, held] of facts.cashHeld) {
    seen.add(account);
    const locked = accounts.balance(account).locked;
    if (locked !== held) badLocks.push({ account, locked, heldByOrders: held });
  }
  for (const [account, locked] of accounts.lockedCash()) {
    if (!seen.has(account) && account.startsWith(USER_ACCOUNT_PREFIX) && locked !== 0) badLocks.push({ account, locked, heldByOrders: 0 });
  }
  const seenPos = new Set<string>();
  for (const [k, held] of facts.sharesHeld) {
    seenPos.add(k);
    const [account, marketId, outcome] = k.split("|");
    const locked = accounts.position(account, marketId, outcome as "YES" | "NO")?.locked ?? 0;
    if (locked !== held) badLocks.push({ account, marketId, outcome, locked, heldByOrders: held });
  }
  for (const p of accounts.lockedPositions()) {
    if (!seenPos.has(posKey(p.account, p.marketId, p.outcome)))
      badLocks.push({ account: p.account, marketId: p.marketId, outcome: p.outcome, locked: p.locked, heldByOrders: 0 });
  }
  return badLocks;
}

/** The check of the books (`report`: their conservation, taken before the facts were read) against the read models' facts. */
export function moneyCheck(report: ConservationReport, accounts: Accounts, facts: ReadModelFacts): MoneyCheck {
  const badLocks = badLocksOf(accounts, facts);
  const ok = report.ok && !facts.badOrders.length && !badLocks.length && !facts.badPositions.length;
  return { ...report, ok, badOrders: facts.badOrders, badLocks, badPositions: facts.badPositions };
}
