/**
 * The withdrawal state machine on in-memory ports: debit first, the dedup window, submission and
 * its outcome, reversal of what never left, and reconciliation of interrupted withdrawals.
 */
import { Address } from "@ton/core";
import { WITHDRAWAL_ANSWER, Withdrawals, withdrawalEntry, type WithdrawalPorts } from "../../chain/withdrawals";
import { LANDING_GRACE_SEC } from "../../chain/ports";
import type { WithdrawalDoc } from "../../models/chain";
import { FakeChain, MemWithdrawals, addressOf, fakeWorld } from "../support/chain-fakes";

const USER = "usr_w";
const WALLET = addressOf("alice-wallet").toRawString();
const S = 1_000_000;
const DEDUP_MS = 60_000;

function setup() {
  const { clock, chain, side, ledger, rec, newId } = fakeWorld();
  const store = new MemWithdrawals();
  let q = 1000n;
  const ports: WithdrawalPorts = {
    ledger,
    store,
    chain: side,
    clock,
    newId,
    queryId: () => ++q,
    emit: rec.emit,
    log: rec.log,
    limits: { min: S, max: 1000 * S, dedupMs: DEDUP_MS },
  };
  const w = new Withdrawals(ports);
  ledger.fund(USER, 100 * S);
  const hotAddress = async () => (await side.keys.wallet("hot")).address;
  const fundHot = async (amount: number) => chain.usdt.set((await hotAddress()).toRawString(), BigInt(amount));
  return { clock, chain, side, ledger, store, rec, w, hotAddress, fundHot };
}

const onChain = (chain: FakeChain, owner: string) => chain.balance(Address.parseRaw(owner));

describe("withdrawalEntry: the one place the postings are built", () => {
  test("the debit and its reversal cancel out, under their own keys", () => {
    const wd = { _id: "wd_1", userId: USER, amount: 5 * S };
    expect(withdrawalEntry(wd, "debit")).toEqual({
      key: "withdraw:wd_1",
      postings: [
        { kind: "cash", account: USER, available: -5 * S },
        { kind: "external", flow: "withdrawal", amount: 5 * S },
      ],
    });
    expect(withdrawalEntry(wd, "reversal")).toEqual({
      key: "withdraw-reversal:wd_1",
      postings: [
        { kind: "cash", account: USER, available: 5 * S },
        { kind: "external", flow: "withdrawal", amount: -5 * S },
      ],
    });
  });
});

