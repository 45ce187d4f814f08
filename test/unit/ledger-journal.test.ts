import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileLog, IndexedJournal, MemoryLog, sameBookCommand, type LedgerJournal, type RecordLog } from "../../ledger/journal";
import type { BookJournalDoc, LedgerEntryDoc } from "../../models/trading";

function book(marketId: string, seq: number): BookJournalDoc {
  return {
    _id: `${marketId}:${seq}`,
    marketId,
    seq,
    bookSeq: seq,
    node: "n1",
    command: { type: "cancel", orderId: `ord_${seq}`, userId: "usr_1" },
    ledgerKey: `book:${marketId}:${seq}`,
    postings: [],
    trades: [],
    fills: [],
    orders: [],
    closesLocks: [],
    at: "2026-11-22T00:00:00.000Z",
  };
}

/** Entries 1..n: every third a book command of market m1 or m2, the others deposits (with non-ASCII text). */
function entries(from: number, to: number): LedgerEntryDoc[] {
  const out: LedgerEntryDoc[] = [];
  for (let seq = from; seq <= to; seq++) {
    if (seq % 3 === 0) {
      const m = seq % 2 ? "m1" : "m2";
      const b = book(m, Math.ceil(seq / 6));
      out.push({ _id: b.ledgerKey, seq, postings: [], book: b, at: b.at });
    } else {
      out.push({ _id: `deposit:tx${seq}:ü€`, seq, postings: [{ kind: "cash", account: "usr_1", available: seq }], at: "2026-11-22T00:00:00.000Z" });
    }
  }
  return out;
}

