import { toMicro } from "../money";
import { UsageError } from "../terminal/args";
import { confirm, needLogin, print, Abort, type Command } from "../terminal/command";
import { usdt } from "../terminal/format";
import { replayedNote } from "../terminal/lines";
import { pos, writeOptions } from "../terminal/options";

export const withdraw: Command = {
  name: "withdraw",
  usage: "withdraw <amount> [--yes] [--idempotency-key K]",
  summary: "send USDT from your available balance to your own wallet",
  async run(ctx) {
    const c = needLogin(ctx);
    const raw = pos(ctx, 0, "amount");
    const amount = toMicro(raw, "amount");
    if (BigInt(amount) <= 0n) throw new UsageError("amount must be positive");
    await confirm(ctx, `Withdraw ${usdt(amount)} to your wallet ${c.session?.walletAddress}?`);
    const r = await c.wallet.withdraw({ amount }, writeOptions(ctx));
    print(ctx, () => `${r.status}: ${r.message}${r.txHash ? ` (tx ${r.txHash})` : ""}${replayedNote(r)}`, r);
    if (r.status === "failed") throw new Abort("");
  },
};
