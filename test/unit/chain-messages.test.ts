import { Address, beginCell, Cell } from "@ton/core";
import {
  commentBody,
  internalTransferBody,
  mintBody,
  OP,
  opOf,
  parseComment,
  parseInternalTransfer,
  parseTransfer,
  parseTransferNotification,
  transferBody,
} from "../../chain/jetton";
import { commitmentOf, parseSettlementBody, settlementBody, SETTLE_OP } from "../../chain/settlement";
import { outcomeOfIndexSet } from "../../chain/redemption";
import { normalizedExternalHash } from "../../chain/tx";

const A = Address.parseRaw("0:" + "11".repeat(32));
const B = Address.parseRaw("0:" + "22".repeat(32));

describe("jetton messages (TEP-74)", () => {
  test("transfer: built and read back field by field", () => {
    const body = transferBody({
      queryId: 42n,
      amount: 1_500_000n,
      destination: A,
      responseTo: B,
      forwardTon: 1n,
      forwardPayload: commentBody("hi"),
    });
    expect(opOf(body)).toBe(OP.transfer);
    const t = parseTransfer(body)!;
    expect(t.queryId).toBe(42n);
    expect(t.amount).toBe(1_500_000n);
    expect(t.destination.equals(A)).toBe(true);
    expect(t.responseTo!.equals(B)).toBe(true);
    expect(t.forwardTon).toBe(1n);
  });

  test("transfer_notification: parsed; other ops, truncated and empty bodies are not notifications", () => {
    const n = beginCell()
      .storeUint(OP.transferNotification, 32)
      .storeUint(7, 64)
      .storeCoins(5_000_000n)
      .storeAddress(A)
      .storeBit(false)
      .endCell();
    const parsed = parseTransferNotification(n)!;
    expect([parsed.queryId, parsed.amount, parsed.sender!.equals(A)]).toEqual([7n, 5_000_000n, true]);
    expect(
      parseTransferNotification(transferBody({ queryId: 1n, amount: 1n, destination: A, responseTo: null, forwardTon: 0n })),
    ).toBeNull();
    expect(parseTransferNotification(beginCell().storeUint(OP.transferNotification, 32).storeUint(7, 16).endCell())).toBeNull();
    expect(parseTransferNotification(Cell.EMPTY)).toBeNull();
    expect(opOf(Cell.EMPTY)).toBeNull();
  });

  test("mint (op 21) carries the internal_transfer the minter forwards", () => {
    const body = mintBody({ queryId: 9n, to: A, amount: 3n, responseTo: B, forwardTon: 1n, walletTon: 100n }, B);
    const s = body.beginParse();
    expect(s.loadUint(32)).toBe(OP.mint);
    expect(s.loadUintBig(64)).toBe(9n);
    expect(s.loadAddress().equals(A)).toBe(true);
    expect(s.loadCoins()).toBe(100n);
    const it = parseInternalTransfer(s.loadRef())!;
    expect(it.amount).toBe(3n);
    expect(it.from!.equals(B)).toBe(true);
    expect(
      parseInternalTransfer(
        internalTransferBody({ queryId: 1n, amount: 2n, from: A, responseTo: null, forwardTon: 0n, forwardPayload: null }),
      ),
    ).toMatchObject({ amount: 2n });
  });

  test("comments", () => {
    expect(parseComment(commentBody("withdrawal wd_1"))).toBe("withdrawal wd_1");
    expect(parseComment(transferBody({ queryId: 1n, amount: 1n, destination: A, responseTo: null, forwardTon: 0n }))).toBeNull();
  });

  test("normalized external hash (TEP-467) ignores nothing that matters and is stable", () => {
    const body = commentBody("x");
    expect(normalizedExternalHash(A, body)).toBe(normalizedExternalHash(A, body));
    expect(normalizedExternalHash(A, body)).not.toBe(normalizedExternalHash(B, body));
    expect(normalizedExternalHash(A, body)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("settlement commitment", () => {
  test("root = sha256 of the sorted, de-duplicated ids; order of input does not matter", () => {
    const a = commitmentOf(["trd_b", "trd_a", "trd_c"]);
    const b = commitmentOf(["trd_c", "trd_a", "trd_b", "trd_a"]);
    expect(a).toEqual(b);
    expect(a.count).toBe(3);
    expect(a.tradeIds).toEqual(["trd_a", "trd_b", "trd_c"]);
    expect(a.root).toBe(require("node:crypto").createHash("sha256").update("trd_a\ntrd_b\ntrd_c").digest("hex"));
    expect(commitmentOf(["trd_a", "trd_b"]).root).not.toBe(a.root);
    expect(() => commitmentOf([])).toThrow();
    expect(() => commitmentOf(["a\nb"])).toThrow();
  });

  test("the body round-trips and names its batch", () => {
    const c = commitmentOf(["trd_1", "trd_2"]);
    const body = settlementBody(77n, "stl_abc", c);
    expect(opOf(body)).toBe(SETTLE_OP);
    expect(parseSettlementBody(body)).toEqual({ queryId: 77n, count: 2, root: c.root, batchId: "stl_abc" });
    expect(parseSettlementBody(commentBody("no"))).toBeNull();
  });
});

describe("redemption index sets", () => {
  test.each([
    ["0x1", "YES"],
    ["0x2", "NO"],
    ["0X2", null],
    ["0x01", "YES"],
    ["0x0002", "NO"],
    ["0x3", null],
    ["0x0", null],
    ["1", null],
    ["0x", null],
    ["0xg", null],
    ["0x" + "f".repeat(65), null],
  ])("%s -> %s", (s, o) => {
    expect(outcomeOfIndexSet(s)).toBe(o);
  });
});
