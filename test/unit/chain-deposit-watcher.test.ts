/**
 * Deposit crediting on in-memory ports: address allocation, the watcher's classification of what
 * arrives, crediting each transaction once (also when a crash replays it), incidents for support,
 * and sweeps to the hot wallet.
 */
import { Address } from "@ton/core";
import { DepositWatcher, depositEntry, SWEEP_TOPUP_TON } from "../../chain/deposit-watcher";
import { MAX_CREDIT } from "../../chain/deposits";
import { MemDeposits, fakeWorld } from "../support/chain-fakes";

const S = 1_000_000;

function setup() {
  const { clock, chain, side, ledger, rec } = fakeWorld();
  const store = new MemDeposits();
  let counted = 0;
  const d = new DepositWatcher({ ledger, store, chain: side, clock, emit: rec.emit, log: rec.log, counted: () => void counted++ });
  const addressOfUser = async (userId: string) => Address.parseRaw((await d.allocate(userId)).address);
  const hot = async () => (await side.keys.wallet("hot")).address;
  return { clock, chain, side, ledger, store, rec, d, addressOfUser, hot, counted: () => counted };
}

test("depositEntry: the credit's postings under the transaction's key", () => {
  expect(depositEntry("usr_a", "ab".repeat(32), 5 * S)).toEqual({
    key: `deposit:${"ab".repeat(32)}`,
    postings: [
      { kind: "cash", account: "usr_a", available: 5 * S },
      { kind: "external", flow: "deposit", amount: 5 * S },
    ],
  });
});

describe("allocate", () => {
  test("one derivation index per user, the same ever after, its address the derived deposit wallet", async () => {
    const { d, side, store } = setup();
    const a = await d.allocate("usr_a");
    const b = await d.allocate("usr_b");
    expect([a.index, b.index]).toEqual([0, 1]);
    expect(await d.allocate("usr_a")).toEqual(a);
    expect(a.address).toBe((await side.keys.deposit(0)).address.toRawString());
    expect(await store.meta.get("nextIndex")).toBe(2);
  });

  test("an index taken meanwhile (another node, a stale counter) is skipped", async () => {
    const { d, store } = setup();
    await d.allocate("usr_a");
    await d.allocate("usr_b");
    await store.meta.set("nextIndex", 0);
    expect((await d.allocate("usr_c")).index).toBe(2);
    expect(await store.meta.get("nextIndex")).toBe(3);
  });
});

