/**
 * Idempotency-Keys in the ledger core: a key bound to its command before the answer is known
 * (IdemRecord.answerFrom) keeps its request's claim until the answer, is answered by the stored
 * answer once there is one, and otherwise, also after a restart, names where to read the answer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import type { IdemClaim } from "../../models/trading";

const S = 1_000_000;
const FP = "a".repeat(64);
const FROM = { action: "chain.withdrawalAnswer", params: { withdrawalId: "wd_1" } };
const debit = (key: string, idem?: object) => ({
  key,
  postings: [
    { kind: "cash" as const, account: "usr_1", available: -S },
    { kind: "external" as const, flow: "withdrawal" as const, amount: S },
  ],
  ...(idem ? { idem: idem as never } : {}),
});

async function setup(dir = ":memory:") {
  const store = SqliteMoneyStore.open(dir, { fsync: false });
  const ledger = await Ledger.open(store);
  if (ledger.lastSeq === 0)
    await ledger.waitDurable(
      ledger.post({
        key: "dep",
        postings: [
          { kind: "cash", account: "usr_1", available: 10 * S },
          { kind: "external", flow: "deposit", amount: 10 * S },
        ],
      }).seq,
    );
  return { store, ledger };
}

/** Whether the promise settled within a few turns of the event loop. */
async function settled<T>(p: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let out: { done: boolean; value?: T } = { done: false };
  void p.then((value) => (out = { done: true, value }));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return out;
}

describe("an Idempotency-Key bound to its command", () => {
  test("a second request waits while the first runs, and gets the stored answer once it comes", async () => {
    const { ledger, store } = await setup();
    expect(await ledger.idemClaim("usr_1", "k", FP)).toEqual({ answered: false });
    await ledger.waitDurable(
      ledger.post(debit("withdraw:wd_1", { scope: "usr_1", key: "k", fingerprint: FP, status: 202, response: null, answerFrom: FROM })).seq,
    );
    const second = ledger.idemClaim("usr_1", "k", FP);
    expect((await settled(second)).done).toBe(false);
    ledger.post({
      key: "idem:k",
      postings: [],
      idem: { scope: "usr_1", key: "k", fingerprint: FP, status: 202, response: { status: "accepted", txHash: "ab" } },
    });
    expect(await second).toEqual({ answered: true, status: 202, response: { status: "accepted", txHash: "ab" } });
    // The answer replaced the binding in the store.
    expect(await store.idempotent("usr_1", "k")).toEqual({ fingerprint: FP, status: 202, response: { status: "accepted", txHash: "ab" } });
    expect(await ledger.idemClaim("usr_1", "k", FP)).toEqual({
      answered: true,
      status: 202,
      response: { status: "accepted", txHash: "ab" },
    });
    await store.close();
  });

  test("released without an answer (it failed after the command): the key still names the command, never a second execution", async () => {
    const { ledger, store } = await setup();
    await ledger.idemClaim("usr_1", "k", FP);
    await ledger.waitDurable(
      ledger.post(debit("withdraw:wd_1", { scope: "usr_1", key: "k", fingerprint: FP, status: 202, response: null, answerFrom: FROM })).seq,
    );
    const second = ledger.idemClaim("usr_1", "k", FP);
    ledger.idemRelease("usr_1", "k");
    const expected: IdemClaim = { answered: true, status: 202, response: null, answerFrom: FROM };
    expect(await second).toEqual(expected);
    expect(await ledger.idemClaim("usr_1", "k", FP)).toEqual(expected);
    // Another request under the key is still refused.
    await expect(ledger.idemClaim("usr_1", "k", "b".repeat(64))).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    await store.close();
  });

  test("after a restart (the first request's claim gone with the process), the binding answers at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pmx-idem-"));
    try {
      const first = await setup(dir);
      await first.ledger.idemClaim("usr_1", "k", FP);
      await first.ledger.waitDurable(
        first.ledger.post(
          debit("withdraw:wd_1", { scope: "usr_1", key: "k", fingerprint: FP, status: 202, response: null, answerFrom: FROM }),
        ).seq,
      );
      await first.store.close();
      const again = await setup(dir);
      expect(await again.ledger.idemClaim("usr_1", "k", FP)).toEqual({ answered: true, status: 202, response: null, answerFrom: FROM });
      expect(again.ledger.balance("usr_1").available).toBe(9 * S);
      await again.store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a key whose command is not yet durable is answered once it is (no claim in between)", async () => {
    const { ledger, store } = await setup();
    await ledger.idemClaim("usr_1", "k", FP);
    ledger.post({ key: "idem:k", postings: [], idem: { scope: "usr_1", key: "k", fingerprint: FP, status: 200, response: { ok: 1 } } });
    expect(await ledger.idemClaim("usr_1", "k", FP)).toEqual({ answered: true, status: 200, response: { ok: 1 } });
    await store.close();
  });
});
