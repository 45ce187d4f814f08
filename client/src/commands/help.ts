import { printUsage, type Command } from "../terminal/command";

/** The help command lists the table it belongs to (given by the registry once it is built). */
export function helpCommand(commands: ReadonlyMap<string, Command>): Command {
  return {
    name: "help",
    usage: "help [command]",
    summary: "this help",
    async run(ctx) {
      const name = ctx.args.positionals[0];
      const cmd = name ? commands.get(name) : undefined;
      if (cmd) return printUsage(ctx.io, cmd);
      ctx.io.out("Usage: trade <command> [options]");
      ctx.io.out("");
      for (const c of commands.values()) {
        ctx.io.out(`  trade ${c.usage}`);
        ctx.io.out(`      ${c.summary}`);
      }
      ctx.io.out("");
      for (const line of GLOBAL_OPTIONS) ctx.io.out(line);
    },
  };
}

const GLOBAL_OPTIONS = [
  "Global options: --url URL (PMX_URL, default http://localhost:3000), --domain D (PMX_DOMAIN, the",
  "login domain; default: the one the exchange names), --home DIR (PMX_HOME, default ~/.pmx),",
  "--wallet FILE (PMX_WALLET), --json (machine-readable output), --yes (answer yes to questions),",
  "--wait (when rate limited, wait the time the exchange asks and try again instead of failing; trade writes",
  "then carry an idempotency key, so one that lost its answer or met a 503 is sent again and still executes once),",
  "--idempotency-key K on buy, sell, withdraw and redeem (the same K again answers the first answer, executing nothing).",
  'Amounts are in shares and USDT ("12.5"), prices are decimals ("0.55"); USDT is shown with 2 to 6',
  "decimals, exact. Your wallet is shown in raw form (0:<hex>), as the exchange names it.",
];
