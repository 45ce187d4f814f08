/**
 * Balance, then three tabs: positions (with PnL; won positions redeemable here; NO on several
 * outcomes of a race convertible), open orders, and history (every order with its end and reason,
 * trades with their settlement, transfers: deposits, withdrawals, liquidity rewards and maker rebates), each paged,
 * newest first. The tab is in the address (?tab=history).
 */
import { useState } from "preact/hooks";
import type { MarketItem, Order, Position, Trade, Transfer } from "@pmx/client/models";
import { client, session$ } from "../api";
import { config } from "../config";
import { cents, dollars, friendlyAddress, pnlClass, shareCount, shortAddress, shortHash, signedDollars, when } from "../format";
import { balance$, portfolioPulse } from "../live";
import { navigate, pathFor } from "../router";
import { NeedsSession } from "../signin";
import { useStore } from "../store";
import { Done, ErrorText, Loading, Section, Toggle } from "../ui";
import { PagedList } from "../components/paged-list";
import { orderState } from "../order-words";
import { useRedeem } from "../components/redeem";
import { ConvertSection } from "../components/convert";
import { OrdersSection } from "./market";

const TRADES_PAGE = 10;
const HISTORY_PAGE = 20;

/** A won position's redeem button (the market's condition is fetched when pressed). */
function RedeemHere({ p, onDone }: { p: Position; onDone: (text: string) => void }) {
  // Said above the list: the position itself leaves the list once redeemed.
  const { redeem, state, result } = useRedeem(null, onDone);
  return (
    <div class="redeem-here">
      <button
        type="button"
        class="primary"
        disabled={state.pending || !!result}
        onClick={async () => {
          const m: MarketItem = await client.markets.get(p.marketId);
          await redeem(m);
        }}
      >
        Redeem {shareCount(p.quantity)} {p.outcome}
      </button>
      <ErrorText error={state.error} />
    </div>
  );
}

function Positions({ refresh }: { refresh: number }) {
  const [redeemed, setRedeemed] = useState<string | null>(null);
  return (
    <PagedList<Position>
      title="Positions"
      id="positions"
      testid="positions"
      listClass="cards"
      refresh={refresh}
      load={() => client.portfolio.positions()}
      above={<Done text={redeemed} testid="redeem-result" />}
      loadingWhat="positions"
      empty="No positions yet: buy YES or NO on a market."
      after={(positions) => <ConvertSection positions={positions} />}
      item={(p) => {
        // A resolved market marks at its payout: 1.00 a winning share.
        const won = p.markPrice === "1.00" && p.unrealizedPnl !== null && p.status === "open";
        const lost = p.markPrice === "0.00";
        const value = p.markPrice === null ? null : (BigInt(p.quantity) * BigInt(Math.round(Number(p.markPrice) * 1e6))) / 1_000_000n;
        return (
          <li key={p.id} data-won={won || undefined}>
            <p class="card-title">
              <a href={pathFor("market", { id: p.marketId })}>{p.market.title ?? p.marketId}</a>{" "}
              <span class={`side ${p.outcome.toLowerCase()}`}>{p.outcome}</span>
              {won && <span class="tag won">Won</span>}
              {lost && <span class="tag">Lost</span>}
              {p.status === "settled" && <span class="tag">settled</span>}
            </p>
            <dl class="facts">
              <div>
                <dt>Shares</dt>
                <dd data-field="shares">{shareCount(p.quantity)}</dd>
              </div>
              <div>
                <dt>Avg. paid</dt>
                <dd>{cents(p.avgEntryPrice)}</dd>
              </div>
              <div>
                <dt>{won || lost ? "Pays" : "Sell now"}</dt>
                <dd>{cents(p.markPrice)}</dd>
              </div>
              <div>
                <dt>Value</dt>
                <dd>{value === null ? "–" : dollars(value)}</dd>
              </div>
              <div>
                <dt>Unrealized</dt>
                <dd class={pnlClass(p.unrealizedPnl)} data-field="unrealized">
                  {signedDollars(p.unrealizedPnl)}
                </dd>
              </div>
              <div>
                <dt>Realized</dt>
                <dd class={pnlClass(p.realizedPnl)}>{signedDollars(p.realizedPnl)}</dd>
              </div>
            </dl>
            {won && <RedeemHere p={p} onDone={setRedeemed} />}
          </li>
        );
      }}
    />
  );
}

