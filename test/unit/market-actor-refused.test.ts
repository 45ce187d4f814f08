/**
 * A market actor whose commits the store refuses (a full disk): the commands are refused with the
 * ledger's 503, the actor keeps its lease and resumes from what the ledger holds (its book as
 * committed, not as it previewed the refused commands), and the next command goes through.
 */
import { LedgerDesk } from "../../ledger/desk";
import { Ledger } from "../../ledger/ledger";
import { verifyAll } from "../../ledger/verify";
import { MarketActor, type MarketPorts } from "../../trading/market-actor";
import { switchedStore } from "../support/switched-store";

const M = "mkt_r";
const SHARE = 1_000_000;

async function setup() {
  const { store, ctl } = switchedStore();
  const ledger = await Ledger.open(store);
  const desk = new LedgerDesk(ledger, store, { now: () => Date.now(), newId: (p) => `${p}_x` });
  for (const u of ["usr_a", "usr_b"])
    await desk.post({
      key: `dep:${u}`,
      postings: [
        { kind: "cash", account: u, available: 100 * SHARE },
        { kind: "external", flow: "deposit", amount: 100 * SHARE },
      ],
    });
  let ids = 0;
  let acquired = 0;
  const ports: MarketPorts = {
    fees: { takerBps: 100, makerBps: 50 },
    ammFeeBps: 0,
    newId: (p) => `${p}_${String(++ids).padStart(6, "0")}`,
    nodeID: "eng",
    market: async () => ({ status: "open", ammLiquidity: 0 }),
    ledger: {
      acquire: async (m) => {
        acquired++;
        return desk.acquire(m, "eng");
      },
      restingOrders: (m, after, limit) => store.restingOrders(m, after, limit),
      lease: (m) => desk.committedLease(m),
      post: async (e) => ledger.post(e),
      durable: (seq, instance) => ledger.waitDurable(seq, instance),
    },
    publish: () => undefined,
  };
  const actor = await MarketActor.load(M, ports);
  return { store, ctl, ledger, actor, acquired: () => acquired };
}

const open = (actor: MarketActor) =>
  actor.book
    .openOrders()
    .map((o) => `${o.userId} ${o.side} ${o.outcome} ${o.price} ${o.remaining}`)
    .sort();

describe("a market actor on a store that refuses its commits", () => {
  test("refused commands change nothing; the actor resumes from the ledger under its lease and goes on", async () => {
    const { store, ctl, ledger, actor, acquired } = await setup();
    await actor.place({ userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE });
    const committed = open(actor);
    const epoch = actor.epoch;
    const balances = () => ["usr_a", "usr_b"].map((u) => ledger.balance(u));
    const before = balances();

    ctl.refuse = true;
    // Pipelined: the first would fill usr_a's bid, the second rests; both were applied to the
    // book in memory before their group was refused.
    const refused = await Promise.allSettled([
      actor.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE }),
      actor.place({ userId: "usr_b", side: "BUY", outcome: "YES", orderType: "GTC", price: 30, quantity: 2 * SHARE }),
    ]);
    for (const r of refused) {
      expect(r.status).toBe("rejected");
      expect(r.status === "rejected" ? r.reason : null).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    }
    expect(actor.fenced).toBe(false);
    expect(balances()).toEqual(before);

    // Still refused: the actor's next command starts from the ledger's book and is refused too.
    await expect(
      actor.place({ userId: "usr_b", side: "BUY", outcome: "YES", orderType: "GTC", price: 35, quantity: SHARE }),
    ).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(open(actor)).toEqual(committed);

    ctl.refuse = false;
    const r = await actor.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE });
    expect(r.status).toBe("filled");
    expect(open(actor)).toEqual([]);
    // Under the same lease: no new one was taken (that is a write), the journal positions follow on.
    expect(actor.epoch).toBe(epoch);
    expect(acquired()).toBe(1);
    expect((await ledger.check()).ok).toBe(true);
    const audit = await verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() });
    expect(audit.problems).toEqual([]);
    expect(audit.ok).toBe(true);
  });
});
