/**
 * The operator console: `conservation` and `reconcile` print readable reports, a refused command
 * prints one line (code, message, fields) instead of a stack trace; checked on a started server
 * and through `npm run repl`'s real process driven over its standard input.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forRepl, REPL_COMMANDS, type ReplArgs } from "../../scripts/repl";
import { startChainServer } from "../support/chain";
import type { TestServer } from "../support/server";
import { ROOT } from "../support/cli";
import { ADMIN_KEY, createMarket, fund } from "../support/trading";
import { NodeProcess } from "../support/node-process";
import { TestWallet } from "../support/wallet";

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

  test("the commands are one list: the catalog's, the checks, trading for a user", () => {
    expect(REPL_COMMANDS.map((c) => c.command.split(" ")[0])).toEqual([
      "list-events",
      "show-event",
      "create-event",
      "close",
      "cancel",
      "resolve",
      "propose",
      "finalize",
      "add-outcome",
      "resolve-event",
      "propose-event",
      "trading-mode",
      "audit",
      "conservation",
      "reconcile",
      "verify",
      "place",
      "cancel-order",
    ]);
  });

  test("conservation: the equation with its terms in USDT", async () => {
    const report = await run("conservation");
    expect(report).toMatchObject({ ok: true });
    expect(out[0]).toBe("Ledger conservation: OK");
    expect(out.join("\n")).toMatch(/cash \(users and system accounts\)\s+12\.50 USDT/);
    expect(out.join("\n")).toMatch(/deposits credited\s+12\.50 USDT/);
    expect(out.join("\n")).toMatch(/disagree\s+none\n/);
    expect(out.join("\n")).toMatch(/not their quantity\s+none\n.*hold\s+none\n.*older lease\s+none$/s);
    expect(errors).toEqual([]);
  });

  test("reconcile: the ledger against the chain's wallets", async () => {
    const report = await run("reconcile");
    expect(report).toHaveProperty("ok");
    expect(out[0]).toMatch(/^Chain reconciliation: (OK|MISMATCH) /);
    expect(out.join("\n")).toMatch(/hot wallet holds\s+\d+\.\d{2,6} USDT/);
    expect(out.join("\n")).toMatch(/ledger conservation\s+OK/);
  });

  test("propose and finalize: a proposal with its window, then the operator's (amended) result", async () => {
    const id = await createMarket(srv, "Console proposal?");
    const proposed = await run("propose", { marketId: id, result: "yes", note: ["Rain", "measured"] });
    expect(proposed).toMatchObject({ status: "closed", resolution: { proposedResult: "YES", note: "Rain measured", disputed: false } });
    expect(await run("finalize", { marketId: id, result: "split" })).toMatchObject({ status: "resolved", result: "SPLIT" });
    expect(out.join("\n")).toMatch(/"result": "SPLIT"/);
    await run("finalize", { marketId: id, result: "NO" });
    expect(errors).toEqual([expect.stringMatching(/^Error NO_PROPOSAL: /)]);
  });

  test("races: create, show with chances, add an outcome, resolve as one step; a second winner prints the refusal", async () => {
    const race = {
      title: "Console race",
      category: "Sports",
      mutuallyExclusive: true,
      markets: [
        { title: "Console race: Ann?", outcomeLabel: "Ann" },
        { title: "Console race: Ben?", outcomeLabel: "Ben" },
      ],
    };
    const e = (await run("create-event", { json: JSON.stringify(race) })) as { id: string; markets: Array<{ id: string }> };
    const added = (await run("add-outcome", { eventId: e.id, outcomeLabel: "Cy", title: ["Console", "race:", "Cy?"] })) as { id: string };
    expect(added).toMatchObject({ outcomeLabel: "Cy", title: "Console race: Cy?", status: "open" });
    await run("show-event", { eventId: e.id });
    expect(out[0]).toBe(`${e.id}  Console race  (race)`);
    expect(out.slice(1).map((l) => l.trim().split(/\s+/).slice(1))).toEqual([
      ["Ann", "open", "-"],
      ["Ben", "open", "-"],
      ["Cy", "open", "-"],
    ]);
    const done = (await run("resolve-event", { eventId: e.id, winner: added.id })) as { markets: Array<{ result: string }> };
    expect(done.markets.map((m) => m.result)).toEqual(["NO", "NO", "YES"]);
    await run("resolve-event", { eventId: e.id, winner: e.markets[0].id });
    expect(errors).toEqual([expect.stringMatching(/^Error EVENT_ALREADY_DECIDED: /)]);
    await run("show-event", { eventId: e.id });
    expect(out.slice(1).map((l) => l.trim().split(/\s+/).slice(-2))).toEqual([
      ["resolved", "0%"],
      ["resolved", "0%"],
      ["resolved", "100%"],
    ]);
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

  test("trading-mode sets a market's or the exchange's mode; audit lists the console's and the API's operator actions, newest first, with the note", async () => {
    const created = await srv.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY, "x-admin-note": "via api" },
      body: { title: "Console modes", category: "Tech", markets: [{ title: "Console?" }] },
    });
    const marketId = created.body.data.markets[0].id as string;
    const set = (await run("trading-mode", {
      target: marketId,
      mode: "halted",
      reason: "console halt",
      options: { note: "ticket 9" },
    })) as {
      tradingMode: string;
    };
    expect(set.tradingMode).toBe("halted");
    expect(await run("trading-mode", { target: "all", mode: "normal" })).toMatchObject({ mode: "normal", reason: null });
    await run("audit");
    expect(errors).toEqual([]);
    expect(out[0]).toMatch(/#\d+ {2}repl:trading-mode {2}\{"target":"all","mode":"normal"\}$/);
    expect(out[1]).toMatch(new RegExp(`repl:trading-mode {2}.*"target":"${marketId}".*"reason":"console halt".*note: ticket 9$`));
    expect(out[2]).toMatch(/adminCreateEvent .*note: via api$/);
    expect(out[out.length - 1]).toMatch(/^-- page 1, \d+ of \d+$/);
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

test("npm run repl beside a running exchange joins it (no second exchange): an order it places and cancels shows in the REST API", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pmx-repl-attach-"));
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    DATA_DIR: join(dir, "data"),
    PORT: "0",
    HOST: "127.0.0.1",
    APP_DOMAIN: "repl.test",
    JWT_SECRET: randomBytes(32).toString("hex"),
    ADMIN_KEY: "repl-admin",
    LOG_LEVEL: "false",
    SEED_DEMO: "false",
  };
  const server = await NodeProcess.start(env);
  const marketId = await (async () => {
    const r = await server.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": "repl-admin" },
      body: { title: "REPL event", category: "Tech", markets: [{ title: "REPL market?" }] },
    });
    return r.body.data.markets[0].id as string;
  })();
  const login = await server.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: "repl.test" }) });
  const { accessToken: token, userId } = login.body.data as { accessToken: string; userId: string };
  await server.ctl({ cmd: "fund", userId, amount: 100_000_000 });

  const child = spawn(process.execPath, [join(ROOT, "dist/scripts/repl.js")], {
    cwd: dir,
    env: { ...env, LOG_LEVEL: "warn" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let text = "";
  child.stdout.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr.on("data", (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const until = async (re: RegExp, from: number): Promise<RegExpExecArray> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const m = re.exec(text.slice(from));
      if (m) return m;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${re} in:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await until(new RegExp(`Joined the exchange running on .* \\(process ${server.pid}\\)`), 0);
    await until(/mol \$/, 0);
    let at = text.length;
    child.stdin.write(`place ${userId} ${marketId} BUY YES 0.4 1000000\n`);
    const orderId = (await until(/Order (ord_\w+): open/, at))[1];
    const open = await server.http("GET", "/api/v1/orders", { token });
    expect(open.body.data.map((o: { orderId: string }) => o.orderId)).toEqual([orderId]);
    expect((await server.http("GET", "/api/v1/balance", { token })).body.data.locked).toBe("400000");

    at = text.length;
    child.stdin.write(`cancel-order ${userId} ${orderId}\n`);
    await until(new RegExp(`Order ${orderId} cancelled`), at);
    expect((await server.http("GET", "/api/v1/orders", { token })).body.data).toEqual([]);
    expect((await server.http("GET", "/api/v1/balance", { token })).body.data).toMatchObject({ available: "100000000", locked: "0" });
    child.stdin.write("quit\n");
    expect(await exited).toBe(0);
    // The exchange itself never stopped, and it is still the data dir's one owner.
    expect((await server.http("GET", "/health")).status).toBe(200);
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    await server.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
