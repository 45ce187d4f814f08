import type { PmxClient } from "../client";
import type { Category } from "../models";
import { toMicro } from "../money";
import { UsageError } from "../terminal/args";
import { print, type Command, type CommandContext } from "../terminal/command";
import { table } from "../terminal/format";
import { opt, outcomeOf, pos } from "../terminal/options";

export const admin: Command = {
  name: "admin",
  usage: "admin create-event|close|cancel|resolve|add-outcome|resolve-event ... (needs ADMIN_KEY)",
  summary:
    "operator API: `admin create-event --title T --category C --market TITLE [--liquidity USDT]...`, `admin close|cancel <marketId>`, `admin resolve <marketId> YES|NO`, " +
    "`admin add-outcome <eventId> --label L --title T`, `admin resolve-event <eventId> <winnerMarketId|none>`",
  async run(ctx) {
    const c = ctx.client();
    if (!c.adminKey) throw new UsageError("the operator commands need the operator key in ADMIN_KEY (or PMX_ADMIN_KEY)");
    const sub = pos(ctx, 0, "admin command");
    if (sub === "create-event") return createEvent(ctx, c);
    if (sub === "add-outcome") return addOutcome(ctx, c);
    if (sub === "resolve-event") return resolveEvent(ctx, c);
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

/** `admin add-outcome <eventId> --label L --title T`: a new outcome of an open race. */
async function addOutcome(ctx: CommandContext, c: PmxClient): Promise<void> {
  const eventId = pos(ctx, 1, "event id");
  const outcomeLabel = opt(ctx, "label");
  const title = opt(ctx, "title");
  if (!outcomeLabel || !title) throw new UsageError("add-outcome needs --label and --title");
  const m = await c.admin.addOutcome(eventId, { title, outcomeLabel });
  print(ctx, () => `Added outcome ${m.outcomeLabel} as market ${m.id} (${m.status})`, m);
}

/** `admin resolve-event <eventId> <winnerMarketId|none>`: the race resolved as one step. */
async function resolveEvent(ctx: CommandContext, c: PmxClient): Promise<void> {
  const eventId = pos(ctx, 1, "event id");
  const w = pos(ctx, 2, "winning market id, or none");
  const e = await c.admin.resolveEvent(eventId, { winnerMarketId: w.toLowerCase() === "none" ? null : w });
  print(
    ctx,
    () => [
      `Resolved event ${e.id}`,
      table(
        ["market", "result", "outcome"],
        e.markets.map((m) => [m.id, m.result ?? m.status, m.outcomeLabel ?? m.title]),
      ),
    ],
    e,
  );
}
