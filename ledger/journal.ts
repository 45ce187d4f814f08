import { open, type FileHandle } from "node:fs/promises";
import type { BookJournalDoc, LedgerEntryDoc } from "../models/trading";
import type { Store } from "../mixins/db.mixin";

/**
 * The ledger's write-ahead journal: every accepted entry, in seq order (seqs 1, 2, 3, ... without
 * holes). Appends come in batches (group commit) and are durable once `append` resolves.
 */
export interface LedgerJournal {
  /** Highest seq written. */
  readonly lastSeq: number;
  /** Writes entries with the seqs right after `lastSeq`, in one write. */
  append(docs: LedgerEntryDoc[]): Promise<void>;
  /** The written entry under this idempotency key, or null. */
  get(key: string): Promise<LedgerEntryDoc | null>;
  has(key: string): Promise<boolean>;
  /** Written entries with seq > `seq`, in order, at most `limit`. */
  after(seq: number, limit: number): Promise<LedgerEntryDoc[]>;
  /** A market's written book commands with book seq > `afterSeq`, in order. */
  bookEntries(marketId: string, afterSeq: number): Promise<BookJournalDoc[]>;
  close(): Promise<void>;
}

/**
 * Two writes of one journal position are the same commit (a retry) when they carry the same book
 * command with the same effects; anything else is a second writer. Compared only on a repeated key.
 */
export function sameBookCommand(a: BookJournalDoc | undefined, b: BookJournalDoc | undefined): boolean {
  if (!a || !b) return a === b;
  const content = (d: BookJournalDoc) => JSON.stringify([d.marketId, d.seq, d.command, d.postings, d.orders, d.pool ?? null]);
  return content(a) === content(b);
}

/** Where an indexed journal keeps its records: one text line per entry, record i = seq i + 1. */
export interface RecordLog {
  readonly count: number;
  append(records: string[]): Promise<void>;
  /** Records [from, to), in order. */
  read(from: number, to: number): Promise<string[]>;
  close(): Promise<void>;
}

/** Records in memory (DATA_DIR=":memory:"): the same encoding and index as the file, without the file. */
export class MemoryLog implements RecordLog {
  private readonly records: string[] = [];

  get count(): number {
    return this.records.length;
  }

  async append(records: string[]): Promise<void> {
    for (const r of records) this.records.push(r);
  }

  async read(from: number, to: number): Promise<string[]> {
    return this.records.slice(from, to);
  }

  async close(): Promise<void> {}
}

const NEWLINE = 0x0a;

/**
 * An append-only file of newline-terminated records with a kept-open handle and the byte offset of
 * every record in memory (8 bytes each). One `write` per batch, then `fdatasync` when `fsync` is on.
 */
export class FileLog implements RecordLog {
  private offsets = new Float64Array(1024);
  private n = 0;
  private size = 0;

  private constructor(
    private readonly fh: FileHandle,
    private readonly fsync: boolean,
  ) {}

  /**
   * Opens (creating) the file and indexes its records, handing each to `onRecord` in order. A last
   * line without its newline is a write torn by a crash, never acknowledged: it is cut off.
   */
  static async open(path: string, opts: { fsync: boolean }, onRecord: (record: string, index: number) => void): Promise<FileLog> {
    const fh = await open(path, "a+");
    const log = new FileLog(fh, opts.fsync);
    try {
      const { size } = await fh.stat();
      const chunk = Buffer.allocUnsafe(8 << 20);
      let carry = Buffer.alloc(0);
      let pos = 0;
      while (pos < size) {
        const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, size - pos), pos);
        if (bytesRead === 0) break;
        const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
        const base = pos - carry.length;
        let start = 0;
        for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
          log.push(base + start);
          onRecord(buf.toString("utf8", start, nl), log.n - 1);
          start = nl + 1;
        }
        carry = Buffer.from(buf.subarray(start));
        pos += bytesRead;
      }
      log.size = size - carry.length;
      if (carry.length) await fh.truncate(log.size);
    } catch (err) {
      await fh.close();
      throw err;
    }
    return log;
  }

  get count(): number {
    return this.n;
  }

  private push(offset: number): void {
    if (this.n === this.offsets.length) {
      const grown = new Float64Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[this.n++] = offset;
  }

  async append(records: string[]): Promise<void> {
    if (!records.length) return;
    const text = records.join("\n") + "\n";
    const buf = Buffer.from(text, "utf8");
    let written = 0;
    while (written < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, written, buf.length - written);
      written += bytesWritten;
    }
    if (this.fsync) await this.fh.datasync();
    // Indexed only once written: readers never see a record that is not in the file.
    let offset = this.size;
    for (const r of records) {
      this.push(offset);
      offset += Buffer.byteLength(r, "utf8") + 1;
    }
    this.size = offset;
  }

  async read(from: number, to: number): Promise<string[]> {
    to = Math.min(to, this.n);
    if (from >= to) return [];
    const start = this.offsets[from];
    const end = to < this.n ? this.offsets[to] : this.size;
    const buf = Buffer.allocUnsafe(end - start);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await this.fh.read(buf, got, buf.length - got, start + got);
      if (bytesRead === 0) throw new Error("ledger journal file is shorter than its index");
      got += bytesRead;
    }
    const out: string[] = [];
    let s = 0;
    for (let i = from; i < to; i++) {
      const e = (i + 1 < to ? this.offsets[i + 1] : end) - start - 1;
      out.push(buf.toString("utf8", s, e));
      s = e + 1;
    }
    return out;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

/**
 * One record per entry. A book command carries the same postings and trades as its entry (the
 * market actor hands over one set of arrays): written once, with `$shared` on the book.
 */