const SETTLEMENT: Record<string, string> = { pending: "settling on chain", confirmed: "settled on chain", failed: "settlement failed" };

function Trades({ refresh }: { refresh: number }) {
  return (
    <PagedList<Trade>
      title="Trades"
      id="trades"
      testid="trades"
      listClass="cards"
      pagerLabel="Trade pages"
      refresh={refresh}
      load={(page) => client.portfolio.trades({ page, pageSize: TRADES_PAGE })}
      empty="No trades yet."
      item={(t) => (
        <li key={t.id} data-trade={t.tradeId}>
          <p class="card-title">
            <a href={pathFor("market", { id: t.marketId })}>
              {t.side === "BUY" ? "Bought" : "Sold"} {shareCount(t.filledQuantity)} {t.outcome}
            </a>{" "}
            at {cents(t.avgPrice)}{" "}
            <span class="muted small">
              {t.venue === "CLOB" ? "order book" : t.venue === "AMM" ? "AMM" : "book + AMM"}, {t.role}, {when(t.createdAt)}
            </span>
          </p>
          <p>
            <span data-field="total">{dollars(t.totalCost)}</span> <span class="muted small">+ {dollars(t.fee)} fee</span> ·{" "}
            <span class={`settle ${t.settlementStatus}`} data-testid="settlement">
              {SETTLEMENT[t.settlementStatus] ?? t.settlementStatus}
            </span>
            {t.settlementTxHash && (
              <span class="muted small" title={t.settlementTxHash}>
                {" "}
                (tx {shortHash(t.settlementTxHash)})
              </span>
            )}
          </p>
        </li>
      )}
    />
  );
}

function OrderHistory({ refresh }: { refresh: number }) {
  return (
    <PagedList<Order>
      title="Orders"
      id="order-history"
      testid="order-history"
      pagerLabel="Order pages"
      refresh={refresh}
      load={(page) => client.orders.list({ status: "all", page, pageSize: HISTORY_PAGE })}
      empty="No orders yet."
      item={(o) => (
        <li key={o.orderId} data-order={o.orderId} data-status={o.status}>
          <span>
            <a href={pathFor("market", { id: o.marketId })}>
              {o.side} {shareCount(o.quantity)} {o.outcome}
            </a>{" "}
            at {cents(o.price)}{" "}
            <span class="muted small">
              ({o.orderType}
              {o.postOnly ? ", post-only" : ""}, {when(o.createdAt)})
            </span>
          </span>
          <span class={`order-state ${o.status}`} data-field="state">
            {orderState(o)}
          </span>
        </li>
      )}
    />
  );
}

/** Positions with no shares left (sold, merged, redeemed) or paid out, with what they made or lost. */
function ClosedPositions({ refresh }: { refresh: number }) {
  return (
    <PagedList<Position>
      title="Closed positions"
      id="closed-positions"
      testid="closed-positions"
      refresh={refresh}
      load={() => client.portfolio.positions({ status: "closed" })}
      empty="No closed positions yet."
      item={(p) => (
        <li key={p.id} data-position={p.id}>
          <span>
            <a href={pathFor("market", { id: p.marketId })}>{p.market.title ?? p.marketId}</a>{" "}
            <span class={`side ${p.outcome.toLowerCase()}`}>{p.outcome}</span>{" "}
            <span class="muted small">{p.status === "settled" ? "paid out" : "closed"}</span>
          </span>
          <span class={`order-state ${pnlClass(p.realizedPnl)}`} data-field="realized">
            {signedDollars(p.realizedPnl)} realized
          </span>
        </li>
      )}
    />
  );
}

