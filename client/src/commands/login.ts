import { print, type Command } from "../terminal/command";
import { localTime } from "../terminal/format";
import { loadWallet } from "../terminal/store";

export const login: Command = {
  name: "login",
  usage: "login [--domain D]",
  summary: "sign in with the wallet key file (a ton_proof signed locally; no transaction, no fee)",
  async run(ctx) {
    const { file: w, keyPair } = loadWallet(ctx.walletPath);
    const c = ctx.client();
    const s = await c.auth.loginWithKeyPair(keyPair, {
      wallet: { version: w.walletVersion, workchain: w.workchain, testnet: w.testnet },
    });
    print(ctx, () => `Logged in as ${s.walletAddress} (user ${s.userId}); session valid until ${localTime(s.expiresAt)}`, {
      userId: s.userId,
      walletAddress: s.walletAddress,
      expiresAt: s.expiresAt,
    });
  },
};
