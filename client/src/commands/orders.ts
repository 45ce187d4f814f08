import { UsageError } from "../terminal/args";
import { needLogin, print, type Command } from "../terminal/command";
import { orDash, shares, table } from "../terminal/format";
import { orderStatusText, pageLine } from "../terminal/lines";
import { flag, intOpt, opt } from "../terminal/options";

export const orders: Command = {
  name: "orders",
  usage: "orders [--market M] [--closed | --status open|closed|all] [--client-id ID] [--page N] [--page-size N]",
  summary: "your open orders (all of them); --closed: one page of filled, cancelled and expired ones, newest first",
  async run(ctx) {
    const c = needLogin(ctx);
    const status = flag(ctx, "closed") ? "closed" : (opt(ctx, "status") ?? "open");
    if (status !== "open" && status !== "closed" && status !== "all") throw new UsageError("--status must be open, closed or all");
    const filter = { marketId: opt(ctx, "market"), clientOrderId: opt(ctx, "client-id") };
    const paged = status !== "open" || intOpt(ctx, "page") !== undefined;
    const page = paged ? await c.orders.list({ ...filter, status, page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") }) : null;
    const os = page ? page.items : await c.orders.open(filter);
    const withIds = os.some((o) => o.clientOrderId);
    print(
      ctx,
      () =>
        os.length
          ? [
              table(
                ["order", "market", "side", "outcome", "type", "price", "shares", "filled", "status", ...(withIds ? ["client id"] : [])],
                os.map((o) => [
                  o.orderId,
                  o.marketId,
                  o.side,
                  o.outcome,
                  o.orderType,
                  o.price,
                  shares(o.quantity),
                  shares(o.filledQuantity),
                  orderStatusText(o),
                  ...(withIds ? [orDash(o.clientOrderId)] : []),
                ]),
                new Set([5, 6, 7]),
              ),
              ...(page ? [pageLine(page)] : []),
            ]
          : status === "open"
            ? "No open orders."
            : status === "closed"
              ? "No closed orders."
              : "No orders.",
      os,
    );
  },
};
