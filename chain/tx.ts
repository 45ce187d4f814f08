/**
 * One shape for a transaction whichever adapter read it (the sandbox's emulator or toncenter), so
 * the watcher, the withdrawal checks and the tests share one reading of the chain.
 */
import { Address, beginCell, Cell, type Message, type Transaction } from "@ton/core";
import type { ChainMessageView, ChainTxView } from "../models/chain";

export interface ChainMessage extends Omit<ChainMessageView, "value" | "body"> {
  /** nanoTON carried (internal only). */
  value: bigint;
  body: Cell;
}

export interface ChainTx extends Omit<ChainTxView, "in" | "outs"> {
  in: ChainMessage | null;
  outs: ChainMessage[];
}

/** TEP-467 normalized hash of an external-in message: addr_none source, zero import fee, no init, body by ref. */
export function normalizedExternalHash(dest: Address, body: Cell): string {
  return beginCell()
    .storeUint(2, 2)
    .storeUint(0, 2)
    .storeAddress(dest)
    .storeCoins(0)
    .storeBit(false)
    .storeBit(true)
    .storeRef(body)
    .endCell()
    .hash()
    .toString("hex");
}

function message(m: Message): ChainMessage {
  const info = m.info;
  if (info.type === "internal") {
    return {
      kind: "internal",
      src: info.src.toRawString(),
      dest: info.dest.toRawString(),
      value: info.value.coins,
      bounce: info.bounce,
      bounced: info.bounced,
      body: m.body,
      createdLt: info.createdLt.toString(),
    };
  }
  if (info.type === "external-in") {
    return {
      kind: "external-in",
      src: null,
      dest: info.dest.toRawString(),
      value: 0n,
      bounce: false,
      bounced: false,
      body: m.body,
      createdLt: "0",
    };
  }
  return {
    kind: "external-out",
    src: info.src.toRawString(),
    dest: null,
    value: 0n,
    bounce: false,
    bounced: false,
    body: m.body,
    createdLt: info.createdLt.toString(),
  };
}

export function normalizeTx(tx: Transaction, workchain = 0, links?: { parent?: string; children?: string[] }): ChainTx {
  const inMsg = tx.inMessage ? message(tx.inMessage) : null;
  const account = inMsg?.dest ?? new Address(workchain, Buffer.from(tx.address.toString(16).padStart(64, "0"), "hex")).toRawString();
  const outs = tx.outMessages.values().map(message);
  let computeSkipped = true;
  let exitCode: number | null = null;
  let computeOk = true;
  let actionResult: number | null = null;
  let actionOk = true;
  let aborted = false;
  const d = tx.description;
  if (d.type === "generic" || d.type === "tick-tock") {
    aborted = d.aborted;
    if (d.computePhase.type === "vm") {
      computeSkipped = false;
      exitCode = d.computePhase.exitCode;
      computeOk = d.computePhase.success;
    }
    if (d.actionPhase) {
      actionResult = d.actionPhase.resultCode;
      actionOk = d.actionPhase.success;
    }
  }
  const externalHash =
    tx.inMessage && tx.inMessage.info.type === "external-in" ? normalizedExternalHash(tx.inMessage.info.dest, tx.inMessage.body) : null;
  return {
    hash: tx.hash().toString("hex"),
    lt: tx.lt.toString(),
    now: tx.now,
    account,
    in: inMsg,
    outs,
    externalHash,
    computeSkipped,
    exitCode,
    actionResult,
    aborted,
    success: computeOk && actionOk && !(aborted && !computeSkipped),
    ...(links?.children ? { children: links.children } : {}),
    ...(links?.parent ? { parent: links.parent } : {}),
  };
}

/** JSON-friendly view (bigints as strings, bodies as base64 BOC) for actions and tests. */
export function txView(tx: ChainTx): ChainTxView {
  const msg = (m: ChainMessage) => ({ ...m, value: m.value.toString(), body: m.body.toBoc().toString("base64") });
  return { ...tx, in: tx.in ? msg(tx.in) : null, outs: tx.outs.map(msg) };
}

export function bodyOfView(base64: string): Cell {
  return Cell.fromBase64(base64);
}
