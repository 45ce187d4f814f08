/**
 * Notification titles and bodies (REST and the Telegram message). Pure, plain text, English, in
 * the app's money words: "$12.50", prices in cents ("52¢"), exact where rounding would mislead.
 */
import { centsText as cents, dollarsText as usdt, sharesText as shares } from "../lib/units";
import { DEFAULT_CANCEL_YES_PAYOUT, FULL_PAYOUT, holderPayout, priceOfYesPayout, yesPayoutOfPrice } from "../engine/payout";
import type { NotificationDoc, NotificationMetadata, OrderCancelNotice } from "../models/notification";
import type { AnyDraft } from "./derive";

const quoted = (title: string | null, marketId: string) => (title ? `“${title}”` : `market ${marketId}`);
const shortHash = (h: string | null) => (h ? ` (tx ${h.length > 16 ? `${h.slice(0, 8)}…${h.slice(-6)}` : h})` : "");

const CANCEL_REASON: Record<OrderCancelNotice, string> = {
  MARKET_CLOSED: "the market closed",
  MARKET_CANCELLED: "the market was cancelled",
  MARKET_RESOLVED: "the market was resolved",
  EXPIRED: "it reached its expiry time (GTD)",
  HEARTBEAT: "your dead man's switch lapsed (no heartbeat in time)",
  ORDER_GROUP: "its order group reached its fill limit",
};

