import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspectSandboxState, SANDBOX_STATE_FILE, SANDBOX_TX_FILE } from "../../chain/sandbox";
import { readNedbFile } from "../../mixins/foundations.middleware";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pmx-readers-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a NeDB file read as NeDB reads it, without loading (which rewrites) it", () => {
  const file = () => join(dir, "users.db");

  test("later lines replace earlier ones, $$deleted removes, index records are skipped", () => {
    writeFileSync(
      file(),
      [
        '{"$$indexCreated":{"fieldName":"walletAddress","unique":true}}',
        '{"_id":"usr_a","walletAddress":"0:a"}',
        '{"_id":"usr_b","walletAddress":"0:b"}',
        '{"_id":"usr_a","walletAddress":"0:a","telegram":1}',
        '{"$$deleted":true,"_id":"usr_b"}',
        "",
      ].join("\n"),
    );
    const read = readNedbFile(file());
    expect("docs" in read && [...read.docs.values()]).toEqual([{ _id: "usr_a", walletAddress: "0:a", telegram: 1 }]);
  });

  test("a torn last line (a crash while appending) is tolerated; a bad line before others is damage", () => {
    writeFileSync(file(), '{"_id":"usr_a"}\n{"_id":"usr_b","wall');
    const torn = readNedbFile(file());
    expect("docs" in torn && [...torn.docs.keys()]).toEqual(["usr_a"]);
    writeFileSync(file(), '{"_id":"usr_a"}\n{"_id":"us\n{"_id":"usr_c"}\n');
    expect(readNedbFile(file())).toEqual({ damaged: "line 2 is not a document" });
    writeFileSync(file(), '{"name":"no id"}\n');
    expect(readNedbFile(file())).toEqual({ damaged: "line 1 has no _id" });
  });
});

describe("the persisted sandbox chain, inspected without loading it", () => {
  const state = (v: unknown) => writeFileSync(join(dir, SANDBOX_STATE_FILE), typeof v === "string" ? v : JSON.stringify(v));
  const good = {
    meta: { version: 1, usdtMinter: "0:m", foreignMinter: "0:f", createdAt: "2026-01-01T00:00:00.000Z" },
    snapshot: { lt: "5", contracts: [{}] },
  };

  test("absent, present with its genesis, damaged", () => {
    expect(inspectSandboxState(join(dir, "nothing"))).toEqual({ kind: "absent" });
    state(good);
    writeFileSync(join(dir, SANDBOX_TX_FILE), '{"lt":"1"}\n{"lt":"2"}\n');
    expect(inspectSandboxState(dir)).toEqual({ kind: "present", genesis: "2026-01-01T00:00:00.000Z" });
    writeFileSync(join(dir, SANDBOX_TX_FILE), '{"lt":"1"}\n{"lt\n{"lt":"3"}\n');
    expect(inspectSandboxState(dir)).toEqual({ kind: "damaged", why: `${SANDBOX_TX_FILE} line 2 is not a transaction` });
    rmSync(join(dir, SANDBOX_TX_FILE));
    expect(inspectSandboxState(dir)).toEqual({ kind: "damaged", why: `${SANDBOX_TX_FILE} is missing` });
    state(JSON.stringify(good).slice(0, 40));
    expect(inspectSandboxState(dir)).toMatchObject({ kind: "damaged", why: expect.stringMatching(/^sandbox-state\.json is not readable/) });
    state({ snapshot: { lt: "1", contracts: [] } });
    expect(inspectSandboxState(dir)).toEqual({ kind: "damaged", why: `${SANDBOX_STATE_FILE} lacks its chain meta or accounts` });
    rmSync(join(dir, SANDBOX_STATE_FILE));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", SANDBOX_TX_FILE), "");
    expect(inspectSandboxState(join(dir, "sub"))).toEqual({
      kind: "damaged",
      why: `${SANDBOX_STATE_FILE} is missing beside ${SANDBOX_TX_FILE}`,
    });
  });
});