describe("Withdrawals.withdraw", () => {
  test("debits, sends from the hot wallet to the session wallet, and is `sent` once delivered", async () => {
    const { w, ledger, chain, store, rec, fundHot } = setup();
    await fundHot(50 * S);
    const res = await w.withdraw(USER, WALLET, 10 * S);
    expect(res).toMatchObject({ status: "accepted", message: expect.stringMatching(/sent$/) });
    expect(ledger.available(USER)).toBe(90 * S);
    expect(onChain(chain, WALLET)).toBe(BigInt(10 * S));
    const [wd] = store.docs.values();
    expect(wd).toMatchObject({ status: "sent", userId: USER, amount: 10 * S, destination: WALLET, txHash: res.txHash });
    expect(rec.of("chain.withdrawalSent")).toEqual([{ userId: USER, withdrawalId: wd._id, amount: String(10 * S), txHash: res.txHash }]);
    expect(ledger.accounts.conservation().ok).toBe(true);
  });

  test("bounds: below the minimum, above the maximum or not a safe integer is a 400 before anything happens", async () => {
    const { w, ledger, store } = setup();
    for (const amount of [S - 1, 1000 * S + 1, Number.MAX_SAFE_INTEGER + 2, 1.5 * S + 0.5]) {
      await expect(w.withdraw(USER, WALLET, amount)).rejects.toMatchObject({ kind: "rejected", code: "VALIDATION_ERROR" });
    }
    expect(() => w.checkAmount(S - 1)).toThrow(/at least 1/);
    expect(() => w.checkAmount(1000 * S + 1)).toThrow(/at most 1,?000/);
    expect(ledger.attempts).toEqual([]);
    expect(store.docs.size).toBe(0);
  });

  test("an identical request while one is in flight, or within the window after it was sent, is a duplicate: no second debit", async () => {
    const { w, ledger, chain, clock, fundHot } = setup();
    await fundHot(50 * S);
    chain.script.push("pending");
    const first = await w.withdraw(USER, WALLET, 5 * S);
    expect(first).toMatchObject({ status: "accepted", message: expect.stringMatching(/submitted$/) });
    const inFlight = await w.withdraw(USER, WALLET, 5 * S);
    expect(inFlight).toMatchObject({ status: "duplicate", message: expect.stringMatching(/in flight/) });
    expect(ledger.available(USER)).toBe(95 * S);

    // Another amount is another withdrawal.
    const other = await w.withdraw(USER, WALLET, 6 * S);
    expect(other.status).toBe("accepted");
    expect(ledger.available(USER)).toBe(89 * S);

    // Sent: an identical request within the window is still a duplicate, after it a new one.
    const sent = await w.withdraw(USER, WALLET, 6 * S);
    expect(sent).toMatchObject({ status: "duplicate", txHash: other.txHash, message: expect.stringMatching(/within the last 60 s/) });
    clock.advance(DEDUP_MS + 1);
    expect((await w.withdraw(USER, WALLET, 6 * S)).status).toBe("accepted");
    expect(ledger.available(USER)).toBe(83 * S);
  });

  test("the ledger refuses the debit (insufficient balance): the 400 passes through and nothing is debited, recorded or sent", async () => {
    const { w, ledger, chain, store, rec, fundHot } = setup();
    await fundHot(500 * S);
    await expect(w.withdraw(USER, WALLET, 101 * S)).rejects.toMatchObject({ kind: "rejected", code: "INSUFFICIENT_BALANCE" });
    expect(ledger.available(USER)).toBe(100 * S);
    expect(store.docs.size).toBe(0);
    expect(store.locks.size).toBe(0);
    expect(chain.submissions).toHaveLength(0);
    expect(rec.events).toEqual([]);
  });

  test("a ledger that cannot be reached leaves the record `debiting` for reconciliation", async () => {
    const { w, ledger, store } = setup();
    ledger.down = new Error("ledger unreachable");
    await expect(w.withdraw(USER, WALLET, 5 * S)).rejects.toThrow("ledger unreachable");
    expect([...store.docs.values()].map((d) => d.status)).toEqual(["debiting"]);
  });

  test("a session wallet that is no address: INVALID_WALLET, nothing debited", async () => {
    const { w, ledger, store } = setup();
    await expect(w.withdraw(USER, "not-an-address", 5 * S)).rejects.toMatchObject({ kind: "rejected", code: "INVALID_WALLET" });
    expect(ledger.attempts).toEqual([]);
    expect(store.docs.size).toBe(0);
  });

  test("the chain refuses the message: `failed` with the reason, the debit reversed, the window released", async () => {
    const { w, ledger, chain, store, rec, fundHot } = setup();
    await fundHot(50 * S);
    chain.script.push("reject");
    const res = await w.withdraw(USER, WALLET, 5 * S);
    expect(res).toEqual({
      status: "failed",
      message: `Withdrawal could not be submitted: the wallet did not accept the message; 5.00 USDT returned to your available balance`,
    });
    expect(ledger.available(USER)).toBe(100 * S);
    const [wd] = store.docs.values();
    expect(wd).toMatchObject({ status: "failed", message: "the wallet did not accept the message" });
    expect(ledger.attempts).toEqual([`withdraw:${wd._id}`, `withdraw-reversal:${wd._id}`]);
    expect(store.locks.size).toBe(0);
    expect(rec.of("chain.withdrawalFailed")).toEqual([
      { userId: USER, withdrawalId: wd._id, amount: String(5 * S), reason: "the wallet did not accept the message" },
    ]);
    // Not a duplicate: the same amount goes out now.
    expect((await w.withdraw(USER, WALLET, 5 * S)).status).toBe("accepted");
    expect(ledger.available(USER)).toBe(95 * S);
  });

  test("a get-method failing before submission: certainly not sent, so reversed", async () => {
    const { w, ledger, chain, store } = setup();
    chain.getMethodsDown = true;
    const res = await w.withdraw(USER, WALLET, 5 * S);
    expect(res).toMatchObject({ status: "failed", message: expect.stringMatching(/could not be submitted \(get-method timed out\)/) });
    expect(ledger.available(USER)).toBe(100 * S);
    expect([...store.docs.values()].map((d) => d.status)).toEqual(["failed"]);
    expect(chain.submissions).toHaveLength(0);
  });

  test("the transfer fails on chain (the hot wallet short of jettons): `failed` with its tx hash, the debit reversed", async () => {
    const { w, ledger, chain, store, fundHot } = setup();
    await fundHot(2 * S);
    const res = await w.withdraw(USER, WALLET, 5 * S);
    expect(res).toMatchObject({
      status: "failed",
      txHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      message: expect.stringMatching(/too few jettons; 5.00 USDT returned/),
    });
    expect(ledger.available(USER)).toBe(100 * S);
    expect([...store.docs.values()][0]).toMatchObject({ status: "failed", txHash: res.txHash });
    expect(onChain(chain, WALLET)).toBe(0n);
  });

  test("a failure after submission (outcome unknown) is left to reconciliation: accepted, still debited", async () => {
    const { w, ledger, side, store, rec, fundHot } = setup();
    await fundHot(50 * S);
    side.persistDown = true;
    const res = await w.withdraw(USER, WALLET, 5 * S);
    expect(res).toMatchObject({ status: "accepted", message: "Withdrawal of 5.00 USDT submitted" });
    expect(ledger.available(USER)).toBe(95 * S);
    expect([...store.docs.values()][0].status).toBe("submitted");
    expect(rec.logs.some((l) => /outcome unknown, left to reconciliation/.test(l))).toBe(true);
  });
});

