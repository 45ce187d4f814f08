/**
 * The on-chain commitment of a settlement batch: one message body that binds the exact set of
 * trade ids. Anyone holding the ids can recompute the root and compare it with the chain.
 *
 *   settle#504d5853 query_id:uint64 count:uint32 root:bits256 batch:^Cell(snake UTF-8 batch id)
 *
 * root = sha256 of the trade ids, sorted (code-unit order) and de-duplicated, joined by "\n".
 */
import { createHash } from "node:crypto";
import { beginCell, type Cell } from "@ton/core";

export const SETTLE_OP = 0x504d5853; // "PMXS"

export interface Commitment {
  count: number;
  /** 64 hex chars. */
  root: string;
  /** The ids committed to, in the order hashed. */
  tradeIds: string[];
}

export function commitmentOf(tradeIds: readonly string[]): Commitment {
  const ids = [...new Set(tradeIds)].sort();
  if (!ids.length) throw new Error("a settlement batch needs at least one trade");
  for (const id of ids) if (id.includes("\n")) throw new Error("trade ids cannot contain newlines");
  const root = createHash("sha256").update(ids.join("\n")).digest("hex");
  return { count: ids.length, root, tradeIds: ids };
}

export function settlementBody(queryId: bigint, batchId: string, c: Commitment): Cell {
  return beginCell()
    .storeUint(SETTLE_OP, 32)
    .storeUint(queryId, 64)
    .storeUint(c.count, 32)
    .storeBuffer(Buffer.from(c.root, "hex"), 32)
    .storeRef(beginCell().storeStringTail(batchId).endCell())
    .endCell();
}

export interface ParsedSettlement {
  queryId: bigint;
  count: number;
  root: string;
  batchId: string;
}

export function parseSettlementBody(body: Cell): ParsedSettlement | null {
  try {
    const s = body.beginParse();
    if (s.remainingBits < 32 || s.loadUint(32) !== SETTLE_OP) return null;
    const queryId = s.loadUintBig(64);
    const count = s.loadUint(32);
    const root = s.loadBuffer(32).toString("hex");
    const batchId = s.loadRef().beginParse().loadStringTail();
    return { queryId, count, root, batchId };
  } catch {
    return null;
  }
}
