/**
 * The deposit rule and the canonical-wallet check: pure cases, then the same reading of real
 * transactions executed by the TVM in an in-memory sandbox.
 */
import { Address, beginCell, Cell } from "@ton/core";
import { classifyDepositTx, MAX_CREDIT, refineNotification, type DepositContext } from "../../chain/deposits";
import { commentBody, OP, standardJettonWallet } from "../../chain/jetton";
import { KeyRing } from "../../chain/keys";
import { SandboxChain } from "../../chain/sandbox";
import type { ChainTx } from "../../chain/tx";

const addr = (b: string) => Address.parseRaw("0:" + b.repeat(32));
const DEPOSIT = addr("d0");
const CANON = addr("c0");
const HOT = addr("40");
const ctx: DepositContext = { depositAddress: DEPOSIT, canonicalJettonWallet: CANON, hotWallet: HOT };
const notification = (amount: bigint) =>
  beginCell().storeUint(OP.transferNotification, 32).storeUint(1, 64).storeCoins(amount).storeAddress(addr("77")).storeBit(false).endCell();

function tx(p: { src?: Address | null; dest?: Address; body?: Cell; value?: bigint; bounced?: boolean; external?: boolean }): ChainTx {
  const dest = (p.dest ?? DEPOSIT).toRawString();
  return {
    hash: "ab".repeat(32),
    lt: "100",
    now: 1,
    account: dest,
    in: {
      kind: p.external ? "external-in" : "internal",
      src: p.external ? null : (p.src ?? CANON).toRawString(),
      dest,
      value: p.value ?? 1n,
      bounce: false,
      bounced: !!p.bounced,
      body: p.body ?? Cell.EMPTY,
      createdLt: "99",
    },
    outs: [],
    externalHash: null,
    computeSkipped: true,
    exitCode: null,
    actionResult: null,
    aborted: true,
    success: true,
  };
}

describe("classifyDepositTx", () => {
  test("credits only a notification from the canonical jetton wallet", () => {
    expect(classifyDepositTx(tx({ body: notification(5_000_000n) }), ctx)).toMatchObject({ kind: "credit", amount: 5_000_000n });
    expect(classifyDepositTx(tx({ src: addr("e1"), body: notification(5_000_000n) }), ctx)).toEqual({
      kind: "suspect",
      amount: 5_000_000n,
      src: addr("e1").toRawString(),
    });
  });

  test("zero and unrepresentable amounts are incidents, not credits", () => {
    expect(classifyDepositTx(tx({ body: notification(0n) }), ctx)).toMatchObject({ kind: "incident", incident: "bad_amount" });
    expect(classifyDepositTx(tx({ body: notification(MAX_CREDIT + 1n) }), ctx)).toMatchObject({ kind: "incident", incident: "bad_amount" });
  });

  test("native TON (plain or with a comment) is an incident; the hot wallet's gas top-up and our own externals are not", () => {
    expect(classifyDepositTx(tx({ src: addr("e2"), value: 10n ** 9n }), ctx)).toMatchObject({
      kind: "incident",
      incident: "native_ton",
      amount: 10n ** 9n,
    });
    expect(classifyDepositTx(tx({ src: addr("e2"), value: 5n, body: commentBody("pls credit") }), ctx)).toMatchObject({
      kind: "incident",
      incident: "native_ton",
    });
    expect(classifyDepositTx(tx({ src: HOT, value: 10n ** 8n }), ctx)).toMatchObject({ kind: "ignore" });
    expect(classifyDepositTx(tx({ external: true }), ctx)).toMatchObject({ kind: "ignore" });
  });

  test("bounces, unknown ops, malformed notifications and other addresses", () => {
    expect(classifyDepositTx(tx({ bounced: true, body: notification(5n) }), ctx)).toMatchObject({ kind: "incident", incident: "bounced" });
    expect(classifyDepositTx(tx({ src: addr("e3"), body: beginCell().storeUint(0xdeadbeef, 32).endCell() }), ctx)).toMatchObject({
      kind: "incident",
      incident: "unknown_message",
    });
    expect(
      classifyDepositTx(tx({ body: beginCell().storeUint(OP.transferNotification, 32).storeUint(1, 8).endCell() }), ctx),
    ).toMatchObject({ kind: "incident", incident: "forged_notification" });
    expect(classifyDepositTx(tx({ dest: addr("d1"), body: notification(5n) }), ctx)).toMatchObject({ kind: "ignore" });
  });
});

