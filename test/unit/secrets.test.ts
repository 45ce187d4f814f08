/** Data-dir secrets (lib/secrets.ts): made for an empty dir only; the process-level refusal is in test/e2e/node-lifecycle.test.ts. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataDirSecrets, JWT_SECRET_SPEC, MASTER_SECRET_SPEC, persistentSecret } from "../../lib/secrets";
import { loadConfig } from "../../lib/config";

describe("data dir secrets", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-sec-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("an empty (or absent) data dir gets its secrets once; the next read returns the same", () => {
    const d = join(dir, "data");
    const first = dataDirSecrets(d, [JWT_SECRET_SPEC, MASTER_SECRET_SPEC]);
    expect(first.jwtSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(first.chainMasterSecret).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(d, "orders.db"), "");
    expect(dataDirSecrets(d, [JWT_SECRET_SPEC, MASTER_SECRET_SPEC])).toEqual(first);
    // No temporary file is left beside it.
    expect(readdirSync(d).sort()).toEqual(["orders.db", "secrets.json"]);
  });

  test("dotfiles do not count as data; anything else does, files or directories", () => {
    writeFileSync(join(dir, ".keep"), "");
    expect(dataDirSecrets(dir, [JWT_SECRET_SPEC]).jwtSecret).toBeDefined();
    const other = join(dir, "other");
    mkdirSync(join(other, "chain"), { recursive: true });
    expect(() => dataDirSecrets(other, [MASTER_SECRET_SPEC])).toThrow(/holds data of an earlier run \(chain\).*set MASTER_SECRET/);
    expect(readdirSync(other)).toEqual(["chain"]);
  });

  test("a secret protecting no data (e.g. an operator key) is added to an existing data dir", () => {
    dataDirSecrets(dir, [JWT_SECRET_SPEC]);
    writeFileSync(join(dir, "ledger-journal.log"), "x\n");
    const key = persistentSecret(dir, "adminKey", 16);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8"))).toEqual({ jwtSecret: expect.any(String), adminKey: key });
  });

  test("loadConfig asks for the chain secret only on a node that runs the chain, and for neither when the environment gives them", () => {
    writeFileSync(join(dir, "auth.db"), "");
    expect(() => loadConfig({ DATA_DIR: dir })).toThrow(/secrets\.json is missing.*set JWT_SECRET and MASTER_SECRET/);
    expect(() => loadConfig({ DATA_DIR: dir, SERVICES: "api,auth" })).toThrow(/set JWT_SECRET to/);
    expect(loadConfig({ DATA_DIR: dir, SERVICES: "api,auth", JWT_SECRET: "j".repeat(64) }).jwtSecret).toBe("j".repeat(64));
    const cfg = loadConfig({ DATA_DIR: dir, JWT_SECRET: "j".repeat(64), MASTER_SECRET: "ab".repeat(32) });
    expect(cfg.ton.masterSecret).toBe("ab".repeat(32));
    // Nothing of the data's keys was generated (the embedded default's operator key protects no data).
    const written = readdirSync(dir).includes("secrets.json")
      ? Object.keys(JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8")))
      : [];
    expect(written.filter((k) => k !== "adminKey")).toEqual([]);
  });
});
