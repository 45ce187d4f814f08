/**
 * The rules of the exchange's own money, per entry, judged on the books before it: the ledger
 * refuses an entry that breaks one, and verification (ledger/verify.ts) names every journal entry
 * that does.
 *
 * - Fee account: only takes fees, in entries that execute trades (a book command), never more
 *   than those trades' fees; nothing ever leaves it.
 * - House funding: only funds an AMM pool: L of house money is L of the market's collateral, L
 *   pairs minted into the pool (engine/settlement.ts `poolFunding`), or the cash of an event's
 *   LMSR pool (engine/event-pool.ts `eventPoolFunding`).
 * - Conversion accounts (engine/conversion.ts): their cash leaves, and a fee is taken, only in an
 *   entry carrying `conversion`, whose postings are exactly the plan of that record on the books
 *   before it (the holder's NO shares in, the YES handed out minted in pairs, the cash advanced).
 * - A market's payout (an entry carrying `payout`): exactly what engine/payout.ts computes from
 *   the market's holders and collateral at that price, so the payouts plus the dust kept by the
 *   market equal its collateral, and nothing else moves.
 * - Rewards (an entry carrying `reward`): house funding may also go into the rewards account, in
 *   a `fund` entry and nothing else; a `payout` entry is exactly its record: rewards out of the
 *   rewards account (at most the day's pool) and maker rebates out of the fee account (at most
 *   rebateBps of the day's taker fees), each to a user. The fee account's one way out is a
 *   rebate; no other entry moves the rewards account.
 */
import type { PositionState, Posting } from "../engine/accounts";
import { marketPayout, isPayoutRefusal } from "../engine/payout";
import { ammAccount } from "../engine/settlement";
import type { TradeRecord } from "../engine/settlement";
import { conversionFee, ConversionRefusal, isConversionAccount, planConversion } from "../engine/conversion";
import { EVENT_POOL_PREFIX } from "../engine/conversion-guarantee";
import { rebatePool, REWARDS_ACCOUNT } from "../engine/rewards";
import type { BookJournalDoc, ConversionRecord, PayoutRecord, RewardRecord } from "../models/trading";

export interface RuledEntry {
  key: string;
  postings: readonly Posting[];
  trades?: readonly TradeRecord[];
  book?: BookJournalDoc;
  payout?: PayoutRecord;
  conversion?: ConversionRecord;
  reward?: RewardRecord;
}

/** What the rules read of the books before the entry. */
export interface BooksBefore {
  holders(marketId: string): PositionState[];
  collateralOf(marketId: string): number;
}

/** Fees the entry credits to the fee account (each fee posting must be positive). */
export function feesIn(postings: readonly Posting[]): number {
  let sum = 0;
  for (const p of postings) if (p.kind === "fee") sum += p.amount;
  return sum;
}

/** Fees the entry's trades charged (their records, AMM fees included). */
export function tradeFees(trades: readonly TradeRecord[] | undefined): number {
  let sum = 0;
  for (const t of trades ?? []) sum += t.fee;
  return sum;
}

/** The fee a conversion entry's record charges (0 without one). */
export function conversionFees(rec: ConversionRecord | undefined): number {
  return rec ? conversionFee(rec.marketIds.length, rec.quantity, rec.feeBps) : 0;
}

/** A posting as a string whatever the order of its fields (to compare entries' postings as multisets). */
export function canonical(p: Posting): string {
  const o = p as unknown as Record<string, unknown>;
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]]),
    ),
  );
}

/**
 * Problems of one entry with the fee, house and payout rules (empty: none), each starting with
 * `label`. `wholeCommand`: the entry is a whole book command, so its fees are held against its
 * trades here (verification holds the parts of a split command against theirs cumulatively).
 */
export function entryRuleProblems(e: RuledEntry, before: BooksBefore, opts: { label?: string; wholeCommand?: boolean } = {}): string[] {
  const out: string[] = [];
  const name = opts.label ?? `entry ${e.key}`;
  const wholeCommand = opts.wholeCommand ?? true;
  if (e.reward) return rewardProblems(e, e.reward, name);
  for (const p of e.postings) {
    if (p.kind === "fee") {
      if (!(p.amount > 0)) out.push(`${name} takes ${-p.amount} from the fee account: nothing leaves the fee account`);
      else if (!e.book && !e.conversion) out.push(`${name} credits ${p.amount} to the fee account without executing a trade`);
    }
    if (p.kind === "cash" && p.account === REWARDS_ACCOUNT) out.push(`${name} moves the rewards account outside a rewards entry`);
    if (p.kind === "external" && p.flow === "house") {
      const funds = e.postings.some(
        (c) =>
          c.kind === "collateral" &&
          c.amount === p.amount &&
          (["YES", "NO"] as const).every((o) =>
            e.postings.some(
              (s) =>
                s.kind === "shares" &&
                s.account === ammAccount(c.marketId) &&
                s.marketId === c.marketId &&
                s.outcome === o &&
                s.quantity === p.amount,
            ),
          ),
      );
      // Or an event's LMSR pool (engine/event-pool.ts): F of house money into its cash, nothing else.
      const fundsEventPool =
        e.postings.length === 2 &&
        e.postings.some((c) => c.kind === "cash" && c.account.startsWith(EVENT_POOL_PREFIX) && c.available === p.amount && !c.locked);
      if (!(p.amount > 0) || !(funds || fundsEventPool))
        out.push(`${name} moves ${p.amount} of house funding other than into an AMM pool's collateral`);
    }
  }
  if (wholeCommand && e.book) {
    const fees = feesIn(e.postings);
    const charged = tradeFees(e.trades);
    if (fees > charged) out.push(`${name} credits ${fees} to the fee account, its trades charged ${charged}`);
  }
  if (e.payout) out.push(...payoutProblems(e, e.payout, before, name));
  if (e.conversion) out.push(...conversionProblems(e, e.conversion, before, name));
  else if (e.postings.some((p) => p.kind === "cash" && isConversionAccount(p.account) && (p.available ?? 0) + (p.locked ?? 0) < 0))
    out.push(`${name} takes cash from a conversion account outside a conversion`);
  return out;
}

