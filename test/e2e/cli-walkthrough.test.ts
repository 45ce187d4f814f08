/**
 * The README's five-minute walkthrough, run as written: the server started by the README's first
 * command (`npm start`, a real process, on a port other than 3000, nothing else set but its data
 * dir), its banner read for the URL, the login domain and the operator key, then every line of
 * terminal 2 as its own process (each `trade` line through the CLI, each `export X=$(...)` through
 * the shell), answering the questions the README answers and checking every `# expect:`. The end
 * state (a filled trade, a redemption) is checked through the SDK.
 */
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PmxClient, toMicro, type Session } from "../../client/src";
import { readWalkthrough, ROOT, runProcess, spawnCli, tempHome, type CliResult } from "../support/cli";
import { startNpm, type Banner, type StartedNpm } from "../support/npm-start";

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

describe("README five-minute walkthrough (CLI), from `npm start` on a port other than 3000", () => {
  const { steps, otherLines } = readWalkthrough();
  const serverLine = otherLines.find((l) => /\bnpm start\b/.test(l)) ?? "";
  let server: StartedNpm | undefined;
  let banner: Banner;
  let dataDir: string;
  let port: number;
  let home: ReturnType<typeof tempHome>;

  beforeAll(async () => {
    do port = await freePort();
    while (port === 3000);
    dataDir = mkdtempSync(join(tmpdir(), "pmx-walkthrough-"));
    home = tempHome();
    // The README's first command. `npm install` already ran for this checkout (the suite's own
    // `npm install && npm test`); what follows it runs as written. Only the port (the point of the
    // test) and a scratch data dir differ from a first start in a fresh clone.
    server = await startNpm(serverLine.replace(/^npm install && /, ""), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: home.dir, PORT: String(port), DATA_DIR: dataDir },
    });
    banner = server.banner;
  }, 200_000);
  afterAll(async () => {
    await server?.stop();
    home?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("the README starts the server with its plain first command and runs the CLI through the npm script", () => {
    expect(serverLine).toBe("npm install && npm start");
    expect(otherLines).toContain('alias trade="npm run --silent trade --"');
    const pkg = JSON.parse(readFileSync(join(ROOT, "client/package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin.trade).toBe("bin/trade.js");
    expect(steps.filter((s) => !s.capture).length).toBeGreaterThanOrEqual(15);
    expect(steps.some((s) => s.answer === "y")).toBe(true);
    expect(steps.map((s) => s.argv[0])).toEqual(
      expect.arrayContaining(["wallet", "login", "faucet", "buy", "admin", "redeem", "withdraw", "watch"]),
    );
    expect(steps.filter((s) => s.capture).map((s) => s.capture)).toEqual([{ name: "ADMIN_KEY", command: "npm run --silent admin-key" }]);
  });

  test("the banner names the URL, the login domain (this port), the data dir, the chain and the operator tools, with the key generated once", () => {
    expect(banner.url).toBe(`http://localhost:${port}`);
    expect(banner.domain).toBe(`localhost:${port}`);
    const text = banner.lines.join("\n");
    expect(text).toContain(`data dir      ${dataDir}`);
    expect(text).toMatch(/chain\s+sandbox/);
    expect(text).toContain(`operator      API http://localhost:${port}/api/v1/admin with header X-Admin-Key`);
    expect(text).toContain("npm run --silent admin-key");
    expect(banner.operatorKey).toMatch(/^[0-9a-f]{32}$/);
  });

  test("every step succeeds and prints what the README says, ending with a filled trade and a redemption", async () => {
    const results: Array<{ line: string; r: CliResult }> = [];
    const exported: Record<string, string> = {};
    for (const step of steps) {
      if (step.capture) {
        const r = await runProcess("sh", ["-c", step.capture.command], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? "", HOME: home.dir, DATA_DIR: dataDir },
        });
        if (r.code !== 0) throw new Error(`"${step.line}" exited ${r.code}\n${r.stderr}`);
        exported[step.capture.name] = r.stdout;
        continue;
      }
      const r = await spawnCli(step.argv, {
        env: { HOME: home.dir, PMX_URL: banner.url, PMX_HOME: join(home.dir, ".pmx"), ...exported, ...step.env },
        stdin: step.answer ? `${step.answer}\n` : "",
      });
      results.push({ line: step.line, r });
      if (process.env.WALKTHROUGH_DUMP) process.stdout.write(`$ ${step.line}\n${r.stdout}\n${r.stderr ? r.stderr + "\n" : ""}`);
      if (r.code !== 0) throw new Error(`"${step.line}" exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      for (const e of step.expect)
        if (!r.stdout.includes(e)) throw new Error(`"${step.line}" should print "${e}"; it printed:\n${r.stdout}`);
    }
    // `npm run --silent admin-key` printed the key the first start generated and showed.
    expect(exported.ADMIN_KEY).toBe(banner.operatorKey);

    // The state the walkthrough promises, read back with the SDK on the CLI's own session.
    const sessions = JSON.parse(readFileSync(join(home.dir, ".pmx", "sessions.json"), "utf8")) as Record<string, Session>;
    const session = Object.values(sessions)[0];
    const c = new PmxClient({ baseUrl: banner.url, session });
    const trades = (await c.portfolio.trades()).items;
    const buy = trades.find((t) => t.side === "BUY" && t.outcome === "YES");
    expect(buy).toMatchObject({ filledQuantity: toMicro(20), marketId: "mkt_demo_btc_year_end_1" });
    expect((await c.markets.get("mkt_demo_btc_year_end_1")).status).toBe("resolved");
    expect(await c.portfolio.positions()).toEqual([]);
    // 100 from the faucet - the 20 YES bought + 20 paid out - 50 withdrawn.
    const spent = BigInt(buy!.totalCost) + BigInt(buy!.fee);
    expect(BigInt((await c.portfolio.balance()).available)).toBe(BigInt(toMicro(100)) - spent + BigInt(toMicro(20)) - BigInt(toMicro(50)));
    expect((await c.orders.list()).items).toEqual([]);

    // Nothing secret on any screen of terminal 2.
    const wallet = JSON.parse(readFileSync(join(home.dir, ".pmx", "wallet.json"), "utf8")) as { secretKey: string; mnemonic: string[] };
    const screen = results.map(({ r }) => `${r.stdout}\n${r.stderr}`).join("\n");
    expect(screen).not.toContain(wallet.secretKey.slice(0, 64));
    expect(screen).not.toContain(wallet.mnemonic.slice(0, 2).join(" "));
    expect(screen).not.toContain(session.accessToken);
    expect(screen).not.toContain(exported.ADMIN_KEY);
  }, 240_000);
});
