import { UsageError } from "../terminal/args";
import { collectAll, needLogin, print, type Command } from "../terminal/command";
import { short, table } from "../terminal/format";
import { pageLine, transferAmount } from "../terminal/lines";
import { flag, intOpt, opt } from "../terminal/options";

const TYPES = ["deposit", "withdrawal", "reward", "rebate"] as const;

export const transfers: Command = {
  name: "transfers",
  usage: "transfers [--type deposit|withdrawal|reward|rebate] [--page N] [--page-size N] [--all]",
  summary: "your deposits (credited, and not credited with the reason), withdrawals, liquidity rewards and maker rebates, newest first",
  async run(ctx) {
    const c = needLogin(ctx);
    const type = opt(ctx, "type");
    if (type !== undefined && !(TYPES as readonly string[]).includes(type))
      throw new UsageError("--type must be deposit, withdrawal, reward or rebate");
    const params = { type: type as (typeof TYPES)[number] | undefined };
    const page = flag(ctx, "all")
      ? null
      : await c.portfolio.transfers({ ...params, page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") });
    const items = page ? page.items : await collectAll(c.portfolio.iterateTransfers({ ...params, pageSize: 100 }));
    print(
      ctx,
      () =>
        items.length
          ? [
              table(
                ["time", "type", "amount", "status", "tx", "address"],
                items.map((t) => [
                  t.createdAt.slice(0, 19),
                  t.type,
                  transferAmount(t),
                  t.reason ? `${t.status} (${t.reason})` : t.status,
                  t.txHash ? short(t.txHash) : "-",
                  t.address ? short(t.address) : t.marketId ? `${t.marketId} ${t.day ?? ""}`.trim() : "-",
                ]),
                new Set([2]),
              ),
              ...(page ? [pageLine(page)] : []),
            ]
          : "No transfers yet.",
      items,
    );
  },
};
