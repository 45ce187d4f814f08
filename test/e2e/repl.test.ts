/**
 * The operator console: `conservation` and `reconcile` print readable reports, a refused command
 * prints one line (code, message, fields) instead of a stack trace; checked on a started server
 * and through `npm run repl`'s real process driven over its standard input.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forRepl, REPL_COMMANDS, type ReplArgs } from "../../scripts/repl";
import { startChainServer } from "../support/chain";
import type { TestServer } from "../support/server";
import { ROOT } from "../support/cli";
import { createMarket, fund } from "../support/trading";

describe("REPL commands on a started server", () => {
  let srv: TestServer;
  let out: string[];
  let errors: string[];
  let log: jest.SpyInstance;
  const commands = () => forRepl(REPL_COMMANDS, (l) => errors.push(l));
  const run = async (name: string, args: Partial<ReplArgs> = {}) => {
    out = [];
    errors = [];
    const c = commands().find((x) => x.command.split(" ")[0] === name);
    if (!c) throw new Error(`no command ${name}`);
    return c.action(srv.broker, { options: {}, ...args });
  };

  beforeAll(async () => {
    srv = await startChainServer();
    const { userId } = await srv.login();
    await fund(srv.broker, userId, 12_500_000);
    log = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  });
  afterAll(async () => {
    log.mockRestore();
    await srv.stop();
  });

  test("the commands are one list: the catalog's, conservation and reconcile", () => {
    expect(REPL_COMMANDS.map((c) => c.command.split(" ")[0])).toEqual(["list-events", "create-event", "close", "cancel", "resolve", "conservation", "reconcile"]);
  });

  test("conservation: the equation with its terms in USDT", async () => {
    const report = await run("conservation");
    expect(report).toMatchObject({ ok: true });
    expect(out[0]).toBe("Ledger conservation: OK");
    expect(out.join("\n")).toMatch(/cash \(users and system accounts\)\s+12\.50 USDT/);
    expect(out.join("\n")).toMatch(/deposits credited\s+12\.50 USDT/);
    expect(out.join("\n")).toMatch(/disagree\s+none$/);
    expect(errors).toEqual([]);
  });

  test("reconcile: the ledger against the chain's wallets", async () => {
    const report = await run("reconcile");
    expect(report).toHaveProperty("ok");
    expect(out[0]).toMatch(/^Chain reconciliation: (OK|MISMATCH) /);
    expect(out.join("\n")).toMatch(/hot wallet holds\s+\d+\.\d{2,6} USDT/);
    expect(out.join("\n")).toMatch(/ledger conservation\s+OK/);
  });

  test("refusals print one line: code, message and the fields at fault", async () => {
    await run("resolve", { marketId: "mkt_nope", result: "YES" });
    expect(errors).toEqual(["Error RESOURCE_NOT_FOUND: Market not found"]);
    const id = await createMarket(srv, "Console refusals?");
    await run("resolve", { marketId: id, result: "MAYBE" });
    expect(errors).toEqual([expect.stringMatching(/^Error VALIDATION_ERROR: .* \[result: enumValue\]$/)]);
    await run("create-event", { json: "{oops" });
    expect(errors).toEqual([expect.stringMatching(/^Error <json> is not valid JSON/)]);
    expect(out).toEqual([]);
  });
});

test("npm run repl's process: readable reports and one-line errors, no stack trace", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pmx-repl-"));
  const child = spawn(process.execPath, [join(ROOT, "dist/scripts/repl.js")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, DATA_DIR: join(dir, "data"), PORT: "0", LOG_LEVEL: "warn", SEED_DEMO: "false" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let text = "";
  child.stdout.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr.on("data", (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const until = async (re: RegExp, from: number) => {
    const deadline = Date.now() + 60_000;
    while (!re.test(text.slice(from))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${re} in:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await until(/mol \$/, 0);
    let at = text.length;
    child.stdin.write("conservation\n");
    await until(/disagree\s+none/, at);
    expect(text.slice(at)).toContain("Ledger conservation: OK");
    at = text.length;
    child.stdin.write("resolve mkt_nope YES\n");
    await until(/Error RESOURCE_NOT_FOUND: Market not found\n/, at);
    child.stdin.write("quit\n");
    expect(await exited).toBe(0);
    expect(text).not.toMatch(/\n\s+at \S/);
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
