import { WriteBatcher } from "../../lib/serial";

describe("WriteBatcher", () => {
  it("writes the first item at once and everything added meanwhile in the next write, in order", async () => {
    const writes: number[][] = [];
    const b = new WriteBatcher<number>(async (items) => {
      writes.push(items);
      await new Promise((r) => setTimeout(r, 5));
    });
    const done = [1, 2, 3, 4].map((n) => b.add(n));
    await Promise.all(done);
    expect(writes).toEqual([[1], [2, 3, 4]]);
    await b.add(5);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it("rejects the items of a failed write only, and keeps writing later ones", async () => {
    let fail = true;
    const written: number[] = [];
    const b = new WriteBatcher<number>(async (items) => {
      if (fail) {
        fail = false;
        throw new Error("disk full");
      }
      written.push(...items);
    });
    await expect(b.add(1)).rejects.toThrow("disk full");
    await b.add(2);
    await b.drain();
    expect(written).toEqual([2]);
  });

  it("addAll: many items under one promise, written together, resolved once every one is written (rejected when a write fails)", async () => {
    const writes: number[][] = [];
    let fail = false;
    const b = new WriteBatcher<number>(async (items) => {
      if (fail) throw new Error("disk full");
      writes.push(items);
    }, 5);
    await b.addAll([1, 2, 3]);
    expect(writes).toEqual([[1, 2, 3]]);
    await b.addAll([]);
    expect(writes).toHaveLength(1);
    fail = true;
    await expect(b.addAll([4, 5])).rejects.toThrow("disk full");
  });
});
