/**
 * The chain port: what the chain service needs from TON, behind one interface with two adapters
 * chosen by config (`CHAIN=sandbox|ton`):
 * - `SandboxChain` runs @ton/sandbox in-process: real TVM execution, state persisted in DATA_DIR;
 * - `TonChain` talks to testnet/mainnet through @ton/ton's TonClient (toncenter v2 JSON-RPC).
 * Framework-free: no Moleculer here.
 */
import type { Address, MessageRelaxed, SendMode } from "@ton/core";
import type { DerivedWallet } from "./keys";
import type { ChainTx } from "./tx";
import { Refusal } from "../engine/refusal";

export type ChainKind = "sandbox" | "ton";

export interface JettonWalletData {
  balance: bigint;
  owner: Address;
  minter: Address;
}

/** What happened to a signed wallet message handed to the chain. */
export interface Submission {
  /** TEP-467 normalized hash of the external message (known before it lands). */
  msgHash: string;
  /** The wallet transaction that accepted it, once known (the sandbox knows at once). */
  txHash: string | null;
  /** Every transaction it caused, in order, when the adapter knows them (the sandbox). */
  trace: ChainTx[] | null;
  /** The wallet refuses the message after this (unix seconds): past it, an unseen message never lands. */
  validUntil: number;
}

/** The codes of the chain's refusals: CHAIN_REJECTED, the message was certainly not executed (the wallet refused it, or the node rejected it). */
export const CHAIN_CODES = ["CHAIN_REJECTED"] as const;
export type ChainCode = (typeof CHAIN_CODES)[number];

export function chainRejected(message: string): Refusal<ChainCode> {
  return new Refusal<ChainCode>("rejected", "CHAIN_REJECTED", message);
}

export interface ChainPort {
  readonly kind: ChainKind;
  readonly testnet: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The canonical USDT minter: the only jetton ever credited. */
  usdtMinter(): Address;
  /** What the minter's get_wallet_address answers for `owner`. */
  jettonWalletAddress(owner: Address, minter?: Address): Promise<Address>;
  /** get_wallet_data of a jetton wallet; null when the account is not an active jetton wallet. */
  jettonWalletData(jettonWallet: Address): Promise<JettonWalletData | null>;
  tonBalance(address: Address): Promise<bigint>;
  isActive(address: Address): Promise<boolean>;
  /** Transactions of `address` with lt > afterLt, oldest first. */
  transactions(address: Address, afterLt: bigint): Promise<ChainTx[]>;
  /** A transaction by hash (the sandbox knows all; the ton adapter those it has read). */
  findTransaction(hash: string): Promise<ChainTx | null>;
  /** The transaction an outbound message of `tx` caused at `dest` (one hop of a trace). */
  resultOf(tx: ChainTx, dest: Address): Promise<ChainTx | null>;
  /** The wallet's transaction that accepted the external message with this normalized hash. */
  findByExternal(wallet: Address, msgHash: string): Promise<ChainTx | null>;
  /** Sign and send messages from a derived v4 wallet (deploying it on first use). Throws chainRejected's refusal (CHAIN_REJECTED). */
  submit(wallet: DerivedWallet, messages: MessageRelaxed[], opts?: { sendMode?: SendMode }): Promise<Submission>;
}