export function render(d: AnyDraft, marketTitle: string | null): { title: string; body: string } {
  switch (d.type) {
    case "TRADE_FILLED": {
      const m = d.metadata;
      const verb = m.side === "BUY" ? "Bought" : "Sold";
      const fee = m.fee !== "0" ? `, fee ${usdt(m.fee)}` : "";
      return {
        title: `${verb} ${m.outcome}`,
        body: `${verb} ${shares(m.filledQuantity)} ${m.outcome} at ${cents(m.avgPrice)} (${usdt(m.totalCost)}) in ${quoted(marketTitle, m.marketId)}${fee}.`,
      };
    }
    case "ORDER_CANCELLED":
      return {
        title: "Order cancelled",
        body: `Your open order in ${quoted(marketTitle, d.metadata.marketId)} was cancelled because ${CANCEL_REASON[d.metadata.reason]}; its reserved funds are available again.`,
      };
    case "SETTLEMENT_CONFIRMED": {
      const n = d.metadata.tradeIds.length;
      return {
        title: n === 1 ? "Trade settled" : "Trades settled",
        body: `${n === 1 ? "Your trade" : `Your ${n} trades`} in ${quoted(marketTitle, d.metadata.marketId)} ${n === 1 ? "is" : "are"} confirmed on-chain${shortHash(d.metadata.txHash)}.`,
      };
    }
    case "SETTLEMENT_FAILED": {
      const n = d.metadata.tradeIds.length;
      return {
        title: n === 1 ? "Trade settlement failed" : "Trade settlements failed",
        body: `On-chain settlement of ${n === 1 ? "your trade" : `your ${n} trades`} in ${quoted(marketTitle, d.metadata.marketId)} failed${shortHash(d.metadata.txHash)}; it will be reviewed.`,
      };
    }
    case "RESOLUTION_PROPOSED":
      return {
        title: `Result proposed: ${d.metadata.proposedResult}`,
        body: `${quoted(marketTitle, d.metadata.marketId)} is proposed to resolve ${resultText(d.metadata.proposedResult)}. As a holder you can dispute it until ${d.metadata.disputeEndsAt}; undisputed, it becomes final then.`,
      };
    case "RESOLUTION_DISPUTED":
      return {
        title: "Proposed result disputed",
        body: `The proposed result ${resultText(d.metadata.proposedResult)} of ${quoted(marketTitle, d.metadata.marketId)} was disputed; the operator will decide the final result.`,
      };
    case "MARKET_RESOLVED": {
      const m = d.metadata;
      if (m.result === "SPLIT")
        return {
          title: "Market resolved: SPLIT",
          body: `${quoted(marketTitle, m.marketId)} resolved SPLIT: each YES and each NO share pays 50¢${m.positions.length ? "; your payout is credited to your available balance" : ""}.`,
        };
      const won = m.positions.filter((p) => p.outcome === m.result);
      const lost = m.positions.filter((p) => p.outcome !== m.result);
      const parts: string[] = [];
      for (const p of won)
        parts.push(`your ${shares(p.quantity)} ${p.outcome} shares pay ${usdt(p.quantity)}: redeem them from your portfolio`);
      for (const p of lost) parts.push(`your ${shares(p.quantity)} ${p.outcome} shares did not win`);
      return {
        title: `Market resolved: ${m.result}`,
        body: `${quoted(marketTitle, m.marketId)} resolved ${m.result}${parts.length ? `; ${parts.join("; ")}` : ""}.`,
      };
    }
    case "MARKET_CANCELLED":
      return { title: "Market cancelled", body: cancelledBody(d.metadata, marketTitle) };
    case "DEPOSIT_CREDITED":
      return { title: "Deposit credited", body: `${usdt(d.metadata.amount)} is now available in your account.` };
    case "WITHDRAWAL_SENT":
      return { title: "Withdrawal sent", body: `${usdt(d.metadata.amount)} was sent to your wallet${shortHash(d.metadata.txHash)}.` };
    case "POSITIONS_CONVERTED": {
      const m = d.metadata;
      const n = m.marketIds.length;
      const yes = m.yesReceived.length
        ? ` and ${shares(m.quantity)} YES shares of each of the event's ${m.yesReceived.length} other open markets`
        : "";
      return {
        title: "Positions converted",
        body: `${shares(m.quantity)} NO shares of ${n === 1 ? "one market" : `each of ${n} markets`} became ${usdt(m.cashCredited)}${yes}.`,
      };
    }
    case "WITHDRAWAL_FAILED":
      return {
        title: "Withdrawal failed",
        body: `Your withdrawal of ${usdt(d.metadata.amount)} failed (${d.metadata.reason}); the amount is available in your account again.`,
      };
    case "REWARD_PAID": {
      const m = d.metadata;
      const parts = [
        ...(m.reward !== "0" ? [`${usdt(m.reward)} of liquidity rewards`] : []),
        ...(m.rebate !== "0" ? [`${usdt(m.rebate)} of maker rebates`] : []),
      ];
      return {
        title: "Rewards paid",
        body: `${parts.join(" and ")} for ${quoted(marketTitle, m.marketId)} on ${m.day} are now available in your account.`,
      };
    }
  }
}

/** What a cancellation pays this holder: YES at the price, NO at 1 - price, rounded down once. */
function cancelledBody(m: NotificationMetadata["MARKET_CANCELLED"], marketTitle: string | null): string {
  const yesPayout = yesPayoutOfPrice(m.price) ?? DEFAULT_CANCEL_YES_PAYOUT;
  const held = (o: string) => m.positions.filter((p) => p.outcome === o).reduce((s, p) => s + Number(p.quantity), 0);
  const shareList = m.positions.map((p) => `${shares(p.quantity)} ${p.outcome}`).join(" and ");
  const pays = m.positions.length
    ? `; your ${shareList} shares pay ${usdt(holderPayout(held("YES"), held("NO"), yesPayout))}: redeem them from your portfolio`
    : "";
  return `${quoted(marketTitle, m.marketId)} was cancelled at ${cents(m.price)} (YES ${cents(m.price)}, NO ${cents(priceOfYesPayout(FULL_PAYOUT - yesPayout))} per share)${pays}.`;
}

const resultText = (r: string) => (r === "SPLIT" ? "SPLIT (50¢ per YES and per NO share)" : r);

/** The bot message: plain text (no parse mode), so titles never need escaping. */
export function telegramText(n: Pick<NotificationDoc, "title" | "body">): string {
  return `${n.title}\n${n.body}`;
}