async function exercise(j: LedgerJournal): Promise<void> {
  expect(j.lastSeq).toBe(12);
  expect(await j.has("deposit:tx4:ü€")).toBe(true);
  expect(await j.has("deposit:tx99")).toBe(false);
  expect((await j.get("book:m1:2"))?.seq).toBe(9);
  expect(await j.get("nope")).toBeNull();
  expect((await j.after(0, 100)).map((d) => d.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  expect((await j.after(4, 3)).map((d) => d.seq)).toEqual([5, 6, 7]);
  expect(await j.after(12, 10)).toEqual([]);
  expect((await j.bookEntries("m1", 0)).map((b) => b.seq)).toEqual([1, 2]);
  expect((await j.bookEntries("m2", 0)).map((b) => b.seq)).toEqual([1, 2]);
  expect((await j.bookEntries("m2", 1)).map((b) => b._id)).toEqual(["m2:2"]);
  expect(await j.bookEntries("m3", 0)).toEqual([]);
}

describe("ledger journal", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pmx-journal-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const openFile = (path: string) => IndexedJournal.open((onRecord) => FileLog.open(path, { fsync: true }, onRecord));

  it("in memory: appends in batches, finds by key, pages by seq, lists a market's book commands", async () => {
    const j = await IndexedJournal.open(async () => new MemoryLog());
    await j.append(entries(1, 5));
    await j.append(entries(6, 12));
    await exercise(j);
  });

  it("pages by seq across the decoded window's trims and from the file behind it", async () => {
    const path = join(dir, "journal.log");
    const j = await openFile(path);
    // 40,000 entries in batches of 7: the window of recent entries (16,384 to 32,768) is trimmed on the way.
    for (let from = 1; from <= 40_000; from += 7) await j.append(entries(from, Math.min(from + 6, 40_000)));
    for (const seq of [0, 1, 7_000, 7_615, 7_616, 7_617, 23_999, 24_000, 39_990, 39_999, 40_000]) {
      const got = (await j.after(seq, 5)).map((d) => d.seq);
      const want = Array.from({ length: Math.min(5, 40_000 - seq) }, (_, i) => seq + 1 + i);
      expect(got).toEqual(want);
    }
    await j.close();
  });

  it("a reader in the moment between the log's write and the journal's bookkeeping gets no entry out of place", async () => {
    const mem = new MemoryLog();
    const seen: number[][] = [];
    let j!: IndexedJournal;
    // The log's count has moved, the journal's continuation has not run yet: read right there.
    const log: RecordLog = {
      get count() {
        return mem.count;
      },
      append: async (records) => {
        await mem.append(records);
        if (mem.count > 12) seen.push((await j.after(5, 20)).map((d) => d.seq));
      },
      read: (from, to) => mem.read(from, to),
      close: () => mem.close(),
    };
    j = await IndexedJournal.open(async () => log);
    await j.append(entries(1, 12));
    await j.append(entries(13, 15));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(Array.from({ length: seen[0].length }, (_, i) => 6 + i));
    expect((await j.after(5, 20)).map((d) => d.seq)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    await j.close();
  });

  it("in a file: the same reads, and again after reopening (the index is rebuilt from the file)", async () => {
    const path = join(dir, "journal.log");
    const j = await openFile(path);
    await j.append(entries(1, 1));
    await j.append(entries(2, 12));
    await exercise(j);
    await j.close();
    expect(readFileSync(path, "utf8").split("\n")).toHaveLength(13);
    const again = await openFile(path);
    await exercise(again);
    await again.append(entries(13, 13));
    expect((await again.after(11, 5)).map((d) => d.seq)).toEqual([12, 13]);
    await again.close();
  });

  it("writes a book command's postings and trades once when they are its entry's, and reads them back in both places", async () => {
    const path = join(dir, "journal.log");
    const j = await openFile(path);
    const b = book("m1", 1);
    b.postings = [{ kind: "cash", account: "usr_shared", available: -5, locked: 5 }];
    const shared: LedgerEntryDoc = { _id: b.ledgerKey, seq: 1, postings: b.postings, book: b, at: b.at };
    const b2 = book("m1", 2);
    b2.postings = [{ kind: "cash", account: "usr_own", available: 7 }];
    const own: LedgerEntryDoc = { _id: b2.ledgerKey, seq: 2, postings: [{ kind: "cash", account: "usr_own", available: 7 }], book: b2, at: b2.at };
    await j.append([shared, own]);
    await j.close();
    const [line1, line2] = readFileSync(path, "utf8").split("\n");
    expect(line1.match(/usr_shared/g)).toHaveLength(1);
    expect(line2.match(/usr_own/g)).toHaveLength(2);
    const again = await openFile(path);
    expect(await again.get("book:m1:1")).toEqual({ ...shared, book: { ...b, trades: [] } });
    expect(await again.get("book:m1:2")).toEqual(own);
    expect((await again.bookEntries("m1", 0)).map((x) => x.postings)).toEqual([b.postings, b2.postings]);
    await again.close();
  });

  it("refuses an append that would leave a hole or repeat a seq", async () => {
    const j = await IndexedJournal.open(async () => new MemoryLog());
    await j.append(entries(1, 2));
    await expect(j.append(entries(4, 4))).rejects.toThrow(/out of order/);
    await expect(j.append(entries(2, 2))).rejects.toThrow(/out of order/);
    expect(j.lastSeq).toBe(2);
  });

  it("cuts off a torn last record (a write the crash interrupted, never acknowledged)", async () => {
    const path = join(dir, "journal.log");
    const j = await openFile(path);
    await j.append(entries(1, 12));
    await j.close();
    const whole = statSync(path).size;
    appendFileSync(path, '{"_id":"deposit:torn","seq":13,"post');
    const again = await openFile(path);
    await exercise(again);
    expect(statSync(path).size).toBe(whole);
    await again.append(entries(13, 13));
    expect((await again.get("deposit:tx13:ü€"))?.seq).toBe(13);
    await again.close();
  });

  it("refuses to open a journal whose records are out of seq order (corruption is not papered over)", async () => {
    const path = join(dir, "journal.log");
    writeFileSync(path, entries(1, 3).map((d) => JSON.stringify(d)).join("\n") + "\n" + JSON.stringify(entries(5, 5)[0]) + "\n");
    await expect(openFile(path)).rejects.toThrow(/record 4 holds seq 5/);
  });

  it("tells a retry of a commit (same command and effects) from a second writer of the same position", () => {
    const a = book("m1", 3);
    const retry = JSON.parse(JSON.stringify(a)) as BookJournalDoc;
    retry.node = "n2";
    retry.at = "2026-11-22T00:00:01.000Z";
    expect(sameBookCommand(a, retry)).toBe(true);
    expect(sameBookCommand(a, { ...a, command: { type: "cancel", orderId: "ord_other", userId: "usr_1" } })).toBe(false);
    expect(sameBookCommand(a, { ...a, postings: [{ kind: "cash", account: "usr_1", available: 1 }] })).toBe(false);
    expect(sameBookCommand(a, { ...a, orders: [{ orderId: "ord_3", userId: "usr_1", filledDelta: 0, remaining: 0, status: "cancelled" }] })).toBe(false);
    expect(sameBookCommand(a, { ...a, pool: { yes: 1, no: 1 } })).toBe(false);
    expect(sameBookCommand(a, undefined)).toBe(false);
    expect(sameBookCommand(undefined, undefined)).toBe(true);
  });
});
