/**
 * TEP-74 jettons: the compiled standard minter and wallet (ton-blockchain/token-contract, as
 * shipped by @ton-community/assets-sdk, MIT), the data layouts, and the messages the exchange
 * builds and reads. Pure: no chain access here.
 */
import { Address, beginCell, Cell, contractAddress, type Slice, type StateInit } from "@ton/core";
import { jettonMinterCode } from "@ton-community/assets-sdk/dist/jetton/contracts/build/jetton-minter";
import { jettonWalletCode } from "@ton-community/assets-sdk/dist/jetton/contracts/build/jetton-wallet";

export const OP = {
  /** Minter, admin only (token-contract's op::mint). */
  mint: 21,
  transfer: 0x0f8a7ea5,
  internalTransfer: 0x178d4519,
  transferNotification: 0x7362d09c,
  excesses: 0xd53276db,
  burn: 0x595f07bc,
  /** Text comment (op 0 + UTF-8). */
  comment: 0,
} as const;

export const JETTON_MINTER_CODE: Cell = Cell.fromBase64(jettonMinterCode.codeBoc);
export const JETTON_WALLET_CODE: Cell = Cell.fromBase64(jettonWalletCode.codeBoc);

/** Off-chain-style metadata cell: the snake "offchain" prefix 0x01 + a URI (enough to tell minters apart). */
export function contentCell(uri: string): Cell {
  return beginCell().storeUint(0x01, 8).storeStringTail(uri).endCell();
}

/** StateInit of a standard minter: total_supply, admin, content, jetton_wallet_code. */
export function minterInit(admin: Address, content: Cell): StateInit {
  const data = beginCell().storeCoins(0).storeAddress(admin).storeRef(content).storeRef(JETTON_WALLET_CODE).endCell();
  return { code: JETTON_MINTER_CODE, data };
}

export function minterAddress(admin: Address, content: Cell): Address {
  return contractAddress(0, minterInit(admin, content));
}

/**
 * Where a standard minter puts `owner`'s wallet (what its get_wallet_address answers). Used only
 * to cross-check the chain in tests; the service always asks the minter itself.
 */
export function standardJettonWallet(owner: Address, minter: Address): Address {
  const data = beginCell().storeCoins(0).storeAddress(owner).storeAddress(minter).storeRef(JETTON_WALLET_CODE).endCell();
  return contractAddress(0, { code: JETTON_WALLET_CODE, data });
}

export function commentBody(text: string): Cell {
  return beginCell().storeUint(OP.comment, 32).storeStringTail(text).endCell();
}

export interface MintParams {
  queryId: bigint;
  to: Address;
  amount: bigint;
  /** Minter's response address for the excess TON. */
  responseTo: Address | null;
  /** TON the new jetton wallet sends on to the owner with the transfer_notification (0 = no notification). */
  forwardTon: bigint;
  /** TON the minter attaches to the internal_transfer (pays the wallet's deployment and gas). */
  walletTon: bigint;
  forwardPayload?: Cell | null;
}

/** Minter `mint` (op 21): to, TON for the wallet, and the internal_transfer the minter forwards. */
export function mintBody(p: MintParams, minter: Address): Cell {
  const internal = internalTransferBody({
    queryId: p.queryId,
    amount: p.amount,
    from: minter,
    responseTo: p.responseTo,
    forwardTon: p.forwardTon,
    forwardPayload: p.forwardPayload ?? null,
  });
  return beginCell()
    .storeUint(OP.mint, 32)
    .storeUint(p.queryId, 64)
    .storeAddress(p.to)
    .storeCoins(p.walletTon)
    .storeRef(internal)
    .endCell();
}

export function internalTransferBody(p: {
  queryId: bigint;
  amount: bigint;
  from: Address;
  responseTo: Address | null;
  forwardTon: bigint;
  forwardPayload: Cell | null;
}): Cell {
  return beginCell()
    .storeUint(OP.internalTransfer, 32)
    .storeUint(p.queryId, 64)
    .storeCoins(p.amount)
    .storeAddress(p.from)
    .storeAddress(p.responseTo)
    .storeCoins(p.forwardTon)
    .storeMaybeRef(p.forwardPayload)
    .endCell();
}

export interface TransferParams {
  queryId: bigint;
  amount: bigint;
  /** Owner (not jetton wallet) of the receiving side. */
  destination: Address;
  responseTo: Address | null;
  forwardTon: bigint;
  forwardPayload?: Cell | null;
}

/** TEP-74 `transfer`, sent by an owner to its own jetton wallet. */
export function transferBody(p: TransferParams): Cell {
  return beginCell()
    .storeUint(OP.transfer, 32)
    .storeUint(p.queryId, 64)
    .storeCoins(p.amount)
    .storeAddress(p.destination)
    .storeAddress(p.responseTo)
    .storeMaybeRef(null)
    .storeCoins(p.forwardTon)
    .storeMaybeRef(p.forwardPayload ?? null)
    .endCell();
}

export interface TransferNotification {
  queryId: bigint;
  amount: bigint;
  /** Previous owner as claimed in the body (untrusted: anyone can write any body). */
  sender: Address | null;
}

/** TEP-74 `transfer_notification` body, or null when the body is something else or malformed. */
export function parseTransferNotification(body: Cell): TransferNotification | null {
  try {
    const s = body.beginParse();
    if (s.remainingBits < 32 || s.loadUint(32) !== OP.transferNotification) return null;
    const queryId = s.loadUintBig(64);
    const amount = s.loadCoins();
    const sender = s.loadMaybeAddress();
    return { queryId, amount, sender };
  } catch {
    return null;
  }
}

export interface ParsedTransfer {
  queryId: bigint;
  amount: bigint;
  destination: Address;
  responseTo: Address | null;
  forwardTon: bigint;
}

export function parseTransfer(body: Cell): ParsedTransfer | null {
  try {
    const s = body.beginParse();
    if (s.remainingBits < 32 || s.loadUint(32) !== OP.transfer) return null;
    const queryId = s.loadUintBig(64);
    const amount = s.loadCoins();
    const destination = s.loadAddress();
    const responseTo = s.loadMaybeAddress();
    s.loadMaybeRef();
    const forwardTon = s.loadCoins();
    return { queryId, amount, destination, responseTo, forwardTon };
  } catch {
    return null;
  }
}

export function parseInternalTransfer(body: Cell): { queryId: bigint; amount: bigint; from: Address | null } | null {
  try {
    const s = body.beginParse();
    if (s.remainingBits < 32 || s.loadUint(32) !== OP.internalTransfer) return null;
    return { queryId: s.loadUintBig(64), amount: s.loadCoins(), from: s.loadMaybeAddress() };
  } catch {
    return null;
  }
}

/** First 32 bits of a body, or null for an empty one. */
export function opOf(body: Cell | null | undefined): number | null {
  if (!body) return null;
  const s: Slice = body.beginParse();
  return s.remainingBits >= 32 ? s.preloadUint(32) : null;
}

/** Text of a comment body (op 0), or null. */
export function parseComment(body: Cell): string | null {
  try {
    const s = body.beginParse();
    if (s.remainingBits < 32 || s.loadUint(32) !== OP.comment) return null;
    return s.loadStringTail();
  } catch {
    return null;
  }
}
