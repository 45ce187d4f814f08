/**
 * The README's five-minute walkthrough, run as written: a fresh embedded server (demo catalog,
 * sandbox chain, the operator key the README uses), then every `trade` line of the README as its
 * own process, answering the questions the README answers and checking every `# expect:`. The
 * end state (a filled trade, a redemption) is checked through the SDK.
 */
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PmxClient, toMicro, type Session } from "../../client/src";
import { startServer, type TestServer } from "../support/server";
import { readWalkthrough, spawnCli, tempHome, type CliResult } from "../support/cli";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe("README five-minute walkthrough (CLI)", () => {
  const { steps, otherLines } = readWalkthrough();
  const serverLine = otherLines.find((l) => /\bnpm start\b/.test(l)) ?? "";
  const adminKey = /ADMIN_KEY=(\S+)/.exec(serverLine)?.[1] ?? "";
  let srv: TestServer;
  let home: ReturnType<typeof tempHome>;
  let url: string;

  beforeAll(async () => {
    // The README's defaults: the CLI signs for host:port of the URL it talks to, as `npm start` expects.
    const port = await freePort();
    url = `http://localhost:${port}`;
    srv = await startServer({ PORT: String(port), APP_DOMAIN: `localhost:${port}`, SEED_DEMO: "true", ADMIN_KEY: adminKey });
    home = tempHome();
  });
  afterAll(async () => {
    await srv?.stop();
    home?.remove();
  });

  test("the README starts the embedded server with an operator key and runs the CLI through the npm script", () => {
    expect(serverLine).toMatch(/^ADMIN_KEY=\S+ npm start$/);
    expect(otherLines).toContain('alias trade="npm run --silent trade --"');
    const pkg = JSON.parse(readFileSync(join(__dirname, "../../client/package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin.trade).toBe("bin/trade.js");
    expect(steps.length).toBeGreaterThanOrEqual(15);
    expect(steps.some((s) => s.answer === "y")).toBe(true);
    expect(steps.map((s) => s.argv[0])).toEqual(expect.arrayContaining(["wallet", "login", "faucet", "buy", "admin", "redeem", "withdraw", "watch"]));
  });

  test(
    "every step succeeds and prints what the README says, ending with a filled trade and a redemption",
    async () => {
      const results: Array<{ line: string; r: CliResult }> = [];
      for (const step of steps) {
        const r = await spawnCli(step.argv, { env: { HOME: home.dir, PMX_URL: url, PMX_HOME: join(home.dir, ".pmx"), ...step.env }, stdin: step.answer ? `${step.answer}\n` : "" });
        results.push({ line: step.line, r });
        if (process.env.WALKTHROUGH_DUMP) process.stdout.write(`$ ${step.line}\n${r.stdout}\n${r.stderr ? r.stderr + "\n" : ""}`);
        if (r.code !== 0) throw new Error(`"${step.line}" exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        for (const e of step.expect) if (!r.stdout.includes(e)) throw new Error(`"${step.line}" should print "${e}"; it printed:\n${r.stdout}`);
      }

      // The state the walkthrough promises, read back with the SDK on the CLI's own session.
      const sessions = JSON.parse(readFileSync(join(home.dir, ".pmx", "sessions.json"), "utf8")) as Record<string, Session>;
      const session = Object.values(sessions)[0];
      const c = new PmxClient({ baseUrl: url, session });
      const trades = (await c.portfolio.trades()).items;
      const buy = trades.find((t) => t.side === "BUY" && t.outcome === "YES");
      expect(buy).toMatchObject({ filledQuantity: toMicro(20), marketId: "mkt_demo_btc_year_end_1" });
      expect((await c.markets.get("mkt_demo_btc_year_end_1")).status).toBe("resolved");
      expect(await c.portfolio.positions()).toEqual([]);
      // 100 from the faucet - the 20 YES bought + 20 paid out - 50 withdrawn.
      const spent = BigInt(buy!.totalCost) + BigInt(buy!.fee);
      expect(BigInt((await c.portfolio.balance()).available)).toBe(BigInt(toMicro(100)) - spent + BigInt(toMicro(20)) - BigInt(toMicro(50)));
      expect(await c.orders.list()).toEqual([]);

      // Nothing secret on any screen.
      const wallet = JSON.parse(readFileSync(join(home.dir, ".pmx", "wallet.json"), "utf8")) as { secretKey: string; mnemonic: string[] };
      const screen = results.map(({ r }) => `${r.stdout}\n${r.stderr}`).join("\n");
      expect(screen).not.toContain(wallet.secretKey.slice(0, 64));
      expect(screen).not.toContain(wallet.mnemonic.slice(0, 2).join(" "));
      expect(screen).not.toContain(session.accessToken);
      expect(screen).not.toContain(adminKey);
    },
    240_000,
  );
});
