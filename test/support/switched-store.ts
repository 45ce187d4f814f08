import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { CommitRefused, type CommitBatch, type MoneyStore } from "../../ledger/store";

/** The store's commits pass, or are refused whole (`refuse`), or fail with an unknown outcome (`fail`); `gate` holds them. */
export function switchedStore() {
  const inner = SqliteMoneyStore.open(":memory:", { fsync: false });
  const ctl = {
    refuse: false,
    fail: false,
    gate: null as Promise<void> | null,
    attempts: 0,
  };
  const commit = async (b: CommitBatch) => {
    ctl.attempts++;
    if (ctl.gate) await ctl.gate;
    if (ctl.refuse) throw new CommitRefused("the disk holding the money store is full", "SQLITE_FULL", true);
    if (ctl.fail) throw new Error("fsync failed");
    return inner.commit(b);
  };
  const store = new Proxy(inner, {
    get(t, k) {
      if (k === "commit") return commit;
      const v = Reflect.get(t, k, t) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  }) as MoneyStore;
  return { store, ctl };
}