describe("refineNotification: naming a non-canonical sender", () => {
  const USDT = addr("aa");
  const FOREIGN = addr("bb");
  const suspect = { amount: 9n, src: addr("e1").toRawString() };
  test("a jetton wallet of another minter owned by the deposit address is a foreign jetton", () => {
    expect(refineNotification(suspect, { balance: 9n, owner: DEPOSIT, minter: FOREIGN }, USDT, DEPOSIT)).toMatchObject({
      kind: "incident",
      incident: "foreign_jetton",
      amount: 9n,
    });
  });
  test("not a jetton wallet, or a USDT wallet of someone else, is a forgery", () => {
    expect(refineNotification(suspect, null, USDT, DEPOSIT)).toMatchObject({ incident: "forged_notification" });
    expect(refineNotification(suspect, { balance: 9n, owner: addr("99"), minter: USDT }, USDT, DEPOSIT)).toMatchObject({
      incident: "forged_notification",
    });
    expect(refineNotification(suspect, { balance: 9n, owner: addr("99"), minter: FOREIGN }, USDT, DEPOSIT)).toMatchObject({
      incident: "forged_notification",
    });
  });
});

describe("the canonical-wallet check on real TVM transactions (in-memory sandbox)", () => {
  let sb: SandboxChain;
  let keys: KeyRing;
  beforeAll(async () => {
    keys = new KeyRing("0d".repeat(32));
    sb = new SandboxChain({ keys, testnet: true, dir: null, operatorNano: 0n });
    await sb.start();
  });

  const verdicts = async (owner: Address, afterLt = 0n) => {
    const hot = await keys.wallet("hot");
    const c = { depositAddress: owner, canonicalJettonWallet: await sb.jettonWalletAddress(owner), hotWallet: hot.address };
    const out = [];
    for (const t of await sb.transactions(owner, afterLt)) {
      let v = classifyDepositTx(t, c);
      if (v.kind === "suspect") v = refineNotification(v, await sb.jettonWalletData(Address.parseRaw(v.src)), sb.usdtMinter(), owner);
      out.push(v);
    }
    return out;
  };

  test("the minter's get_wallet_address is the standard jetton wallet address", async () => {
    const d = (await keys.deposit(0)).address;
    expect((await sb.jettonWalletAddress(d)).equals(standardJettonWallet(d, sb.usdtMinter()))).toBe(true);
    expect((await sb.jettonWalletAddress(d, sb.foreignMinter())).equals(standardJettonWallet(d, sb.foreignMinter()))).toBe(true);
  });

  test("USDT credited; a look-alike minter's real notification, an outsider's forged one and TON are not", async () => {
    const d = (await keys.deposit(1)).address;
    await sb.faucetSend("USDT", d, 4_000_000n);
    await sb.faucetSend("FOREIGN_USDT", d, 6_000_000n);
    await sb.injectFromOutsider(d, 10_000_000n, notification(10n ** 12n));
    await sb.faucetSend("TON", d, 3n * 10n ** 9n);
    const v = await verdicts(d);
    expect(v.map((x) => (x.kind === "incident" ? x.incident : x.kind))).toEqual([
      "credit",
      "foreign_jetton",
      "forged_notification",
      "native_ton",
    ]);
    expect(v[0]).toMatchObject({ amount: 4_000_000n });
  });

  test("the real USDT wallet of another deposit address cannot make a credit here", async () => {
    const d2 = (await keys.deposit(2)).address;
    const d3 = (await keys.deposit(3)).address;
    await sb.faucetSend("USDT", d3, 1_000_000n);
    // d3's canonical wallet, taken as the sender of a notification to d2, is a forgery for d2.
    const jw3 = await sb.jettonWalletAddress(d3);
    const data = await sb.jettonWalletData(jw3);
    expect(data).toMatchObject({ balance: 1_000_000n });
    expect(refineNotification({ amount: 1n, src: jw3.toRawString() }, data, sb.usdtMinter(), d2)).toMatchObject({
      incident: "forged_notification",
    });
    expect(
      classifyDepositTx(
        { ...(await sb.transactions(d3, 0n))[0] },
        { depositAddress: d2, canonicalJettonWallet: await sb.jettonWalletAddress(d2), hotWallet: HOT },
      ),
    ).toMatchObject({ kind: "ignore" });
  });
});
