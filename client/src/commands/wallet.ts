import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { keyPairFromMnemonic, keyPairFromSecretKey, newMnemonic, WALLET_VERSIONS, type KeyPair, type WalletVersion } from "../proof";
import { UsageError } from "../terminal/args";
import { print, type Command, type CommandContext } from "../terminal/command";
import { flag, opt } from "../terminal/options";
import { loadWallet, saveWallet, walletFileFor } from "../terminal/store";

export const wallet: Command = {
  name: "wallet",
  usage: "wallet create|import|show [--version v4r2|v5r1] [--force] [--file PATH]",
  summary: "create a new key (24-word TON mnemonic), import one (mnemonic or 64-hex secret from stdin or --file), or show the address",
  async run(ctx) {
    const sub = ctx.args.positionals[0] ?? "show";
    const version = (opt(ctx, "version") ?? "v4r2") as WalletVersion;
    if (!WALLET_VERSIONS.includes(version)) throw new UsageError(`--version must be one of ${WALLET_VERSIONS.join(", ")}`);
    if (sub === "create") return createWallet(ctx, version);
    if (sub === "import") return importWallet(ctx, version);
    if (sub === "show") return showWallet(ctx);
    throw new UsageError(`unknown wallet command "${sub}"`);
  },
};

async function createWallet(ctx: CommandContext, version: WalletVersion): Promise<void> {
  const { words, keyPair } = await newMnemonic();
  const w = walletFileFor(keyPair, { walletVersion: version, mnemonic: words });
  saveWallet(ctx.walletPath, w, flag(ctx, "force"));
  print(
    ctx,
    () => [
      `Created a ${version} wallet ${w.address}`,
      `Key file: ${ctx.walletPath} (owner-only; its 24 words restore the wallet in any TON wallet app)`,
    ],
    { address: w.address, publicKey: w.publicKey, walletVersion: version, file: ctx.walletPath },
  );
}

/** From --file, else the terminal's answer, else all of stdin: 24 words or a secret key in hex. */
async function importWallet(ctx: CommandContext, version: WalletVersion): Promise<void> {
  const file = opt(ctx, "file");
  let text: string;
  if (file) text = readFileSync(resolve(file), "utf8");
  else if (ctx.io.isTTY) text = (await ctx.io.prompt("Paste the 24 words or the 64-byte secret key (hex): ")) ?? "";
  else text = await ctx.io.readAll();
  const input = text.trim();
  let keyPair: KeyPair;
  let mnemonic: string[] | undefined;
  if (/^(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{128})$/.test(input)) keyPair = keyPairFromSecretKey(Buffer.from(input, "hex"));
  else {
    mnemonic = input.split(/\s+/).filter(Boolean);
    if (mnemonic.length !== 24) throw new UsageError("expected 24 mnemonic words, or a 32/64-byte secret key in hex");
    keyPair = await keyPairFromMnemonic(mnemonic);
  }
  const w = walletFileFor(keyPair, { walletVersion: version, mnemonic });
  saveWallet(ctx.walletPath, w, flag(ctx, "force"));
  print(ctx, () => [`Imported a ${version} wallet ${w.address}`, `Key file: ${ctx.walletPath}`], {
    address: w.address,
    publicKey: w.publicKey,
    walletVersion: version,
    file: ctx.walletPath,
  });
}

async function showWallet(ctx: CommandContext): Promise<void> {
  const { file: w } = loadWallet(ctx.walletPath);
  print(ctx, () => [`Wallet ${w.address} (${w.walletVersion})`, `Public key ${w.publicKey}`, `Key file ${ctx.walletPath}`], {
    address: w.address,
    publicKey: w.publicKey,
    walletVersion: w.walletVersion,
    file: ctx.walletPath,
  });
}
