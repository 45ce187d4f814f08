import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Datastore from "@seald-io/nedb";
import { closeNedbFile, keepNedbFilesOpen } from "../../mixins/nedb-files";

interface Row {
  _id: string;
  n: number;
}

describe("NeDB data files with a kept-open append handle", () => {
  let dir: string;
  beforeAll(() => keepNedbFilesOpen());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pmx-nedb-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

  it("appends every write to the file, survives a compaction (a new file renamed over it) and reloads the same data", async () => {
    const file = join(dir, "rows.db");
    const db = new Datastore<Row>({ filename: file });
    await db.loadDatabaseAsync();
    await db.insertAsync([{ _id: "a", n: 1 }, { _id: "b", n: 2 }]);
    await db.updateAsync({ _id: "a" }, { $inc: { n: 10 } });
    expect(lines(file)).toHaveLength(3);

    // Compaction rewrites the file: appends after it must land in the new file, not the old inode.
    await db.compactDatafileAsync();
    expect(lines(file)).toHaveLength(2);
    await db.insertAsync({ _id: "c", n: 3 });
    await db.removeAsync({ _id: "b" }, {});
    expect(lines(file)).toHaveLength(4);
    await closeNedbFile(file);

    const again = new Datastore<Row>({ filename: file });
    await again.loadDatabaseAsync();
    const rows = await again.findAsync({}).sort({ _id: 1 });
    expect(rows.map((r) => [r._id, r.n])).toEqual([
      ["a", 11],
      ["c", 3],
    ]);
    await again.insertAsync({ _id: "d", n: 4 });
    expect(lines(file).at(-1)).toContain('"_id":"d"');
    await closeNedbFile(file);
  });

  it("a removed data file is recreated by the next write instead of written through a stale handle", async () => {
    const file = join(dir, "gone.db");
    const db = new Datastore<Row>({ filename: file });
    await db.loadDatabaseAsync();
    await db.insertAsync({ _id: "a", n: 1 });
    await db.dropDatabaseAsync();
    const fresh = new Datastore<Row>({ filename: file });
    await fresh.loadDatabaseAsync();
    await fresh.insertAsync({ _id: "z", n: 26 });
    expect(lines(file)).toEqual([JSON.stringify({ _id: "z", n: 26 })]);
    await closeNedbFile(file);
  });
});
