import type { PmxClient } from "../client";
import type { Category } from "../models";
import { toMicro } from "../money";
import { UsageError } from "../terminal/args";
import { print, type Command, type CommandContext } from "../terminal/command";
import { table } from "../terminal/format";
import { opt, outcomeOf, pos } from "../terminal/options";

export const admin: Command = {
  name: "admin",
  usage: "admin create-event|close|cancel|resolve ... (needs ADMIN_KEY)",
  summary:
    "operator API: `admin create-event --title T --category C --market TITLE [--liquidity USDT]...`, `admin close|cancel <marketId>`, `admin resolve <marketId> YES|NO`",
  async run(ctx) {
    const c = ctx.client();
    if (!c.adminKey) throw new UsageError("the operator commands need the operator key in ADMIN_KEY (or PMX_ADMIN_KEY)");
    const sub = pos(ctx, 0, "admin command");
    if (sub === "create-event") return createEvent(ctx, c);
    const id = pos(ctx, 1, "market id");
    const m =
      sub === "close"
        ? await c.admin.closeMarket(id)
        : sub === "cancel"
          ? await c.admin.cancelMarket(id)
          : sub === "resolve"
            ? await c.admin.resolveMarket(id, { result: outcomeOf(pos(ctx, 2, "result")) })
            : null;
    if (!m) throw new UsageError(`unknown admin command "${sub}"`);
    print(ctx, () => `Market ${m.id} is now ${m.status}${m.result ? ` (${m.result})` : ""}`, m);
  },
};

/** `admin create-event`: one --market per market, each with its --liquidity (USDT) for the AMM when given. */
async function createEvent(ctx: CommandContext, c: PmxClient): Promise<void> {
  const title = opt(ctx, "title");
  const category = opt(ctx, "category") as Category | undefined;
  const markets = ctx.args.all.get("market") ?? [];
  if (!title || !category || !markets.length) throw new UsageError("create-event needs --title, --category and at least one --market");
  const liquidity = ctx.args.all.get("liquidity") ?? [];
  const e = await c.admin.createEvent({
    title,
    category,
    markets: markets.map((t, i) => (liquidity[i] ? { title: t, ammLiquidity: toMicro(liquidity[i], "liquidity") } : { title: t })),
  });
  print(
    ctx,
    () => [
      `Created event ${e.id}`,
      table(
        ["market", "title"],
        e.markets.map((m) => [m.id, m.title]),
      ),
    ],
    e,
  );
}
