import { needLogin, print, type Command } from "../terminal/command";

export const deposit: Command = {
  name: "deposit",
  usage: "deposit",
  summary: "your deposit address (send USDT on TON there)",
  async run(ctx) {
    const d = await needLogin(ctx).wallet.depositAddress();
    print(
      ctx,
      () => [
        `Deposit address ${d.address}`,
        `USDT jetton wallet ${d.jettonWalletAddress ?? "(created by the first deposit)"}`,
        "Only the canonical USDT jetton is credited; TON and other tokens are not.",
      ],
      d,
    );
  },
};
