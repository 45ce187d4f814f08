/**
 * The deposit rule as a pure function of one transaction on a deposit address: credit only a
 * transfer_notification whose sender is that address's canonical USDT jetton wallet (what the
 * canonical minter's get_wallet_address answers for it). Everything else (native TON, another
 * jetton's notification, a notification forged by some contract, bounces) is recorded for support
 * and never credited.
 */
import type { Address } from "@ton/core";
import { OP, opOf, parseComment, parseTransferNotification } from "./jetton";
import type { JettonWalletData } from "./port";
import type { ChainTx } from "./tx";

export type IncidentKind = "native_ton" | "foreign_jetton" | "forged_notification" | "bounced" | "unknown_message" | "bad_amount";

export type DepositVerdict =
  | { kind: "credit"; amount: bigint; queryId: bigint; claimedSender: string | null }
  /** Our own traffic: the sweep's external message, the hot wallet's gas top-up, excess returns. */
  | { kind: "ignore"; reason: string }
  /** A notification from a jetton wallet other than the canonical one; `refineNotification` names it. */
  | { kind: "suspect"; amount: bigint; src: string }
  | { kind: "incident"; incident: IncidentKind; src: string | null; amount: bigint | null; detail: string };

export interface DepositContext {
  depositAddress: Address;
  canonicalJettonWallet: Address;
  hotWallet: Address;
}

/** Amounts a ledger entry can carry exactly (micro-USDT as safe integers). */
export const MAX_CREDIT = BigInt(Number.MAX_SAFE_INTEGER);

export function classifyDepositTx(tx: ChainTx, ctx: DepositContext): DepositVerdict {
  const m = tx.in;
  if (!m) return { kind: "ignore", reason: "no inbound message" };
  if (m.kind === "external-in") return { kind: "ignore", reason: "own external message" };
  if (m.kind !== "internal" || m.dest !== ctx.depositAddress.toRawString())
    return { kind: "ignore", reason: "not addressed to the deposit address" };
  const src = m.src as string;
  if (m.bounced)
    return { kind: "incident", incident: "bounced", src, amount: m.value, detail: "a bounced message came back to the deposit address" };
  const op = opOf(m.body);
  if (op === OP.transferNotification) {
    const n = parseTransferNotification(m.body);
    if (!n) return { kind: "incident", incident: "forged_notification", src, amount: null, detail: "a malformed transfer_notification" };
    if (src !== ctx.canonicalJettonWallet.toRawString()) return { kind: "suspect", amount: n.amount, src };
    if (n.amount <= 0n || n.amount > MAX_CREDIT)
      return {
        kind: "incident",
        incident: "bad_amount",
        src,
        amount: n.amount,
        detail: `a USDT notification of ${n.amount} cannot be credited`,
      };
    return { kind: "credit", amount: n.amount, queryId: n.queryId, claimedSender: n.sender ? n.sender.toRawString() : null };
  }
  if (src === ctx.hotWallet.toRawString()) return { kind: "ignore", reason: "gas top-up from the hot wallet" };
  if (op === OP.excesses) return { kind: "ignore", reason: "excess TON returned" };
  if (op === null || op === OP.comment) {
    const text = op === OP.comment ? parseComment(m.body) : null;
    return {
      kind: "incident",
      incident: "native_ton",
      src,
      amount: m.value,
      detail: `native TON received (${m.value} nanoTON)${text ? `, comment "${text.slice(0, 120)}"` : ""}; TON is not credited`,
    };
  }
  return {
    kind: "incident",
    incident: "unknown_message",
    src,
    amount: m.value,
    detail: `an unrecognized message (op 0x${op.toString(16)}) with ${m.value} nanoTON`,
  };
}

/**
 * Name a notification from a non-canonical sender, given what the sender answers to
 * get_wallet_data: a real jetton wallet of another minter is a foreign jetton; anything else (not
 * a jetton wallet, or one claiming the canonical minter at the wrong address) is a forgery.
 */
export function refineNotification(
  suspect: { amount: bigint; src: string },
  data: JettonWalletData | null,
  canonicalMinter: Address,
  depositAddress: Address,
): DepositVerdict {
  if (data && !data.minter.equals(canonicalMinter) && data.owner.equals(depositAddress)) {
    return {
      kind: "incident",
      incident: "foreign_jetton",
      src: suspect.src,
      amount: suspect.amount,
      detail: `a jetton of minter ${data.minter.toRawString()} (not the canonical USDT) was received; not credited`,
    };
  }
  const why = data
    ? `sender is a jetton wallet of ${data.minter.equals(canonicalMinter) ? "USDT" : data.minter.toRawString()} owned by ${data.owner.toRawString()}, not this address's canonical USDT wallet`
    : "sender is not a jetton wallet";
  return {
    kind: "incident",
    incident: "forged_notification",
    src: suspect.src,
    amount: suspect.amount,
    detail: `a transfer_notification claiming ${suspect.amount} was not sent by the canonical USDT wallet (${why}); not credited`,
  };
}
