/**
 * A group commit the store refuses whole (a full disk): the ledger core undoes every entry not yet
 * durable, refuses each of their waiters, and is again exactly what the store holds; the next
 * commit goes through. The store is the real SQLite store in memory, behind a switch that refuses
 * (or fails) its commits.
 */
import fc from "fast-check";
import type { AccountsSnapshot, Posting } from "../../engine/accounts";
import { Ledger } from "../../ledger/ledger";
import type { MoneyStore } from "../../ledger/store";
import type { BookJournalDoc, PostInput } from "../../models/trading";
import { switchedStore } from "../support/switched-store";

const S = 1_000_000;
const M = "mkt_a";

const deposit = (account: string, amount: number, key = `dep:${account}:${amount}`): PostInput => ({
  key,
  postings: [
    { kind: "cash", account, available: amount },
    { kind: "external", flow: "deposit", amount },
  ],
});

/** A complete set of `q` YES and NO shares bought by `account` for `q` cash (new positions, collateral). */
const mint = (account: string, q: number, key: string): PostInput => ({
  key,
  postings: [
    { kind: "cash", account, available: -q },
    { kind: "collateral", marketId: M, amount: q },
    { kind: "shares", account, marketId: M, outcome: "YES", quantity: q, cost: q / 2 },
    { kind: "shares", account, marketId: M, outcome: "NO", quantity: q, cost: q / 2 },
  ],
});

/** A book command of market M at journal position `seq` under `epoch`: a resting BUY's lock. */
function place(ledger: Ledger, account: string, amount: number, idemKey?: string): PostInput {
  const lease = ledger.lease(M);
  const book: BookJournalDoc = {
    marketId: M,
    seq: lease.seq + 1,
    epoch: lease.epoch,
    bookSeq: lease.bookSeq + 1,
    node: "eng",
    command: {
      type: "place",
      order: {
        orderId: `ord_${account}_${lease.seq + 1}`,
        userId: account,
        side: "BUY",
        outcome: "YES",
        price: 40,
        quantity: amount,
        orderType: "GTC",
        createdAt: "2030-01-01T00:00:00.000Z",
        prio: lease.bookSeq + 1,
      },
    },
    fills: [],
    // The order holds its lock (the money check compares them).
    orders: [
      { orderId: `ord_${account}_${lease.seq + 1}`, userId: account, filledDelta: 0, remaining: amount, status: "open", holds: amount },
    ],
    at: "2030-01-01T00:00:00.000Z",
  };
  return {
    key: `book:${M}:${book.seq}`,
    postings: [{ kind: "cash", account, available: -amount, locked: amount }],
    book,
    ...(idemKey ? { idem: { scope: account, key: idemKey, fingerprint: "fp", status: 200, response: { placed: book.seq } } } : {}),
  };
}

/** Accounts in a canonical order; a market without collateral is the same as one with 0. */
function canon(s: AccountsSnapshot) {
  return {
    cash: [...s.cash].sort((a, b) => a[0].localeCompare(b[0])),
    positions: [...s.positions].sort((a, b) => `${a.account}${a.outcome}`.localeCompare(`${b.account}${b.outcome}`)),
    collateral: s.collateral.filter(([, v]) => v !== 0).sort((a, b) => a[0].localeCompare(b[0])),
    fees: s.fees,
    external: s.external,
  };
}

/** The ledger's memory against what its store holds. */
async function expectMemoryIsStore(ledger: Ledger, store: MoneyStore) {
  const stored = await store.load();
  expect(canon(ledger.snapshotAccounts())).toEqual(canon(stored.accounts));
  expect(ledger.lastSeq).toBe(stored.head.seq);
  expect(ledger.durableSeq).toBe(stored.head.seq);
  // A market the store has a row for (its collateral) but no writer yet is the default lease.
  for (const id of new Set([...ledger.leases(), ...stored.markets].map((m) => m.marketId)))
    expect(ledger.lease(id)).toEqual(
      stored.markets.find((m) => m.marketId === id) ?? { marketId: id, epoch: 0, owner: null, seq: 0, bookSeq: 0, pool: null },
    );
}

const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, err }),
  );

