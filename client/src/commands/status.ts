import { print, type Command } from "../terminal/command";
import { localTime } from "../terminal/format";
import { loadWallet } from "../terminal/store";

export const status: Command = {
  name: "status",
  usage: "status",
  summary: "exchange URL, wallet and session (never the token)",
  async run(ctx) {
    const c = ctx.client();
    const health = await c.health().then(
      (h) => h.status,
      (e: unknown) => `unreachable (${(e as Error).message})`,
    );
    let wallet = "none";
    try {
      wallet = loadWallet(ctx.walletPath).file.address;
    } catch {
      /* no key file yet */
    }
    const s = c.session;
    print(
      ctx,
      () => [
        `Exchange ${c.origin} (${health})`,
        `Wallet   ${wallet}`,
        `Session  ${s ? `${s.walletAddress}, valid until ${localTime(s.expiresAt)}` : "not logged in"}`,
      ],
      { url: c.origin, health, wallet, session: s ? { userId: s.userId, walletAddress: s.walletAddress, expiresAt: s.expiresAt } : null },
    );
  },
};
