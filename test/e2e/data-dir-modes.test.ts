/**
 * What the exchange writes to its data dir is its owner's only: after a start on a fresh data dir
 * with some activity (logins, a pool, a faucet deposit, orders, notifications) and a stop, every
 * file is 0600 and every dir 0700 (sockets without group or other bits), whatever the umask the
 * process was started with. A real server process on a real data dir.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { until } from "../support/until";
import { TestWallet } from "../support/wallet";

jest.setTimeout(240_000);

const DOMAIN = "modes.exchange.test";
const ADMIN_KEY = "modes-admin";
const SHARE = 1_000_000;

/** Every entry under `dir` (itself included) whose mode lets anyone but the owner in, or is not 0600/0700. */
function openEntries(dir: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    const mode = st.mode & 0o777;
    const ok = st.isDirectory() ? mode === 0o700 : st.isFile() ? mode === 0o600 : (mode & 0o077) === 0;
    if (!ok) out.push(`${path.slice(dir.length) || "/"} ${mode.toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return out;
}

describe("data dir file modes", () => {
  let root: string;
  let node: NodeProcess | null = null;
  let umask: number;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "pmx-modes-"));
    // A permissive umask, as a shell usually has: the modes must not depend on it.
    umask = process.umask(0o022);
  });
  afterAll(async () => {
    await node?.stop("SIGKILL").catch(() => undefined);
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  test("a fresh data dir after a start with activity and a stop: files 0600, dirs 0700", async () => {
    const dir = join(root, "data");
    node = await NodeProcess.start(embeddedEnv(dir, DOMAIN, ADMIN_KEY, { SETTLEMENT_INTERVAL_MS: "200", SETTLEMENT_MIN_AGE_MS: "0" }));
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Modes", category: "Tech", markets: [{ title: "Modes?", ammLiquidity: String(100 * SHARE) }] },
    });
    expect(created.status).toBe(201);
    const market = created.body.data.markets[0].id as string;
    const users: Array<{ accessToken: string; userId: string }> = [];
    for (let i = 0; i < 2; i++) {
      const login = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
      expect(login.status).toBe(200);
      users.push(login.body.data);
      await node.ctl({ cmd: "fund", userId: login.body.data.userId, amount: 100 * SHARE });
    }
    const faucet = await node.http("POST", "/api/v1/sandbox/faucet", { token: users[0].accessToken, body: { amount: String(5 * SHARE) } });
    expect(faucet.status).toBe(202);
    for (const [i, outcome] of (["YES", "NO"] as const).entries()) {
      const r = await node.http("POST", "/api/v1/orders", {
        token: users[i].accessToken,
        body: { marketId: market, side: "BUY", outcome, orderType: "GTC", price: 0.5, quantity: 2 * SHARE },
      });
      expect(r.status).toBe(200);
    }
    // The deposit is credited (the chain's files and a notification written).
    await until(
      "the faucet deposit credited",
      async () =>
        (await node!.http("GET", "/api/v1/transfers", { token: users[0].accessToken })).body.data.some(
          (t: { type: string; status: string }) => t.type === "deposit" && t.status === "credited",
        ),
      120_000,
    );
    const names = readdirSync(dir);
    expect(names).toEqual(expect.arrayContaining(["pmx.lock", "pmx.pid", "secrets.json"]));
    expect(names.some((n) => n.endsWith("-wal"))).toBe(true);
    expect(names.filter((n) => n.endsWith(".db")).length).toBeGreaterThan(2);
    expect(openEntries(dir)).toEqual([]);

    await node.stop("SIGTERM");
    node = null;
    expect(openEntries(dir)).toEqual([]);
  });
});
