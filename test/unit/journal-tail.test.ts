/**
 * The side node's followers of the journal (mixins/journal.ts `JournalTail`): whatever order the
 * notifier and the chain read in, and however the journal grows meanwhile, each gets exactly what
 * reading the journal would give; entries the followers read close together are read from the
 * journal once.
 */
import fc from "fast-check";
import { JournalTail } from "../../mixins/journal";
import type { LedgerEntryDoc } from "../../models/trading";

/** A journal of `n` entries, seqs with gaps (as after refused writes), growing on demand. */
function journal() {
  const entries: LedgerEntryDoc[] = [];
  let next = 1;
  let loaded = 0;
  return {
    grow(n: number, gap = 0) {
      for (let i = 0; i < n; i++) {
        next += gap;
        entries.push({ seq: next++, key: `k${next}` } as unknown as LedgerEntryDoc);
      }
    },
    read: async (seq: number, limit: number) => {
      const got = entries.filter((e) => e.seq > seq).slice(0, limit);
      loaded += got.length;
      return got;
    },
    get loaded() {
      return loaded;
    },
  };
}

describe("JournalTail", () => {
  test("each follower gets what the journal gives, whatever the order of reads and growth", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ grow: fc.integer({ min: 0, max: 30 }), gap: fc.integer({ min: 0, max: 2 }) }),
            fc.record({
              who: fc.integer({ min: 0, max: 2 }),
              limit: fc.integer({ min: 1, max: 25 }),
              back: fc.integer({ min: 0, max: 40 }),
            }),
          ),
          { maxLength: 60 },
        ),
        fc.integer({ min: 5, max: 60 }),
        async (steps, max) => {
          const j = journal();
          const tail = new JournalTail(j.read, max);
          const followers = [tail.follower(), tail.follower(), tail.follower()];
          const at = [0, 0, 0];
          for (const s of steps) {
            if ("grow" in s) {
              j.grow(s.grow, s.gap);
              continue;
            }
            // Mostly from where the follower is; sometimes from further back (a restart re-reads).
            const from = Math.max(0, at[s.who] - (s.back > 30 ? s.back : 0));
            const [got, want] = await Promise.all([followers[s.who].entriesAfter(from, s.limit), j.read(from, s.limit)]);
            expect(got).toEqual(want);
            at[s.who] = got.length ? got[got.length - 1].seq : from;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test("two followers reading the same entries moments apart read the journal once", async () => {
    const j = journal();
    const tail = new JournalTail(j.read);
    const notifier = tail.follower();
    const chain = tail.follower();
    let n = 0;
    let c = 0;
    for (let round = 0; round < 10; round++) {
      j.grow(100);
      for (let k = 0; k < 5; k++) {
        const got = await notifier.entriesAfter(n, 200);
        if (got.length) n = got[got.length - 1].seq;
      }
      const got = await chain.entriesAfter(c, 500);
      c = got[got.length - 1].seq;
    }
    expect([n, c]).toEqual([1000, 1000]);
    // The first reads of each follower come from the journal; after that each entry is read once.
    const before = j.loaded;
    j.grow(100);
    await notifier.entriesAfter(n, 200);
    await chain.entriesAfter(c, 500);
    expect(j.loaded - before).toBe(100);
  });

  test("what every follower read is let go; a follower that left no longer holds entries", async () => {
    const j = journal();
    const tail = new JournalTail(j.read);
    const fast = tail.follower();
    const slow = tail.follower();
    j.grow(50);
    await slow.entriesAfter(0, 10);
    await fast.entriesAfter(0, 50);
    j.grow(50);
    await fast.entriesAfter(50, 50);
    const before = j.loaded;
    // The slow one's entries are still kept: nothing is read for it.
    expect((await slow.entriesAfter(10, 90)).map((e) => e.seq)).toEqual(Array.from({ length: 90 }, (_, i) => i + 11));
    expect(j.loaded).toBe(before);
    slow.leave();
    j.grow(10);
    await fast.entriesAfter(100, 10);
    // Only what follows the one follower left is kept now: an older read goes to the journal.
    const again = j.loaded;
    await slow.entriesAfter(50, 10);
    expect(j.loaded - again).toBe(10);
  });
});
