/** Redeeming a resolved market's winning shares: on the market page and beside a won position in the portfolio. */
import { useState } from "preact/hooks";
import { INDEX_SET, type MarketItem, type Position } from "@pmx/client/models";
import { client } from "../api";
import { dollars, shareCount } from "../format";
import { portfolioPulse } from "../live";
import { Done, ErrorText, Section, useAction, useLoad } from "../ui";

/**
 * The redeem call for a resolved market, with its answer in words; `told` hears it too, at once
 * (the caller may be gone by then: the position leaves the list as soon as its payout is pushed).
 */
export function useRedeem(market: Pick<MarketItem, "id" | "conditionId" | "result"> | null, told?: (text: string) => void) {
  const [result, setResult] = useState<string | null>(null);
  const [redeem, state] = useAction(async (m?: Pick<MarketItem, "id" | "conditionId" | "result">) => {
    const target = m ?? market;
    if (!target?.result) return;
    const indexSets = target.result === "SPLIT" ? [INDEX_SET.YES, INDEX_SET.NO] : [INDEX_SET[target.result]];
    const r = await client.wallet.redeem(target.id, { conditionId: target.conditionId, indexSets });
    const text =
      r.status === "accepted" ? `Redeemed: ${dollars(r.payout ?? "0")} paid into your balance.` : `Already redeemed (${r.message}).`;
    setResult(text);
    told?.(text);
    portfolioPulse.fire();
  });
  return { redeem, state, result };
}

export function Redeem({ market, refresh }: { market: MarketItem; refresh: number }) {
  const { data: positions } = useLoad<Position[]>(() => client.portfolio.positions(), [market.id, refresh]);
  const { redeem, state, result } = useRedeem(market);
  const winner = market.result;
  const mine = positions?.filter((p) => p.marketId === market.id) ?? [];
  // SPLIT: every share pays 0.50 and is credited by the exchange itself; redeem acknowledges it.
  const split = winner === "SPLIT";
  const winning = mine.find((p) => (split || p.outcome === winner) && p.status === "open" && BigInt(p.quantity) > 0n);
  return (
    <Section title={`Resolved: ${winner ?? "–"}`} id="redeem">
      {winning && !result ? (
        <>
          <p>
            {split
              ? "The market resolved SPLIT: each YES and each NO share pays 50¢."
              : `You hold ${shareCount(winning.quantity)} winning ${winner} shares, worth ${dollars(winning.quantity)}.`}
          </p>
          <button type="button" class="primary" onClick={() => redeem()} disabled={state.pending}>
            {split ? "Redeem" : `Redeem ${shareCount(winning.quantity)} ${winner}`}
          </button>
        </>
      ) : (
        !result && (
          <p class={split ? undefined : "muted"} data-testid="redeem-state">
            {split
              ? "The market resolved SPLIT: each YES and each NO share pays 50¢, credited to holders' balances by the exchange."
              : mine.length
                ? "Nothing left to redeem here."
                : "You hold no shares of this market."}
          </p>
        )
      )}
      <ErrorText error={state.error} />
      <Done text={result} testid="redeem-result" />
    </Section>
  );
}