function encode(doc: LedgerEntryDoc): string {
  const b = doc.book;
  if (b && b.postings === doc.postings && (b.trades === doc.trades || (!doc.trades && b.trades.length === 0))) {
    return JSON.stringify({ ...doc, book: { ...b, postings: undefined, trades: undefined, $shared: true } });
  }
  return JSON.stringify(doc);
}

function decode(record: string): LedgerEntryDoc {
  const doc = JSON.parse(record) as LedgerEntryDoc;
  const b = doc.book as (BookJournalDoc & { $shared?: boolean }) | undefined;
  if (b?.$shared) {
    delete b.$shared;
    b.postings = doc.postings;
    b.trades = doc.trades ?? [];
  }
  return doc;
}

/** Entries kept decoded after their write: readers tailing the journal (the notifier) never touch the log. */
const RECENT = 16384;

/** Journal over a record log with its indexes in memory: keys (idempotency) and each market's book entries. */
export class IndexedJournal implements LedgerJournal {
  private readonly keys = new Map<string, number>();
  /** The last entries written, oldest first; the entries are shared with readers, never to be mutated. */
  private recent: LedgerEntryDoc[] = [];
  /** Seq of recent[0]; kept apart from lastSeq, which moves a moment before `recent` does. */
  private recentFirst = 1;
  /** marketId -> ledger seqs of its book commands; the i-th is book seq i + 1 (contiguous per market). */
  private readonly books = new Map<string, number[]>();
  private log!: RecordLog;

  /** Opens a journal over a log that starts empty (memory) or over a file (indexed while read). */
  static async open(openLog: (onRecord: (record: string, index: number) => void) => Promise<RecordLog>): Promise<IndexedJournal> {
    const j = new IndexedJournal();
    j.log = await openLog((record, index) => {
      const doc = decode(record);
      if (doc.seq !== index + 1) throw new Error(`ledger journal record ${index + 1} holds seq ${doc.seq}`);
      j.index(doc);
    });
    j.recentFirst = j.log.count + 1;
    return j;
  }

  get lastSeq(): number {
    return this.log.count;
  }

  private index(doc: LedgerEntryDoc): void {
    this.keys.set(doc._id, doc.seq);
    if (!doc.book) return;
    let seqs = this.books.get(doc.book.marketId);
    if (!seqs) this.books.set(doc.book.marketId, (seqs = []));
    seqs.push(doc.seq);
  }

  async append(docs: LedgerEntryDoc[]): Promise<void> {
    docs.forEach((d, i) => {
      if (d.seq !== this.lastSeq + 1 + i) throw new Error(`ledger journal append out of order: seq ${d.seq} after ${this.lastSeq + i}`);
    });
    await this.log.append(docs.map(encode));
    for (const d of docs) this.index(d);
    for (const d of docs) this.recent.push(d);
    // Trimmed once per RECENT entries: copying the window on every write was ~4% of an order's CPU.
    if (this.recent.length > 2 * RECENT) {
      const drop = this.recent.length - RECENT;
      this.recent = this.recent.slice(drop);
      this.recentFirst += drop;
    }
  }

  async has(key: string): Promise<boolean> {
    return this.keys.has(key);
  }

  async get(key: string): Promise<LedgerEntryDoc | null> {
    const seq = this.keys.get(key);
    if (seq === undefined) return null;
    const [record] = await this.log.read(seq - 1, seq);
    return decode(record);
  }

  async after(seq: number, limit: number): Promise<LedgerEntryDoc[]> {
    if (seq + 1 >= this.recentFirst) return this.recent.slice(seq + 1 - this.recentFirst, seq + 1 - this.recentFirst + limit);
    const records = await this.log.read(seq, Math.min(this.log.count, seq + limit));
    return records.map(decode);
  }

  async bookEntries(marketId: string, afterSeq: number): Promise<BookJournalDoc[]> {
    const seqs = this.books.get(marketId)?.slice(afterSeq) ?? [];
    const out: BookJournalDoc[] = [];
    for (const seq of seqs) {
      const [record] = await this.log.read(seq - 1, seq);
      const book = decode(record).book;
      if (book && book.seq > afterSeq) out.push(book);
    }
    return out;
  }

  close(): Promise<void> {
    return this.log.close();
  }
}

/** Journal in a document store (MongoDB when scaled out): its own indexes serve the lookups. */
export class StoreJournal implements LedgerJournal {
  private last = 0;

  private constructor(
    private readonly store: Store<LedgerEntryDoc>,
    private readonly onClose: () => Promise<unknown>,
  ) {}

  static async open(store: Store<LedgerEntryDoc>, onClose: () => Promise<unknown>): Promise<StoreJournal> {
    const j = new StoreJournal(store, onClose);
    const [last] = await store.find({}, { sort: { seq: -1 }, limit: 1 });
    j.last = last?.seq ?? 0;
    return j;
  }

  get lastSeq(): number {
    return this.last;
  }

  async append(docs: LedgerEntryDoc[]): Promise<void> {
    await this.store.insertMany(docs);
    if (docs.length) this.last = docs[docs.length - 1].seq;
  }

  async has(key: string): Promise<boolean> {
    // A count does not copy the document.
    return (await this.store.count({ _id: key })) > 0;
  }

  get(key: string): Promise<LedgerEntryDoc | null> {
    return this.store.findOne({ _id: key });
  }

  after(seq: number, limit: number): Promise<LedgerEntryDoc[]> {
    return this.store.find({ seq: { $gt: seq } }, { sort: { seq: 1 }, limit });
  }

  async bookEntries(marketId: string, afterSeq: number): Promise<BookJournalDoc[]> {
    const docs = await this.store.find({ "book.marketId": marketId, "book.seq": { $gt: afterSeq } }, { sort: { "book.seq": 1 } });
    return docs.map((d) => d.book as BookJournalDoc);
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}
