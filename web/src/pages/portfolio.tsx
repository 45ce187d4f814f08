/** Balance, positions with PnL, open orders with cancel, trades with their settlement status. */
import { useState } from "preact/hooks";
import type { Page, Position, Trade } from "@pmx/client/models";
import { client, session$ } from "../api";
import { pnl, pnlClass, shares, shortHash, usdt, when } from "../format";
import { balance$, portfolioPulse } from "../live";
import { pathFor } from "../router";
import { NeedsSession } from "../signin";
import { useStore } from "../store";
import { ErrorText, Loading, Pager, Section, useLoad } from "../ui";
import { OrdersSection } from "./market";

const TRADES_PAGE = 10;

function Positions({ refresh }: { refresh: number }) {
  const { data, error, loading } = useLoad<Position[]>(() => client.portfolio.positions(), [refresh]);
  return (
    <Section title="Positions" id="positions">
      <ErrorText error={error} />
      {loading && !data && <Loading what="positions" />}
      {data && !data.length && <p class="muted">No positions yet: buy YES or NO on a market.</p>}
      {data && data.length > 0 && (
        <ul class="cards" data-testid="positions">
          {data.map((p) => (
            <li key={p.id}>
              <p class="card-title">
                <a href={pathFor("market", { id: p.marketId })}>{p.market.title ?? p.marketId}</a>{" "}
                <span class={`side ${p.outcome.toLowerCase()}`}>{p.outcome}</span>
                {p.status === "settled" && <span class="tag">settled</span>}
              </p>
              <dl class="facts">
                <div>
                  <dt>Shares</dt>
                  <dd data-field="shares">{shares(p.quantity)}</dd>
                </div>
                <div>
                  <dt>Avg price</dt>
                  <dd>{p.avgEntryPrice}</dd>
                </div>
                <div>
                  <dt>Mark</dt>
                  <dd>{p.markPrice ?? "–"}</dd>
                </div>
                <div>
                  <dt>Unrealized</dt>
                  <dd class={pnlClass(p.unrealizedPnl)}>{pnl(p.unrealizedPnl)}</dd>
                </div>
                <div>
                  <dt>Realized</dt>
                  <dd class={pnlClass(p.realizedPnl)}>{pnl(p.realizedPnl)}</dd>
                </div>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

const SETTLEMENT: Record<string, string> = { pending: "settling on chain", confirmed: "settled on chain", failed: "settlement failed" };

function Trades({ refresh }: { refresh: number }) {
  const [page, setPage] = useState(1);
  const { data, error } = useLoad<Page<Trade>>(() => client.portfolio.trades({ page, pageSize: TRADES_PAGE }), [page, refresh]);
  return (
    <Section title="Trades" id="trades">
      <ErrorText error={error} />
      {data && !data.items.length && <p class="muted">No trades yet.</p>}
      {data && data.items.length > 0 && (
        <>
          <ul class="cards" data-testid="trades">
            {data.items.map((t) => (
              <li key={t.id}>
                <p class="card-title">
                  <a href={pathFor("market", { id: t.marketId })}>
                    {t.side} {shares(t.filledQuantity)} {t.outcome}
                  </a>{" "}
                  at {t.avgPrice}{" "}
                  <span class="muted small">
                    {t.venue}, {t.role}, {when(t.createdAt)}
                  </span>
                </p>
                <p>
                  {usdt(t.totalCost)} USDT <span class="muted small">+ {usdt(t.fee)} fee</span> ·{" "}
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
            ))}
          </ul>
          <Pager
            label="Trade pages"
            page={data.pagination.page}
            hasNext={data.pagination.hasNext}
            onPage={setPage}
            labels={["Newer", "Older"]}
          />
        </>
      )}
    </Section>
  );
}

export function PortfolioPage() {
  const session = useStore(session$);
  const balance = useStore(balance$);
  const refresh = portfolioPulse.use();
  if (!session) return <NeedsSession title="Portfolio" headline="Sign in to see your portfolio" />;
  return (
    <>
      <h1>Portfolio</h1>
      <Section title="Balance" id="balance">
        {balance ? (
          <dl class="balance-grid" data-testid="balance">
            <div>
              <dt>Available</dt>
              <dd>{usdt(balance.available)} USDT</dd>
            </div>
            <div>
              <dt>In open orders</dt>
              <dd>{usdt(balance.locked)} USDT</dd>
            </div>
            <div>
              <dt>Total</dt>
              <dd>{usdt(balance.total)} USDT</dd>
            </div>
          </dl>
        ) : (
          <Loading what="the balance" />
        )}
        <p>
          <a href={pathFor("wallet")}>Deposit or withdraw</a>
        </p>
      </Section>
      <Positions refresh={refresh} />
      <OrdersSection title="Open orders" refresh={refresh} />
      <Trades refresh={refresh} />
    </>
  );
}
