import type { PmxClient } from "../client";
import type { FaucetAsset } from "../models";
import { formatUnits, parseUnits } from "../money";
import { UsageError } from "../terminal/args";
import { needLogin, print, type Command } from "../terminal/command";
import { money, usdt } from "../terminal/format";
import { opt, pos } from "../terminal/options";

export const faucet: Command = {
  name: "faucet",
  usage: "faucet <amount> [--asset USDT|TON|FOREIGN_USDT] [--no-wait]",
  summary: "sandbox chain only: mint test tokens to your deposit address and wait for the credit",
  async run(ctx) {
    const c = needLogin(ctx);
    const asset = (opt(ctx, "asset") ?? "USDT").toUpperCase() as FaucetAsset;
    if (!["USDT", "TON", "FOREIGN_USDT"].includes(asset)) throw new UsageError("--asset must be USDT, TON or FOREIGN_USDT");
    const amount = parseUnits(pos(ctx, 0, "amount"), asset === "TON" ? 9 : 6, "amount");
    if (amount <= 0n) throw new UsageError("amount must be positive");
    const before = asset === "USDT" ? BigInt((await c.portfolio.balance()).available) : 0n;
    const r = await c.wallet.faucet({ amount: amount.toString(), asset });
    const unit = asset === "TON" ? "TON" : asset;
    const lines = [`Sent ${asset === "TON" ? formatUnits(amount, 9) : money(amount)} ${unit} to ${r.address} (tx ${r.txHash})`];
    let available: string | null = null;
    if (asset === "USDT" && opt(ctx, "wait") !== "false") {
      available = await creditedBalance(c, before + amount);
      lines.push(available !== null ? `Credited: available ${usdt(available)}` : "Not credited yet; check `trade balance` in a moment.");
    } else if (asset !== "USDT") lines.push(`${unit} is not credited to your balance (only the canonical USDT is).`);
    print(ctx, () => lines, { ...r, credited: available !== null, available });
  },
};

/** The available balance once it reaches `atLeast` (micro-USDT), polled for up to 30 s; null if it does not. */
async function creditedBalance(c: PmxClient, atLeast: bigint): Promise<string | null> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const b = await c.portfolio.balance();
    if (BigInt(b.available) >= atLeast) return b.available;
    if (Date.now() > deadline) return null;
    await new Promise((res) => setTimeout(res, 250));
  }
}