const TRANSFER_STATUS: Record<Transfer["status"], string> = {
  credited: "credited",
  not_credited: "not credited",
  pending: "sending",
  confirmed: "sent",
  failed: "failed",
};

const TRANSFER_KIND: Record<Transfer["type"], string> = {
  deposit: "Deposit",
  withdrawal: "Withdrawal",
  reward: "Liquidity reward",
  rebate: "Maker rebate",
};

/** Rewards and rebates are paid by the exchange itself: paid, not sent. */
const transferStatus = (t: Transfer) => (t.type === "reward" || t.type === "rebate" ? "paid" : TRANSFER_STATUS[t.status]);

function Transfers({ refresh }: { refresh: number }) {
  return (
    <PagedList<Transfer>
      title="Transfers"
      id="transfers"
      testid="transfers"
      pagerLabel="Transfer pages"
      refresh={refresh}
      load={(page) => client.portfolio.transfers({ page, pageSize: HISTORY_PAGE })}
      empty="No deposits, withdrawals, rewards or rebates yet."
      item={(t) => (
        <li key={t.id} data-type={t.type} data-status={t.status}>
          <span>
            {/* A reward or rebate links to the market that paid it, as a trade does. */}
            {t.marketId ? <a href={pathFor("market", { id: t.marketId })}>{TRANSFER_KIND[t.type]}</a> : TRANSFER_KIND[t.type]}{" "}
            <strong data-field="amount">
              {t.asset === "USDT" || t.asset === null ? dollars(t.amount) : `${t.amount} units of ${t.asset}`}
            </strong>{" "}
            <span class="muted small">
              {t.type === "withdrawal" && t.address ? `to ${shortAddress(friendlyAddress(t.address, config.testnet))}, ` : ""}
              {t.day ? `for ${t.day}, ` : ""}
              {when(t.createdAt)}
              {t.txHash && `, tx ${shortHash(t.txHash)}`}
            </span>
          </span>
          <span class={`order-state ${t.status}`}>
            {transferStatus(t)}
            {t.reason && ` (${t.reason.replace(/_/g, " ")})`}
          </span>
        </li>
      )}
    />
  );
}

type Tab = "positions" | "orders" | "history";
const TABS: readonly Tab[] = ["positions", "orders", "history"];

export function PortfolioPage({ query }: { query: URLSearchParams }) {
  const session = useStore(session$);
  const balance = useStore(balance$);
  const refresh = portfolioPulse.use();
  const tab: Tab = (TABS as readonly string[]).includes(query.get("tab") ?? "") ? (query.get("tab") as Tab) : "positions";
  if (!session) return <NeedsSession title="Portfolio" headline="Sign in to see your portfolio" />;
  return (
    <>
      <h1>Portfolio</h1>
      <Section title="Balance" id="balance">
        {balance ? (
          <dl class="balance-grid" data-testid="balance">
            <div>
              <dt>Available</dt>
              <dd>{dollars(balance.available)}</dd>
            </div>
            <div>
              <dt>In open orders</dt>
              <dd>{dollars(balance.locked)}</dd>
            </div>
            <div>
              <dt>Total</dt>
              <dd>{dollars(balance.total)}</dd>
            </div>
          </dl>
        ) : (
          <Loading what="the balance" />
        )}
        <p>
          <a href={pathFor("wallet")}>Deposit or withdraw</a>
        </p>
      </Section>
      <Toggle
        label="Portfolio view"
        options={TABS}
        value={tab}
        onChange={(t) => navigate(t === "positions" ? pathFor("portfolio") : `${pathFor("portfolio")}?tab=${t}`, { replace: true })}
        labels={{ positions: "Positions", orders: "Open orders", history: "History" }}
      />
      {tab === "positions" && <Positions refresh={refresh} />}
      {tab === "orders" && <OrdersSection title="Open orders" refresh={refresh} />}
      {tab === "history" && (
        <>
          <OrderHistory refresh={refresh} />
          <ClosedPositions refresh={refresh} />
          <Trades refresh={refresh} />
          <Transfers refresh={refresh} />
        </>
      )}
    </>
  );
}