describe("the watcher", () => {
  test("USDT from the canonical jetton wallet is credited once, then swept to the hot wallet", async () => {
    const { d, chain, ledger, store, rec, addressOfUser, hot, counted } = setup();
    const addr = await addressOfUser("usr_a");
    const tx = chain.depositUsdt(addr, BigInt(5 * S));
    await d.scanAll();
    expect(ledger.available("usr_a")).toBe(5 * S);
    expect(store.deposits.get(tx.hash)).toMatchObject({
      userId: "usr_a",
      amount: 5 * S,
      address: addr.toRawString(),
      jettonWallet: chain.walletOf(addr).toRawString(),
      lt: tx.lt,
    });
    expect(rec.of("chain.depositCredited")).toEqual([{ userId: "usr_a", amount: String(5 * S), txHash: tx.hash }]);
    expect(counted()).toBe(1);
    const doc = store.addressDocs.get("usr_a");
    expect(doc).toMatchObject({
      canonicalJettonWallet: chain.walletOf(addr).toRawString(),
      firstDepositAt: new Date(tx.now * 1000).toISOString(),
      needsSweep: false,
    });
    // Swept: the hot wallet topped up the deposit wallet's gas, then the USDT moved on.
    expect(chain.balance(addr)).toBe(0n);
    expect(chain.balance(await hot())).toBe(BigInt(5 * S));
    expect(chain.submissions.map((s) => s.wallet)).toEqual([(await hot()).toRawString(), addr.toRawString()]);
    expect(await chain.tonBalance(addr)).toBe(SWEEP_TOPUP_TON);

    // The sweep's own traffic is neither credited nor an incident; nothing is credited twice.
    await d.scanAll();
    await d.scanAll();
    expect(ledger.available("usr_a")).toBe(5 * S);
    expect(store.incidents.size).toBe(0);
    expect(rec.of("chain.depositCredited")).toHaveLength(1);
  });

  test("a crash before the cursor moved replays the transaction: the ledger key keeps it credited once", async () => {
    const { d, chain, ledger, store, rec, addressOfUser, counted } = setup();
    const addr = await addressOfUser("usr_a");
    chain.depositUsdt(addr, BigInt(5 * S));
    await d.scanAll();
    await store.updateAddress("usr_a", { lastLt: "0" });
    await d.scanAll();
    expect(ledger.available("usr_a")).toBe(5 * S);
    expect(store.deposits.size).toBe(1);
    expect(rec.of("chain.depositCredited")).toHaveLength(1);
    expect(counted()).toBe(1);
    expect(ledger.attempts.filter((k) => k.startsWith("deposit:"))).toHaveLength(2);
  });

  test("native TON, a foreign jetton, a forged notification and an uncreditable amount: incidents for support, once each, nothing credited", async () => {
    const { d, chain, ledger, store, rec, addressOfUser } = setup();
    const addr = await addressOfUser("usr_a");
    const ton = chain.sendTon(addr, 2_000_000_000n);
    const foreign = chain.depositForeign(addr, BigInt(9 * S));
    const forged = chain.forgedNotification(addr, BigInt(9 * S));
    const huge = chain.depositUsdt(addr, MAX_CREDIT + 1n);
    await d.scanAll();
    await store.updateAddress("usr_a", { lastLt: "0" });
    await d.scanAll();
    expect(ledger.available("usr_a")).toBe(0);
    expect(store.deposits.size).toBe(0);
    const kinds = Object.fromEntries([...store.incidents.values()].map((i) => [i._id, i.kind]));
    expect(kinds).toEqual({
      [ton.hash]: "native_ton",
      [foreign.hash]: "foreign_jetton",
      [forged.hash]: "forged_notification",
      [huge.hash]: "bad_amount",
    });
    expect(store.incidents.get(ton.hash)).toMatchObject({
      userId: "usr_a",
      amount: "2000000000",
      detail: expect.stringContaining('comment "hi"'),
    });
    expect(
      rec
        .of("chain.incident")
        .map((e) => e.kind)
        .sort(),
    ).toEqual(["bad_amount", "foreign_jetton", "forged_notification", "native_ton"]);
    expect(store.addressDocs.get("usr_a")?.firstDepositAt).toBeNull();
  });

  test("a sweep still landing is looked at again only after its message expired", async () => {
    const { d, chain, ledger, store, addressOfUser, hot, clock } = setup();
    const addr = await addressOfUser("usr_a");
    chain.depositUsdt(addr, BigInt(5 * S));
    chain.script.push("execute", "pending");
    await d.scanAll();
    expect(ledger.available("usr_a")).toBe(5 * S);
    const doc = store.addressDocs.get("usr_a")!;
    expect(doc.needsSweep).toBe(true);
    expect(doc.sweepAfter).toBe((Math.floor(clock.now() / 1000) + 60 + 30) * 1000);
    await d.scanAll();
    expect(chain.submissions).toHaveLength(2);
    // It lands; past its validity the next scan sees the jettons gone and stops sweeping.
    chain.land(chain.submissions[1].msgHash);
    clock.t = doc.sweepAfter! + 1;
    await d.scanAll();
    expect(store.addressDocs.get("usr_a")?.needsSweep).toBe(false);
    expect(chain.balance(await hot())).toBe(BigInt(5 * S));
    expect(chain.submissions).toHaveLength(2);
  });

  test("a sweep that fails is retried on the next scan; the credit stands", async () => {
    const { d, chain, ledger, store, rec, addressOfUser, hot } = setup();
    const addr = await addressOfUser("usr_a");
    chain.depositUsdt(addr, BigInt(5 * S));
    chain.script.push("reject");
    await d.scanAll();
    expect(ledger.available("usr_a")).toBe(5 * S);
    expect(store.addressDocs.get("usr_a")?.needsSweep).toBe(true);
    expect(rec.logs.some((l) => /sweep of .* failed \(retried on the next scan\)/.test(l))).toBe(true);
    await d.scanAll();
    expect(store.addressDocs.get("usr_a")?.needsSweep).toBe(false);
    expect(chain.balance(await hot())).toBe(BigInt(5 * S));
  });

  test("one address failing does not hold up the others", async () => {
    const { d, chain, ledger, store, rec, addressOfUser } = setup();
    const a = await addressOfUser("usr_a");
    const b = await addressOfUser("usr_b");
    chain.depositUsdt(a, BigInt(S));
    chain.depositUsdt(b, BigInt(2 * S));
    // usr_a's stored address is damaged: its scan throws, usr_b's goes on.
    await store.updateAddress("usr_a", { lastLt: "not a number" });
    await d.scanAll();
    expect(ledger.available("usr_a")).toBe(0);
    expect(ledger.available("usr_b")).toBe(2 * S);
    expect(rec.logs.some((l) => l.startsWith(`deposit scan of ${a.toRawString()} failed`))).toBe(true);
  });
});