describe("Withdrawals.reconcile", () => {
  const debiting = (id: string, amount: number, at: number): WithdrawalDoc => ({
    _id: id,
    userId: USER,
    amount,
    destination: WALLET,
    status: "debiting",
    queryId: "1",
    msgHash: null,
    txHash: null,
    message: null,
    validUntil: null,
    createdAt: new Date(at).toISOString(),
    updatedAt: new Date(at).toISOString(),
  });

  test("interrupted after the debit, before submission: the debit is reversed and the withdrawal `failed`", async () => {
    const { w, ledger, store, clock, rec } = setup();
    const wd = debiting("wd_a", 7 * S, clock.now());
    await store.insert(wd);
    await ledger.post(withdrawalEntry(wd, "debit"));
    await store.putLock({ _id: `${USER}:${7 * S}`, withdrawalId: "wd_a", until: clock.now() + DEDUP_MS });
    expect(ledger.available(USER)).toBe(93 * S);
    await w.reconcile();
    expect(ledger.available(USER)).toBe(100 * S);
    expect(store.docs.get("wd_a")).toMatchObject({ status: "failed", message: "interrupted before submission" });
    expect(store.locks.size).toBe(0);
    expect(rec.of("chain.withdrawalFailed")).toHaveLength(1);
    // Reconciling again changes nothing.
    await w.reconcile();
    expect(ledger.available(USER)).toBe(100 * S);
  });

  test("interrupted before the debit was applied: posting it now and reversing it nets to nothing", async () => {
    const { w, ledger, store, clock } = setup();
    await store.insert(debiting("wd_b", 7 * S, clock.now()));
    await w.reconcile();
    expect(ledger.available(USER)).toBe(100 * S);
    expect(ledger.attempts).toEqual(["withdraw:wd_b", "withdraw-reversal:wd_b"]);
    expect(store.docs.get("wd_b")?.status).toBe("failed");
  });

  test("interrupted before a debit the ledger would refuse: `failed` without any entry", async () => {
    const { w, ledger, store, clock, rec } = setup();
    await store.insert(debiting("wd_c", 500 * S, clock.now()));
    await w.reconcile();
    expect(store.docs.get("wd_c")).toMatchObject({ status: "failed", message: "interrupted before the debit" });
    expect([...ledger.applied.keys()]).toEqual([]);
    expect(rec.events).toEqual([]);
  });

  test("submitted without a known outcome: `sent` once the transfer lands, `failed` and reversed once it expires unseen", async () => {
    const { w, ledger, chain, store, clock, rec, fundHot } = setup();
    await fundHot(50 * S);
    chain.script.push("pending", "pending");
    const a = await w.withdraw(USER, WALLET, 3 * S);
    const b = await w.withdraw(USER, WALLET, 4 * S);
    expect([a.status, b.status]).toEqual(["accepted", "accepted"]);
    expect(ledger.available(USER)).toBe(93 * S);
    const [wa, wb] = store.docs.values();

    await w.reconcile();
    expect([store.docs.get(wa._id)?.status, store.docs.get(wb._id)?.status]).toEqual(["submitted", "submitted"]);

    const [walletTx] = chain.land(wa.msgHash as string);
    await w.reconcile();
    expect(store.docs.get(wa._id)).toMatchObject({ status: "sent", txHash: walletTx.hash });
    expect(rec.of("chain.withdrawalSent")).toEqual([{ userId: USER, withdrawalId: wa._id, amount: String(3 * S), txHash: walletTx.hash }]);

    // b never lands: still waited for within the grace after its validity, failed after it.
    clock.t = ((wb.validUntil as number) + LANDING_GRACE_SEC) * 1000;
    await w.reconcile();
    expect(store.docs.get(wb._id)?.status).toBe("submitted");
    clock.advance(1000);
    await w.reconcile();
    expect(store.docs.get(wb._id)).toMatchObject({
      status: "failed",
      message: "the hot wallet's message expired without landing on chain",
    });
    expect(ledger.available(USER)).toBe(97 * S);
    expect(await w.pending()).toBe(0n);
  });

  test("submitted and landed as a failure: `failed`, reversed", async () => {
    const { w, ledger, chain, store, fundHot } = setup();
    await fundHot(1 * S);
    chain.script.push("pending");
    await w.withdraw(USER, WALLET, 3 * S);
    expect(await w.pending()).toBe(BigInt(3 * S));
    const [wd] = store.docs.values();
    chain.land(wd.msgHash as string);
    await w.reconcile();
    expect(store.docs.get(wd._id)).toMatchObject({ status: "failed", message: "the sending jetton wallet holds too few jettons" });
    expect(ledger.available(USER)).toBe(100 * S);
  });
});

