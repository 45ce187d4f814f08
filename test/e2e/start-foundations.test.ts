/**
 * What the exchange starts from besides the money store (users, markets, events, deposit addresses,
 * the sandbox chain, its master secret, the money store's head file), damaged while the exchange is
 * stopped: the next start is refused, exits non-zero and names the piece. Real server processes on
 * copies of one populated data dir.
 */
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { until } from "../support/until";
import { TestWallet } from "../support/wallet";

jest.setTimeout(180_000);

const DOMAIN = "foundations.exchange.test";
const ADMIN_KEY = "foundations-admin";
const SHARE = 1_000_000;

describe("a piece of the data dir damaged while stopped", () => {
  let dir: string;
  let env: Record<string, string>;
  const copies: string[] = [];
  const tokens: string[] = [];
  const userIds: string[] = [];
  let market = "";

  function copyOf(): string {
    const copy = mkdtempSync(join(tmpdir(), "pmx-foundation-"));
    copies.push(copy);
    cpSync(dir, copy, { recursive: true });
    rmSync(join(copy, "pmx.sock"), { force: true });
    return copy;
  }

  /** The refusal a start on `copy` gets (it must not start), with its exit code. */
  async function refusal(copy: string, extra: Record<string, string> = {}): Promise<string> {
    const started = await NodeProcess.start({ ...env, DATA_DIR: copy, ...extra }, { name: "damaged", readyTimeoutMs: 60_000 })
      .then(async (n) => {
        await n.stop("SIGKILL");
        return null;
      })
      .catch((e: Error) => e);
    expect(started).not.toBeNull();
    expect(started!.message).toMatch(/exited with 1 before ready/);
    return started!.message;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-foundations-"));
    env = embeddedEnv(dir, DOMAIN, ADMIN_KEY, { DEPOSIT_POLL_MS: "200", RATE_LIMIT_TRADE: "1000" });
    const node = await NodeProcess.start(env, { readyTimeoutMs: 60_000 });
    try {
      const created = await node.http("POST", "/api/v1/admin/events", {
        headers: { "x-admin-key": ADMIN_KEY },
        body: { title: "Foundations", category: "Tech", markets: [{ title: "Foundations?" }] },
      });
      market = created.body.data.markets[0].id as string;
      for (let i = 0; i < 2; i++) {
        const login = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
        tokens.push(login.body.data.accessToken as string);
        userIds.push(login.body.data.userId as string);
      }
      // The first user's money came in on the chain (a deposit address, a deposit), the second's by a ledger credit.
      expect((await node.http("GET", "/api/v1/deposit-address", { token: tokens[0] })).status).toBe(200);
      expect((await node.http("POST", "/api/v1/sandbox/faucet", { token: tokens[0], body: { amount: "50000000" } })).status).toBe(202);
      await until(
        "the deposit is credited",
        async () => {
          const b = await node.http("GET", "/api/v1/balance", { token: tokens[0] });
          return b.body.data.available === "50000000";
        },
        60_000,
      );
      await node.ctl({ cmd: "fund", userId: userIds[1], amount: 100 * SHARE });
      for (let i = 0; i < 2; i++) {
        const r = await node.http("POST", "/api/v1/orders", {
          token: tokens[i],
          body: { marketId: market, side: "BUY", outcome: i ? "NO" : "YES", orderType: "GTC", price: 0.3, quantity: 10 * SHARE },
        });
        expect(r.body.data.status).toBe("open");
      }
    } finally {
      await node.stop("SIGTERM");
    }
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const c of copies) rmSync(c, { recursive: true, force: true });
  });

  test("an untouched copy starts, twice (the fingerprints it records hold); its orders stay cancellable", async () => {
    const copy = copyOf();
    for (let i = 0; i < 2; i++) {
      const n = await NodeProcess.start({ ...env, DATA_DIR: copy }, { name: "healthy", readyTimeoutMs: 60_000 });
      try {
        expect((await n.ctl<{ ok: boolean }>({ cmd: "call", action: "ledger.verify" })).ok).toBe(true);
        expect((await n.http("GET", "/api/v1/balance", { token: tokens[0] })).body.data.total).toBe("50000000");
        if (i === 0) {
          const open = (await n.http("GET", "/api/v1/orders", { token: tokens[1] })).body.data;
          expect((await n.http("DELETE", `/api/v1/orders/${open[0].orderId}`, { token: tokens[1] })).status).toBe(200);
        }
      } finally {
        await n.stop("SIGTERM");
      }
    }
  });

  test("users.db deleted, emptied or garbled", async () => {
    let copy = copyOf();
    rmSync(join(copy, "users.db"));
    expect(await refusal(copy)).toMatch(/users\.db is missing from a data dir that has run/);
    copy = copyOf();
    writeFileSync(join(copy, "users.db"), "");
    expect(await refusal(copy)).toMatch(/users\.db lacks 2 user\(s\) the money store holds balances or orders for/);
    copy = copyOf();
    const lines = readFileSync(join(copy, "users.db"), "utf8").split("\n");
    lines[0] = lines[0].slice(0, 10);
    writeFileSync(join(copy, "users.db"), lines.join("\n"));
    expect(await refusal(copy)).toMatch(/users\.db is damaged \(line 1 is not a document\)/);
  });

  test("sessions.db, usedProofs.db or catalogMeta.db deleted", async () => {
    for (const name of ["sessions", "usedProofs", "catalogMeta"]) {
      const copy = copyOf();
      rmSync(join(copy, `${name}.db`));
      expect(await refusal(copy)).toMatch(new RegExp(`${name}\\.db is missing from a data dir that has run`));
    }
  });

  test("markets.db or events.db deleted or emptied", async () => {
    let copy = copyOf();
    rmSync(join(copy, "markets.db"));
    expect(await refusal(copy)).toMatch(/markets\.db is missing/);
    copy = copyOf();
    writeFileSync(join(copy, "markets.db"), "");
    expect(await refusal(copy)).toMatch(new RegExp(`markets\\.db lacks 1 market\\(s\\) .*\\(${market}\\)`));
    copy = copyOf();
    writeFileSync(join(copy, "events.db"), "");
    expect(await refusal(copy)).toMatch(/events\.db lacks 1 event\(s\) of markets with money in them/);
  });

  test("depositAddresses.db deleted or emptied", async () => {
    let copy = copyOf();
    rmSync(join(copy, "depositAddresses.db"));
    expect(await refusal(copy)).toMatch(/depositAddresses\.db is missing/);
    copy = copyOf();
    writeFileSync(join(copy, "depositAddresses.db"), "");
    expect(await refusal(copy)).toMatch(/depositAddresses\.db lacks the deposit address of 1 user\(s\) credited by on-chain deposits/);
  });

  test("the sandbox chain's state deleted or truncated", async () => {
    let copy = copyOf();
    rmSync(join(copy, "chain"), { recursive: true });
    expect(await refusal(copy)).toMatch(/sandbox chain state .*chain is missing while the money store holds money that came through it/);
    copy = copyOf();
    const state = join(copy, "chain", "sandbox-state.json");
    truncateSync(state, Math.floor(readFileSync(state).length / 2));
    expect(await refusal(copy)).toMatch(/sandbox chain state .*chain is damaged \(sandbox-state\.json is not readable/);
  });

  test("a different chain master secret: in the environment or in secrets.json", async () => {
    let copy = copyOf();
    expect(await refusal(copy, { MASTER_SECRET: randomBytes(32).toString("hex") })).toMatch(
      /the chain master secret is not the one this data was created with/,
    );
    copy = copyOf();
    const file = join(copy, "secrets.json");
    const secrets = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
    writeFileSync(file, JSON.stringify({ ...secrets, chainMasterSecret: randomBytes(32).toString("hex") }));
    expect(await refusal(copy)).toMatch(/the chain master secret is not the one this data was created with/);
  });

  test("after a SIGKILL with acknowledged orders, money.db-wal deleted together with money.head", async () => {
    const copy = copyOf();
    const n = await NodeProcess.start({ ...env, DATA_DIR: copy }, { name: "killed", readyTimeoutMs: 60_000 });
    try {
      for (let i = 0; i < 30; i++) {
        const r = await n.http("POST", "/api/v1/orders", {
          token: tokens[1],
          body: { marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.1, quantity: SHARE },
        });
        expect(r.status).toBe(200);
      }
    } finally {
      await n.stop("SIGKILL");
    }
    expect(existsSync(join(copy, "money.db-wal"))).toBe(true);
    rmSync(join(copy, "money.db-wal"));
    rmSync(join(copy, "money.db-shm"), { force: true });
    rmSync(join(copy, "money.head"));
    expect(await refusal(copy)).toMatch(/money\.head is missing beside a money store with \d+ committed entries/);
  });
});
