/** The chain adapter chosen by config (`CHAIN=sandbox|ton`) and the cores' view of it. */
import { join } from "node:path";
import { Address } from "@ton/core";
import type { ChainConfig } from "../lib/config";
import type { KeyRing } from "./keys";
import type { ChainPort } from "./port";
import type { ChainSide } from "./ports";
import { SandboxChain } from "./sandbox";
import { TonChain } from "./ton";

export interface OpenedChain {
  port: ChainPort;
  /** The in-process sandbox (faucet, injected messages), or null on a real network. */
  sandbox: SandboxChain | null;
  side: ChainSide;
}

/** The sandbox keeps its state under `<dataDir>/chain` (in memory with DATA_DIR=:memory:). */
export function openChain(
  kind: "sandbox" | "ton",
  cfg: ChainConfig,
  keys: KeyRing,
  dataDir: string,
  log: (msg: string) => void,
): OpenedChain {
  let sandbox: SandboxChain | null = null;
  let port: ChainPort;
  if (kind === "sandbox") {
    sandbox = new SandboxChain({
      keys,
      testnet: cfg.testnet,
      dir: dataDir === ":memory:" ? null : join(dataDir, "chain"),
      operatorNano: cfg.sandboxOperatorNano,
      log,
    });
    port = sandbox;
  } else {
    if (!cfg.usdtMinter) throw new Error("USDT_MINTER is required with CHAIN=ton");
    port = new TonChain({
      keys,
      testnet: cfg.testnet,
      endpoint: cfg.endpoint,
      apiKey: cfg.apiKey,
      usdtMinter: Address.parse(cfg.usdtMinter),
      confirmTimeoutMs: cfg.confirmTimeoutMs,
      log,
    });
  }
  const side: ChainSide = {
    port,
    keys,
    topUp: async (role) => {
      await (role === "hot" ? sandbox?.topUpHot() : sandbox?.topUpOperator());
    },
    persist: async () => {
      await sandbox?.persist();
    },
  };
  return { port, sandbox, side };
}