describe("a group commit the store refuses", () => {
  test("every command of the group is refused with 503 and a retry hint; memory is again exactly the durable state; the next commit goes through", async () => {
    const { store, ctl } = switchedStore();
    const ledger = await Ledger.open(store);
    await ledger.waitDurable(ledger.post(deposit("usr_a", 100 * S)).seq);
    await ledger.waitDurable(ledger.post(mint("usr_a", 2 * S, "mint:1")).seq);
    const fence = ledger.acquire(M, "eng");
    await ledger.waitDurable(fence.seq);
    await ledger.waitDurable(ledger.post(place(ledger, "usr_a", 3 * S)).seq);
    const before = {
      accounts: canon(ledger.snapshotAccounts()),
      leases: ledger.leases(),
      seq: ledger.lastSeq,
      conservation: ledger.conservation(),
    };
    const instance = ledger.instance;
    const durableBefore = ledger.durableSeq;

    ctl.refuse = true;
    // One turn of the event loop: one group. New accounts and positions, collateral, a book
    // command with its Idempotency-Key's answer, a second command of the same market after it.
    expect(await ledger.idemClaim("usr_a", "key-1", "fp")).toEqual({ answered: false });
    const group = [
      deposit("usr_c", 7 * S),
      mint("usr_a", 5 * S, "mint:2"),
      mint("usr_c", 1 * S, "mint:3"),
      place(ledger, "usr_a", 4 * S, "key-1"),
    ];
    const outcomes = group.map((e) => ledger.post(e));
    outcomes.push(ledger.post(place(ledger, "usr_a", 1 * S)));
    expect(outcomes.every((o) => o.applied)).toBe(true);
    expect(ledger.balance("usr_c").available).toBe(6 * S);
    const waits = await Promise.all(outcomes.map((o) => settled(ledger.waitDurable(o.seq, o.instance))));
    for (const w of waits) {
      expect(w.ok).toBe(false);
      expect(w.ok ? null : w.err).toMatchObject({
        kind: "unavailable",
        code: "SERVICE_UNAVAILABLE",
        data: { retryAfter: expect.any(Number) },
      });
    }

    // Exactly what is durable: balances, positions (usr_c and its shares never existed), collateral,
    // fees, leases and journal position; a new instance, whose waits do not confuse the old seqs.
    expect(canon(ledger.snapshotAccounts())).toEqual(before.accounts);
    expect(ledger.leases()).toEqual(before.leases);
    expect(ledger.lastSeq).toBe(before.seq);
    expect(ledger.conservation()).toEqual(before.conservation);
    expect(ledger.positionsOf("usr_c")).toEqual([]);
    expect(ledger.snapshotAccounts().cash.some(([a]) => a === "usr_c")).toBe(false);
    await expectMemoryIsStore(ledger, store);
    expect(ledger.instance).not.toBe(instance);
    await expect(ledger.waitDurable(durableBefore, instance)).resolves.toBeUndefined();
    await expect(ledger.waitDurable(durableBefore + 1, instance)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(ledger.broken).toBeNull();

    // Still refused: the next group is undone too, and each attempt is a new commit.
    const attempts = ctl.attempts;
    const again = ledger.post(deposit("usr_c", 7 * S));
    await expect(ledger.waitDurable(again.seq, again.instance)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(ctl.attempts).toBe(attempts + 1);
    await expectMemoryIsStore(ledger, store);

    // The request gives its key back; the retry may execute, and everything goes through now.
    ledger.idemRelease("usr_a", "key-1");
    expect(await ledger.idemClaim("usr_a", "key-1", "fp")).toEqual({ answered: false });
    ctl.refuse = false;
    const acks = [...group.slice(0, 3), place(ledger, "usr_a", 4 * S, "key-1")].map((e) => ledger.post(e));
    acks.push(ledger.post(place(ledger, "usr_a", 1 * S)));
    for (const a of acks) expect(a.applied).toBe(true);
    await ledger.waitDurable(acks[acks.length - 1].seq, acks[acks.length - 1].instance);
    expect(ledger.balance("usr_c")).toEqual({ available: 6 * S, locked: 0, total: 6 * S });
    expect(await ledger.idemClaim("usr_a", "key-1", "fp")).toMatchObject({ answered: true, status: 200 });
    await expectMemoryIsStore(ledger, store);
    expect((await ledger.check()).ok).toBe(true);
  });

  test("entries applied while the refused group was being written are undone and refused with it", async () => {
    const { store, ctl } = switchedStore();
    const ledger = await Ledger.open(store);
    await ledger.waitDurable(ledger.post(deposit("usr_a", 10 * S)).seq);
    let open!: () => void;
    ctl.gate = new Promise((r) => (open = r));
    ctl.refuse = true;
    const first = ledger.post(mint("usr_a", 3 * S, "mint:1"));
    await new Promise((r) => setImmediate(r));
    // Validated against the first one (it spends what the first left): undone with it.
    const second = ledger.post(mint("usr_a", 7 * S, "mint:2"));
    expect(() => ledger.post(mint("usr_a", 1 * S, "mint:3"))).toThrow(/Insufficient balance/);
    const waits = [settled(ledger.waitDurable(first.seq, first.instance)), settled(ledger.waitDurable(second.seq, second.instance))];
    open();
    for (const w of await Promise.all(waits)) expect(w.ok).toBe(false);
    expect(ledger.balance("usr_a")).toEqual({ available: 10 * S, locked: 0, total: 10 * S });
    await expectMemoryIsStore(ledger, store);
    ctl.gate = null;
    ctl.refuse = false;
    const third = ledger.post(mint("usr_a", 1 * S, "mint:3"));
    await ledger.waitDurable(third.seq, third.instance);
    await expectMemoryIsStore(ledger, store);
  });

  test("a commit of unknown outcome stops writes until a restart, without an unhandled rejection", async () => {
    const { store, ctl } = switchedStore();
    const failures: Error[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on("unhandledRejection", onUnhandled);
    try {
      const ledger = await Ledger.open(store, { failed: (err) => failures.push(err) });
      ctl.fail = true;
      const r = ledger.post(deposit("usr_a", S));
      await expect(ledger.waitDurable(r.seq)).rejects.toMatchObject({ code: "LEDGER_UNAVAILABLE" });
      await ledger.idle();
      await new Promise((res) => setTimeout(res, 10));
      expect(failures.map((e) => e.message)).toEqual(["fsync failed"]);
      expect(ledger.broken?.message).toBe("fsync failed");
      expect(() => ledger.post(deposit("usr_b", S))).toThrow(/recovers on restart/);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  test("property: whatever commits are refused, memory ends as the store holds it and the money adds up", async () => {
    type Step = { kind: "deposit" | "mint" | "spend"; user: number; amount: number } | { kind: "flush"; refuse: boolean };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        kind: fc.constantFrom("deposit" as const, "mint" as const, "spend" as const),
        user: fc.nat(3),
        amount: fc.integer({ min: 1, max: 9 }),
      }),
      fc.record({ kind: fc.constant("flush" as const), refuse: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { store, ctl } = switchedStore();
        const ledger = await Ledger.open(store);
        let n = 0;
        const tried: Array<Promise<unknown>> = [];
        for (const s of steps) {
          if (s.kind === "flush") {
            ctl.refuse = s.refuse;
            await ledger.idle();
            continue;
          }
          const user = `usr_${s.user}`;
          const postings: Posting[] =
            s.kind === "spend"
              ? [
                  { kind: "cash", account: user, available: -s.amount * S },
                  { kind: "fee", amount: s.amount * S },
                ]
              : [];
          const entry =
            s.kind === "deposit"
              ? deposit(user, s.amount * S, `k${++n}`)
              : s.kind === "mint"
                ? mint(user, s.amount * S, `k${++n}`)
                : { key: `k${++n}`, postings };
          try {
            const r = ledger.post(entry);
            tried.push(settled(ledger.waitDurable(r.seq, r.instance)));
          } catch {
            // Refused for money: nothing applied.
          }
        }
        ctl.refuse = false;
        await ledger.idle();
        await Promise.all(tried);
        await expectMemoryIsStore(ledger, store);
        expect(ledger.conservation().ok).toBe(true);
        expect((await ledger.check()).ok).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
