import { UsageError } from "../terminal/args";
import { needLogin, print, type Command } from "../terminal/command";
import { table } from "../terminal/format";
import { flag, intOpt } from "../terminal/options";

export const notifications: Command = {
  name: "notifications",
  usage: "notifications [read <id...>|--all] [--unread] [--page N]",
  summary: "your notifications, or mark them read",
  async run(ctx) {
    const c = needLogin(ctx);
    if (ctx.args.positionals[0] === "read") {
      const ids = ctx.args.positionals.slice(1);
      if (!ids.length && !flag(ctx, "all")) throw new UsageError("give notification ids or --all");
      const r = await c.notifications.markRead(flag(ctx, "all") ? { all: true } : { ids });
      print(ctx, () => `Marked ${r.updated} read; ${r.unread} unread left.`, r);
      return;
    }
    const items = flag(ctx, "unread")
      ? await c.notifications.unread()
      : (await c.notifications.list({ page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") })).items;
    print(
      ctx,
      () =>
        items.length
          ? table(
              ["", "time", "type", "title", "text"],
              items.map((n) => [n.read ? "" : "*", n.createdAt.slice(0, 19), n.type, n.title, n.body]),
            )
          : "No notifications.",
      items,
    );
  },
};
