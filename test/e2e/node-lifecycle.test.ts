/**
 * The embedded server as `npm start` runs it (`node dist/server.js`, real process, real data dir):
 * a healthy start, restart and stop say nothing at WARN or above, and each service stops once;
 * secrets are created for an empty data dir only, and existing data without them refuses to start.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SERVICES } from "../../lib/config";
import { freePort } from "../support/redis";
import { ServerProcess } from "../support/server-process";
import { TestWallet } from "../support/wallet";

jest.setTimeout(120_000);

const stoppedLines = (out: string, name: string) => out.split("\n").filter((l) => l.includes(`Service '${name}' stopped.`)).length;

describe("embedded server process: start and stop", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-life-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function runOnce(): Promise<ServerProcess> {
    const port = await freePort();
    const srv = ServerProcess.start({ PORT: String(port), HOST: "127.0.0.1", DATA_DIR: join(dir, "data") });
    try {
      await srv.waitFor(`http://127.0.0.1:${port}/health`);
      // Work that touches the services the notifier and the chain poll (ledger, catalog).
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/events`)).status).toBe(200);
      const end = Date.now() + 20_000;
      while (!srv.output.includes("sandbox chain") && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    } finally {
      expect(await srv.stop()).toBe(0);
    }
    return srv;
  }

  test("first start on an empty data dir, then a restart on it: no warning, every service stopped once", async () => {
    for (const run of ["first start", "restart"]) {
      const srv = await runOnce();
      expect({ run, warnings: srv.warnings() }).toEqual({ run, warnings: [] });
      for (const name of ["$node", ...ALL_SERVICES])
        expect({ run, name, stopped: stoppedLines(srv.output, name) }).toEqual({ run, name, stopped: 1 });
      expect(srv.output).toContain("ServiceBroker is stopped. Good bye.");
    }
  });
});

describe("embedded server process: secrets over existing data", () => {
  const DOMAIN = "secrets.test";
  let dir: string;
  let dataDir: string;
  let saved: Record<string, string>;
  let token: string;
  let depositAddress: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-secrets-"));
    dataDir = join(dir, "data");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function started(env: Record<string, string> = {}): Promise<{ srv: ServerProcess; url: string }> {
    const port = await freePort();
    const srv = ServerProcess.start({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      APP_DOMAIN: DOMAIN,
      SEED_DEMO: "false",
      ...env,
    });
    const url = `http://127.0.0.1:${port}`;
    await srv.waitFor(`${url}/health`);
    return { srv, url };
  }

  /** A start that must be refused: its exit code and what it printed; nothing in the data dir changes. */
  async function refused(env: Record<string, string> = {}): Promise<string> {
    const before = listing(dataDir);
    const srv = ServerProcess.start({
      PORT: String(await freePort()),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      APP_DOMAIN: DOMAIN,
      SEED_DEMO: "false",
      ...env,
    });
    const code = await Promise.race([srv.exited, new Promise<"running">((r) => setTimeout(() => r("running"), 30_000))]);
    if (code === "running") {
      await srv.stop();
      throw new Error(`it started over data without its secrets:\n${srv.output}`);
    }
    expect(code).not.toBe(0);
    expect(listing(dataDir)).toEqual(before);
    return srv.output;
  }

  /** A start with these settings takes the data's keys: the first run's token and deposit address are valid. */
  async function expectSameKeys(env: Record<string, string> = {}) {
    const { srv, url } = await started(env);
    try {
      const dep = await fetch(`${url}/api/v1/deposit-address`, { headers: { authorization: `Bearer ${token}` } });
      expect(dep.status).toBe(200);
      expect((await json(dep)).address).toBe(depositAddress);
    } finally {
      expect(await srv.stop()).toBe(0);
    }
  }

  const listing = (d: string) => readdirSync(d).sort();
  const json = async (res: Response) => ((await res.json()) as { data: Record<string, string> }).data;

  test("the first start of an empty data dir creates its secrets (owner-only); a login and a deposit address are made", async () => {
    const { srv, url } = await started();
    try {
      const file = join(dataDir, "secrets.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      saved = JSON.parse(readFileSync(file, "utf8"));
      expect(Object.keys(saved).sort()).toEqual(expect.arrayContaining(["chainMasterSecret", "jwtSecret"]));
      const wallet = TestWallet.random();
      const login = await fetch(`${url}/api/v1/auth/connect`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(wallet.connectBody({ domain: DOMAIN })),
      });
      expect(login.status).toBe(200);
      token = (await json(login)).accessToken;
      const dep = await fetch(`${url}/api/v1/deposit-address`, { headers: { authorization: `Bearer ${token}` } });
      expect(dep.status).toBe(200);
      depositAddress = (await json(dep)).address;
    } finally {
      expect(await srv.stop()).toBe(0);
    }
    expect(listing(dataDir).length).toBeGreaterThan(1);
  });

  test("secrets.json missing over that data: the start is refused, names the data and says what to do", async () => {
    unlinkSync(join(dataDir, "secrets.json"));
    const out = await refused();
    expect(out).toContain(`Refusing to start: DATA_DIR ${dataDir} holds data of an earlier run`);
    expect(out).toContain(`${join(dataDir, "secrets.json")} is missing`);
    expect(out).toMatch(/Restore .*secrets\.json from a backup, or set JWT_SECRET and MASTER_SECRET/);
    expect(out).toMatch(/earlier run \(.*\bchain\b.*entries\)\)/);
    // A refusal, not a crash: the message alone, no stack trace.
    expect(out).not.toMatch(/\n\s+at /);
  });

  test("started with JWT_SECRET and MASTER_SECRET set to the data's values: the old token and deposit address are valid", async () => {
    await expectSameKeys({ JWT_SECRET: saved.jwtSecret, MASTER_SECRET: saved.chainMasterSecret });
    // Given by the environment, no key was written: at most the operator key the embedded default generates.
    const written = existsSync(join(dataDir, "secrets.json"))
      ? Object.keys(JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8")))
      : [];
    expect(written.filter((k) => k !== "adminKey")).toEqual([]);
  });

  test("a secrets file without the chain secret (the data was made with MASTER_SECRET) refuses a start without it", async () => {
    writeFileSync(join(dataDir, "secrets.json"), JSON.stringify({ jwtSecret: saved.jwtSecret }), { mode: 0o600 });
    const out = await refused();
    expect(out).toContain("has no chainMasterSecret");
    expect(out).toContain("set MASTER_SECRET");
    expect(out).not.toContain("set JWT_SECRET");
  });

  test("a damaged secrets file refuses the start", async () => {
    writeFileSync(join(dataDir, "secrets.json"), '{"jwtSecret": "ab', { mode: 0o600 });
    expect(await refused()).toMatch(/secrets\.json is damaged .*restore it from a backup/);
  });

  test("the file restored: the start takes the same keys (old token, same deposit address)", async () => {
    writeFileSync(join(dataDir, "secrets.json"), JSON.stringify(saved), { mode: 0o600 });
    await expectSameKeys();
  });
});
