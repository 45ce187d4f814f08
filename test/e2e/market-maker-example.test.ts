/**
 * The SDK's market-maker example (client/examples/market-maker.ts), compiled and run as a process
 * against a real server process: it quotes both sides with one mass quote, replaces the pair when
 * the book moves (the previous pair cancelled, never both standing), and withdraws on SIGINT.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keyPairFromSeed, PmxClient, randomKeyPair } from "../../client/src";
import { embeddedEnv, NodeProcess, ROOT } from "../support/node-process";
import { until } from "../support/until";

jest.setTimeout(180_000);

const DOMAIN = "maker-example.exchange.test";
const ADMIN_KEY = "maker-example-admin";
const SHARE = 1_000_000;
/** Under the repository, so the compiled example finds the SDK's dependencies in its node_modules. */
const OUT = join(ROOT, "dist", "examples-test");

describe("client/examples/market-maker.ts against a running exchange", () => {
  let dir: string;
  let node: NodeProcess;
  let maker: ChildProcess | null = null;

  beforeAll(async () => {
    execFileSync(
      process.execPath,
      [
        join(ROOT, "node_modules/typescript/bin/tsc"),
        ...["--outDir", OUT, "--rootDir", join(ROOT, "client"), "--strict", "--target", "ES2022", "--module", "commonjs"],
        ...["--moduleResolution", "node", "--esModuleInterop", "--skipLibCheck", "--types", "node"],
        join(ROOT, "client/examples/market-maker.ts"),
      ],
      { stdio: "inherit" },
    );
    dir = mkdtempSync(join(tmpdir(), "pmx-maker-example-"));
    node = await NodeProcess.start(embeddedEnv(dir, DOMAIN, ADMIN_KEY, { RATE_LIMIT_TRADE: "100000", RATE_LIMIT_READ: "100000" }));
  });
  afterAll(async () => {
    maker?.kill("SIGKILL");
    await node?.stop("SIGKILL").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    rmSync(OUT, { recursive: true, force: true });
  });

  test("quotes with POST /quotes, replaces the pair when the book moves, withdraws on SIGINT", async () => {
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Example maker", category: "Tech", markets: [{ title: "Will the example quote?" }] },
    });
    const market = created.body.data.markets[0].id as string;
    const seed = randomBytes(32);
    const mm = new PmxClient({ baseUrl: node.url });
    const { userId } = await mm.auth.loginWithKeyPair(keyPairFromSeed(seed));
    await node.ctl({ cmd: "fund", userId, amount: 100 * SHARE });

    let out = "";
    maker = spawn(process.execPath, [join(OUT, "examples/market-maker.js")], {
      env: { PATH: process.env.PATH ?? "", PMX_URL: node.url, PMX_MARKET: market, PMX_SEED: seed.toString("hex"), MM_SIZE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    maker.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    maker.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((res) => maker?.once("exit", (code) => res(code)));

    const quoteOrders = async () => (await mm.orders.list()).items.filter((o) => o.quote);
    // An empty book: the pair around 0.50 (bid 0.48, ask 0.52 as a NO bid at 0.48).
    const first = await until("the first pair", async () => {
      const o = await quoteOrders();
      return o.length === 2 ? o : null;
    });
    expect(first.map((o) => [o.side, o.outcome, o.price]).sort()).toEqual([
      ["BUY", "NO", "0.48"],
      ["BUY", "YES", "0.48"],
    ]);
    // Another trader bids 0.49 inside the spread: the fair price moves to 0.51 and the pair is replaced.
    const other = new PmxClient({ baseUrl: node.url });
    await node.ctl({ cmd: "fund", userId: (await other.auth.loginWithKeyPair(randomKeyPair())).userId, amount: 10 * SHARE });
    await other.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.49, quantity: SHARE });
    const second = await until("the pair replaced", async () => {
      const o = await quoteOrders();
      return o.length === 2 && o.every((q) => !first.some((f) => f.orderId === q.orderId)) ? o : null;
    });
    expect(second.map((o) => [o.outcome, o.price]).sort()).toEqual([
      ["NO", "0.47"],
      ["YES", "0.49"],
    ]);
    const closed = (await mm.orders.list({ status: "closed" })).items;
    expect(first.every((f) => closed.some((c) => c.orderId === f.orderId && c.status === "cancelled"))).toBe(true);

    maker.kill("SIGINT");
    expect(await exited).toBe(0);
    maker = null;
    expect(await quoteOrders()).toEqual([]);
    expect(out).toMatch(/quoted ord_\w+/);
    expect(out).toMatch(/stopping: withdrawing quotes/);
  });
});