describe("an Idempotency-Key bound to the withdrawal", () => {
  const KEY = { scope: USER, key: "k-1", fingerprint: "f".repeat(64), status: 202 };

  test("the key is journaled with the debit, naming where its answer is read; without a key the debit is as before", async () => {
    const { w, ledger, store, fundHot } = setup();
    await fundHot(50 * S);
    await w.withdraw(USER, WALLET, 5 * S, KEY);
    const [wd] = store.docs.values();
    expect(ledger.applied.get(`withdraw:${wd._id}`)).toEqual({
      ...withdrawalEntry(wd, "debit"),
      idem: { ...KEY, response: null, answerFrom: { action: WITHDRAWAL_ANSWER, params: { withdrawalId: wd._id } } },
    });
    await w.withdraw(USER, WALLET, 6 * S);
    const second = [...store.docs.values()].find((d) => d.amount === 6 * S) as WithdrawalDoc;
    expect(ledger.applied.get(`withdraw:${second._id}`)).toEqual(withdrawalEntry(second, "debit"));
  });

  test("its answer from the record: sent, submitted, failed with the reason; none while reconciliation has not decided a `debiting` one", async () => {
    const { w, store, chain, fundHot } = setup();
    await fundHot(50 * S);
    const sent = await w.withdraw(USER, WALLET, 5 * S, KEY);
    const ids = () => [...store.docs.values()].map((d) => d._id);
    expect(await w.answerOf(ids()[0])).toEqual({
      status: "accepted",
      txHash: sent.txHash,
      message: `Withdrawal of 5.00 USDT to ${WALLET} sent`,
    });
    chain.script.push("pending");
    const submitted = await w.withdraw(USER, WALLET, 6 * S);
    expect(await w.answerOf(ids()[1])).toEqual({
      status: "accepted",
      txHash: submitted.txHash,
      message: `Withdrawal of 6.00 USDT to ${WALLET} submitted`,
    });
    chain.script.push("reject");
    await w.withdraw(USER, WALLET, 7 * S);
    expect(await w.answerOf(ids()[2])).toMatchObject({
      status: "failed",
      message: expect.stringMatching(/^Withdrawal failed: .+; 7\.00 USDT returned to your available balance$/),
    });
    await store.update(ids()[2], { status: "debiting" });
    expect(await w.answerOf(ids()[2])).toBeNull();
    expect(await w.answerOf("wd_unknown")).toBeNull();
  });
});