function conversionProblems(e: RuledEntry, rec: ConversionRecord, before: BooksBefore, name: string): string[] {
  const positions = rec.marketIds.flatMap((m) => before.holders(m).filter((h) => h.account === rec.userId && h.outcome === "NO"));
  let plan;
  try {
    plan = planConversion({ ...rec, account: rec.userId, positions });
  } catch (err) {
    if (err instanceof ConversionRefusal) return [`${name} converts positions of event ${rec.eventId} while ${err.message}`];
    throw err;
  }
  const want = plan.postings.map(canonical).sort();
  const got = e.postings.map(canonical).sort();
  if (want.length === got.length && want.every((w, i) => w === got[i])) return [];
  return [`${name} converts positions of event ${rec.eventId} other than its record allows`];
}

/** The postings a rewards entry must consist of, exactly. */
export function rewardPostings(r: RewardRecord): Posting[] {
  if (r.kind === "fund")
    return [
      { kind: "external", flow: "house", amount: r.amount },
      { kind: "cash", account: REWARDS_ACCOUNT, available: r.amount },
    ];
  const rewarded = r.rewards.reduce((s, x) => s + x.amount, 0);
  const rebated = r.rebates.reduce((s, x) => s + x.amount, 0);
  const credit = new Map<string, number>();
  for (const x of [...r.rewards, ...r.rebates]) credit.set(x.userId, (credit.get(x.userId) ?? 0) + x.amount);
  return [
    ...(rewarded ? [{ kind: "cash", account: REWARDS_ACCOUNT, available: -rewarded } as const] : []),
    ...(rebated ? [{ kind: "fee", amount: -rebated } as const] : []),
    ...[...credit].map(([account, available]) => ({ kind: "cash", account, available }) as const),
  ];
}

function rewardProblems(e: RuledEntry, r: RewardRecord, name: string): string[] {
  const out: string[] = [];
  if (e.book || e.payout) out.push(`${name} pays rewards inside a book command or a market payout`);
  if (r.kind === "fund" && !(Number.isSafeInteger(r.amount) && r.amount > 0))
    out.push(`${name} funds the rewards account with ${r.amount}`);
  if (r.kind === "payout") {
    const amounts = [...r.rewards, ...r.rebates];
    if (amounts.some((x) => !(Number.isSafeInteger(x.amount) && x.amount > 0) || !x.userId.startsWith("usr_")))
      out.push(`${name} pays a reward or rebate that is not a positive amount to a user`);
    const rewarded = r.rewards.reduce((s, x) => s + x.amount, 0);
    const rebated = r.rebates.reduce((s, x) => s + x.amount, 0);
    if (rewarded > r.pool) out.push(`${name} pays ${rewarded} of rewards for market ${r.marketId} on ${r.day}, its pool is ${r.pool}`);
    const cap = rebatePool(r.takerFees, r.rebateBps);
    if (rebated > cap)
      out.push(`${name} pays ${rebated} of maker rebates for market ${r.marketId} on ${r.day}, at most ${cap} of its taker fees`);
  }
  const want = rewardPostings(r).map(canonical).sort();
  const got = e.postings.map(canonical).sort();
  if (!(want.length === got.length && want.every((w, i) => w === got[i])))
    out.push(`${name} moves money other than its ${r.kind === "fund" ? "funding of the rewards account" : "rewards and rebates"}`);
  return out;
}

function payoutProblems(e: RuledEntry, rec: PayoutRecord, before: BooksBefore, name: string): string[] {
  const collateral = before.collateralOf(rec.marketId);
  let plan;
  try {
    plan = marketPayout(rec.marketId, rec.yesPayout, before.holders(rec.marketId), collateral);
  } catch (err) {
    if (isPayoutRefusal(err)) return [`${name} pays market ${rec.marketId} out while ${err.message}`];
    throw err;
  }
  const want = plan.postings.map(canonical).sort();
  const got = e.postings.map(canonical).sort();
  if (want.length === got.length && want.every((w, i) => w === got[i])) return [];
  let credited = 0;
  for (const p of e.postings) if (p.kind === "cash") credited += (p.available ?? 0) + (p.locked ?? 0);
  return [
    `${name} pays market ${rec.marketId} out at ${rec.yesPayout} per YES share other than its holders and collateral allow: ` +
      `it credits ${credited} against ${collateral} of collateral (payouts ${collateral - plan.dust} + dust ${plan.dust})`,
  ];
}
