import type { BookState } from "../socket";
import type { Outcome } from "../models";
import type { Command, CommandContext } from "../terminal/command";
import { bookTable } from "../terminal/lines";
import { intOpt, opt, outcomeOf, pos } from "../terminal/options";

export const watch: Command = {
  name: "watch",
  usage: "watch <marketId> [--outcome YES|NO] [--updates N] [--seconds S]",
  summary: "live order book in the terminal (Ctrl-C to stop)",
  async run(ctx) {
    const id = pos(ctx, 0, "market id");
    const outcome = outcomeOf(opt(ctx, "outcome") ?? "YES");
    const maxUpdates = intOpt(ctx, "updates");
    const seconds = intOpt(ctx, "seconds");
    const ws = ctx.client().socket({});
    const stop = ctx.io.interrupted();
    let timer: NodeJS.Timeout | undefined;
    try {
      await ws.connect();
      const sub = ws.subscribeBook(id, { outcome });
      const render = (b: BookState) => renderBook(ctx, id, outcome, b);
      const ended = new Promise<void>((res) => {
        if (seconds !== undefined) timer = setTimeout(res, seconds * 1000);
      });
      const loop = (async () => {
        let n = 0;
        for await (const b of sub) {
          render(b);
          // The first state is the snapshot; --updates counts what came after it.
          if (maxUpdates !== undefined && n++ >= maxUpdates) break;
        }
      })();
      ws.on("reconnect", () => {
        if (!ctx.json) ctx.io.err("(reconnected; book rebuilt from a fresh snapshot)");
      });
      await Promise.race([loop, ended, stop.promise, sub.ready.then(() => new Promise<never>(() => undefined))]);
    } finally {
      if (timer) clearTimeout(timer);
      stop.dispose();
      ws.close();
    }
  },
};

/** One state of the book: a JSON line, or a titled table (redrawn in place on a terminal). */
function renderBook(ctx: CommandContext, id: string, outcome: Outcome, b: BookState): void {
  if (ctx.json) return ctx.io.out(JSON.stringify(b));
  if (ctx.io.isTTY) ctx.io.clear?.();
  ctx.io.out(
    `Order book ${id}, ${outcome} view, seq ${b.seq} — ${new Date().toISOString().slice(11, 19)}${ctx.io.isTTY ? " (Ctrl-C to stop)" : ""}`,
  );
  for (const line of bookTable(b).split("\n")) ctx.io.out(line);
  if (!ctx.io.isTTY) ctx.io.out("");
}
