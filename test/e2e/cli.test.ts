/**
 * The `trade` CLI against a started server, in-process: wallet files, login, every trading and
 * portfolio command, confirmations, the live book, clear errors and exit codes, and no secret in
 * any output.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { PmxClient, randomKeyPair, walletAddress } from "../../client/src";
import { startChainServer, waitFor } from "../support/chain";
import { TEST_DOMAIN, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";
import { runCli, tempHome, type CliResult } from "../support/cli";

describe("trade CLI", () => {
  let srv: TestServer;
  let market: string;
  let home: ReturnType<typeof tempHome>;
  let env: Record<string, string>;
  const outputs: CliResult[] = [];

  const trade = async (
    line: string | string[],
    o: { answers?: string[]; stdin?: string; env?: Record<string, string>; interruptAfterMs?: number } = {},
  ) => {
    const argv = Array.isArray(line) ? line : line.split(" ").filter(Boolean);
    const r = await runCli(argv, {
      env: { ...env, ...(o.env ?? {}) },
      answers: o.answers,
      stdin: o.stdin,
      interruptAfterMs: o.interruptAfterMs,
    });
    outputs.push(r);
    return r;
  };
  const ok = async (line: string | string[], o: Parameters<typeof trade>[1] = {}) => {
    const r = await trade(line, o);
    if (r.code !== 0) throw new Error(`trade ${String(line)} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const json = async <T = Record<string, unknown>>(line: string): Promise<T> => JSON.parse((await ok(`${line} --json`)).stdout) as T;
  const walletFile = () =>
    JSON.parse(readFileSync(join(home.dir, "wallet.json"), "utf8")) as {
      secretKey: string;
      mnemonic?: string[];
      address: string;
      publicKey: string;
    };
  const session = () =>
    Object.values(JSON.parse(readFileSync(join(home.dir, "sessions.json"), "utf8")) as Record<string, { accessToken: string }>)[0];

  beforeAll(async () => {
    srv = await startChainServer({ ADMIN_KEY });
    market = await createMarket(srv, "Will the CLI trade?", String(1000 * SHARE));
    home = tempHome();
    env = { PMX_URL: srv.url, PMX_DOMAIN: TEST_DOMAIN, PMX_HOME: home.dir };
  });
  afterAll(async () => {
    await srv.stop();
    home.remove();
  });

  test("help, unknown commands and bad arguments: usage errors with exit code 2", async () => {
    const help = await ok("help");
    expect(help.stdout).toMatch(/trade buy <marketId> <YES\|NO> <shares>/);
    expect((await ok("buy --help")).stdout).toMatch(/^Usage: trade buy/);
    const unknown = await trade("frobnicate");
    expect([unknown.code, unknown.stderr]).toEqual([2, 'Usage error: unknown command "frobnicate"; see `trade help`']);
    expect((await trade("book")).stderr).toBe("Usage error: missing market id");
    expect((await trade(`book ${market} --outcome MAYBE`)).stderr).toMatch(/outcome must be YES or NO/);
  });

  test("before any wallet or login: clear messages", async () => {
    const login = await trade("login");
    expect([login.code, login.stderr]).toEqual([
      1,
      expect.stringMatching(/^no wallet key file at .*wallet\.json: run `trade wallet create`/),
    ]);
    const bal = await trade("balance");
    expect([bal.code, bal.stderr]).toEqual([1, "Not logged in: run `trade login`."]);
    const down = await trade("events", { env: { PMX_URL: "http://127.0.0.1:1" } });
    expect([down.code, down.stderr]).toEqual([1, expect.stringMatching(/^Cannot reach the exchange at http:\/\/127\.0\.0\.1:1: /)]);
  });

  test("wallet create: an owner-only key file, refuses to overwrite; show prints the address only", async () => {
    const created = await ok("wallet create");
    const w = walletFile();
    expect(created.stdout).toContain(`Created a v4r2 wallet ${w.address}`);
    expect(w.mnemonic).toHaveLength(24);
    expect(statSync(join(home.dir, "wallet.json")).mode & 0o777).toBe(0o600);
    expect(statSync(home.dir).mode & 0o077).toBe(0);
    const again = await trade("wallet create");
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/already exists .* pass --force/)]);
    expect((await ok("wallet show")).stdout).toContain(w.address);
    expect(await json("wallet show")).toEqual({
      address: w.address,
      publicKey: w.publicKey,
      walletVersion: "v4r2",
      file: join(home.dir, "wallet.json"),
    });
  });

  test("wallet import: 24 words or a hex key from stdin or a file give the standard wallet of that key", async () => {
    const other = tempHome();
    try {
      const words = await mnemonicNew(24);
      const kp = await mnemonicToPrivateKey(words);
      const r = await ok("wallet import --version v5r1", { stdin: words.join(" ") + "\n", env: { PMX_HOME: other.dir } });
      expect(r.stdout).toContain(walletAddress(kp.publicKey, { version: "v5r1" }).toRawString());
      const file = join(other.dir, "secret.txt");
      writeFileSync(file, Buffer.from(kp.secretKey).toString("hex"));
      const hex = await ok(["wallet", "import", "--file", file, "--force"], { env: { PMX_HOME: other.dir } });
      expect(hex.stdout).toContain(walletAddress(kp.publicKey).toRawString());
      const bad = await trade("wallet import", { stdin: "not a key", env: { PMX_HOME: other.dir } });
      expect([bad.code, bad.stderr]).toEqual([2, "Usage error: expected 24 mnemonic words, or a 32/64-byte secret key in hex"]);
      // No two of the words in their order (a lone word may be a common one: "file", "wall").
      for (const o of [r, hex]) for (let i = 1; i < words.length; i++) expect(o.stdout).not.toContain(`${words[i - 1]} ${words[i]}`);
    } finally {
      other.remove();
    }
  });

  test("login: a wrong domain is a clear 401; then the session is stored owner-only and used", async () => {
    const wrong = await trade("login --domain evil.example");
    expect([wrong.code, wrong.stderr]).toEqual([
      1,
      expect.stringMatching(/^Error 401 UNAUTHORIZED: proof was made for another domain; expected exchange\.test \(request req_/),
    ]);
    const login = await ok("login");
    expect(login.stdout).toMatch(/^Logged in as 0:[0-9a-f]{64} \(user usr_\w+\); session valid until \d{4}-/);
    expect(statSync(join(home.dir, "sessions.json")).mode & 0o777).toBe(0o600);
    const status = await ok("status");
    expect(status.stdout).toContain(`Exchange ${srv.url} (ok)`);
    expect(status.stdout).toContain(`Wallet   ${walletFile().address}`);
  });

  test("faucet and deposit: tokens minted on the sandbox chain and credited; other assets are not credited", async () => {
    const f = await ok("faucet 250");
    expect(f.stdout).toMatch(/^Sent 250\.00 USDT to 0Q\S+ \(tx [0-9a-f]{64}\)\nCredited: available 250\.00 USDT$/);
    const ton = await ok("faucet 0.5 --asset TON");
    expect(ton.stdout).toContain("TON is not credited to your balance");
    expect((await ok("deposit")).stdout).toMatch(/^Deposit address 0Q\S+\nUSDT jetton wallet \S+/);
    expect(await json("balance")).toEqual({ available: String(250 * SHARE), locked: "0", total: String(250 * SHARE) });
    expect((await ok("balance")).stdout).toContain("available  250.00");
  });

  test("catalog commands: events, search, event, market, book, history", async () => {
    const marketView = await json<{ eventId: string; conditionId: string }>(`market ${market}`);
    const events = await ok("events --category Culture");
    expect(events.stdout).toContain(marketView.eventId);
    // Volumes follow the one precision rule for USDT (2 to 6 decimals), like every amount printed.
    expect(events.stdout).toMatch(new RegExp(`${marketView.eventId}\\s+Culture\\s+\\S+\\s+0\\.00\\s`));
    expect((await ok("search CLI trade")).stdout).toContain(marketView.eventId);
    expect((await trade("search zzzqqq")).stdout).toBe('No event matches "zzzqqq".');
    const event = await ok(`event ${marketView.eventId}`);
    expect(event.stdout).toMatch(new RegExp(`${market}\\s+open\\s+0\\.50\\s+0\\.50`));
    expect((await ok(`market ${market}`)).stdout).toContain(`condition ${marketView.conditionId}`);
    expect((await ok(`book ${market}`)).stdout).toBe(`Order book ${market}, YES view\n(the book is empty)`);
    expect((await ok(`history ${market} --interval 1w`)).stdout).toMatch(/^YES 0\.5 .*\n\(no trades in this interval\)$/);
    const missing = await trade("event evt_nope");
    expect([missing.code, missing.stderr]).toEqual([
      1,
      expect.stringMatching(/^Error 404 RESOURCE_NOT_FOUND: Event not found \(request req_/),
    ]);
  });

  test("market buy: the quote first, then the question; no or no answer sends nothing; yes fills", async () => {
    const no = await trade(`buy ${market} YES 10`, { answers: ["n"] });
    expect(no.code).toBe(1);
    expect(no.stdout).toMatch(/^Quote: BUY 10 YES at about 0\.50\d* each via AMM: cost \d+\.\d+ USDT \+ fee \d+\.\d+ USDT$/);
    expect(no.prompts).toEqual(["Buy 10 YES at market? [y/N] "]);
    expect(no.stderr).toBe("Cancelled; nothing was sent.");
    const eof = await trade(`buy ${market} YES 10`);
    expect([eof.code, eof.stderr]).toEqual([1, "Not confirmed (no input); pass --yes to skip the question."]);
    expect((await json<unknown[]>("trades")).length).toBe(0);

    const yes = await ok(`buy ${market} YES 10`, { answers: ["y"] });
    expect(yes.stdout).toMatch(/\nFilled 10 YES at 0\.50\d* via AMM: cost \d+\.\d+ USDT, fee \d+\.\d+ USDT \(trade trd_\w+\)$/);
    const amm = await ok(`sell ${market} YES 4 --amm --yes`);
    expect(amm.stdout).toMatch(/^Quote: SELL 4 YES .* proceeds .*\nFilled 4 YES at .* via AMM: proceeds/);
    const q = await json<{ source: string }>(`quote ${market} buy NO 2`);
    expect(q.source).toBe("AMM");
    const positions = await ok("positions");
    expect(positions.stdout).toMatch(new RegExp(`${market}\\s+YES\\s+6\\s+0\\.5\\d*`));
  });

  test("limit orders: place, list, see in the book (both views), cancel one and all", async () => {
    const a = await ok(`buy ${market} NO 5 --limit 0.30`);
    expect(a.stdout).toMatch(/^Order ord_\w+ open: BUY 5 NO at 0\.30; 5 resting$/);
    await ok(`buy ${market} NO 3 --limit 0.25`);
    const orders = await json<Array<{ orderId: string }>>("orders");
    expect(orders).toHaveLength(2);
    expect((await ok(`book ${market} --outcome NO`)).stdout).toMatch(/\n\s+1\s+5\s+0\.30\s*\n\s+1\s+3\s+0\.25/);
    expect((await ok(`book ${market}`)).stdout).toMatch(/0\.70\s+5\s+1\n.*0\.75\s+3\s+1/);
    const one = await ok(`cancel ${orders[0].orderId}`);
    expect(one.stdout).toMatch(/^Cancelled ord_\w+: 3 shares unfilled, 0\.75 USDT released$/);
    const all = await ok(`cancel --all --market ${market}`);
    expect(all.stdout).toMatch(/^Cancelled 1 order \(ord_\w+\): 1\.50 USDT released$/);
    expect((await ok("orders")).stdout).toBe("No open orders.");
    expect((await ok("cancel --all")).stdout).toBe("No open orders to cancel.");
    const bad = await trade(`buy ${market} YES 1 --limit 0.555`);
    expect([bad.code, bad.stderr]).toEqual([1, 'Invalid input: price "0.555" is not on the 0.01 grid']);
    const fok = await trade(`buy ${market} YES 100 --limit 0.99 --fok`);
    expect([fok.code, fok.stderr]).toEqual([1, expect.stringMatching(/^Error 400 FOK_NOT_FILLED: /)]);
  });

  test("trader options: GTD (--expires), post-only, client ids, FAK, amend, idempotency keys, orders --closed, cancel --all, heartbeat, transfers", async () => {
    const gtd = await ok(`buy ${market} NO 2 --limit 0.20 --expires 1h --post-only --client-id cli-q1`);
    expect(gtd.stdout).toMatch(
      /^Order ord_\w+ open: BUY 2 NO at 0\.20; 2 resting \[GTD, post-only, expires \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z, client id cli-q1\]$/,
    );
    const [listed] = await json<Array<{ orderId: string; expiresAt: string; clientOrderId: string }>>("orders");
    expect(Date.parse(listed.expiresAt) - Date.now()).toBeGreaterThan(3_500_000);
    expect((await ok("orders")).stdout).toMatch(/client id\n.*\n.*\s+open\s+cli-q1$/);
    const dup = await trade(`buy ${market} NO 1 --limit 0.19 --client-id cli-q1`);
    expect([dup.code, dup.stderr]).toEqual([1, expect.stringMatching(/^Error 409 DUPLICATE_CLIENT_ORDER_ID: /)]);
    const iso = await ok(["buy", market, "NO", "1", "--limit", "0.18", "--expires", new Date(Date.now() + 600_000).toISOString()]);
    expect(iso.stdout).toMatch(/\[GTD, expires /);

    // Amend: a smaller rest keeps its place; a new price moves it.
    const down = await ok(`amend ${listed.orderId} --quantity 1`);
    expect(down.stdout).toMatch(
      new RegExp(
        `^Order ${listed.orderId} amended, open: BUY 1 NO at 0\\.20; 1 resting \\[GTD, post-only, expires .*, client id cli-q1\\]$`,
      ),
    );
    expect((await ok(`amend ${listed.orderId} --price 0.21`)).stdout).toMatch(/ open: BUY 1 NO at 0\.21; 1 resting /);
    const none = await trade(`amend ${listed.orderId}`);
    expect([none.code, none.stderr]).toEqual([2, "Usage error: give --price, --quantity or both"]);
    const gone = await trade("amend ord_nope --price 0.3");
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringMatching(/^Error 404 ORDER_NOT_FOUND: /)]);

    // Another trader's YES bid at 0.40 is a NO ask at 0.60.
    const other = new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN });
    await fund(srv.broker, (await other.auth.loginWithKeyPair(randomKeyPair())).userId, 100 * SHARE);
    await other.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.4, quantity: SHARE });
    const cross = await trade(`buy ${market} NO 1 --limit 0.60 --post-only`);
    expect([cross.code, cross.stderr]).toEqual([1, expect.stringMatching(/^Error 400 POST_ONLY_WOULD_CROSS: /)]);
    const fak = await ok(`buy ${market} NO 3 --limit 0.60 --fak`);
    expect(fak.stdout).toMatch(
      /^Order ord_\w+ cancelled: BUY 3 NO at 0\.60, filled 1 at 0\.60 \(cost 0\.60 USDT, fee [\d.]+ USDT\); 0 resting, 2 cancelled \[FAK\]$/,
    );
    for (const [line, err] of [
      [`buy ${market} NO 1 --limit 0.5 --fok --fak`, "Usage error: choose one order type: --fok or --fak"],
      [`buy ${market} NO 1 --fak`, "Usage error: --fak needs --limit PRICE"],
      [
        `buy ${market} NO 1 --limit 0.5 --expires soon`,
        'Usage error: --expires must be an ISO 8601 time or a delay such as 30s, 10m, 2h, 7d; got "soon"',
      ],
    ])
      expect(await trade(line)).toMatchObject({ code: 2, stderr: err });

    // The same idempotency key again answers the first answer and places nothing.
    const k1 = await ok(`buy ${market} NO 1 --limit 0.15 --idempotency-key cli-k1`);
    const k2 = await ok(`buy ${market} NO 1 --limit 0.15 --idempotency-key cli-k1`);
    expect(k2.stdout).toBe(`${k1.stdout} (replayed: the first answer to this idempotency key)`);
    expect(await json<unknown[]>("orders")).toHaveLength(3);

    const cancelled = await ok("cancel --all");
    expect(cancelled.stdout).toMatch(/^Cancelled 3 orders \(ord_\w+, ord_\w+, ord_\w+\): \d+\.\d+ USDT released$/);
    const closed = await ok("orders --closed --page-size 4");
    expect(closed.stdout).toMatch(/\s+cancelled \(user\)\s+cli-q1\n/);
    expect(closed.stdout).toMatch(/\nord_\w+\s+\S+\s+BUY\s+NO\s+FAK\s+0\.60\s+3\s+1\s+cancelled\s+-\n/);
    expect(closed.stdout).toMatch(/\npage 1, 4 of \d+ \(more with --page\)$/);
    expect((await json<Array<{ status: string }>>("orders --status all --page-size 2")).length).toBe(2);

    const armed = await ok("heartbeat 30");
    expect(armed.stdout).toMatch(
      /^Dead man's switch armed: unless another heartbeat comes by \d{4}-\S+Z, every open order is cancelled\.$/,
    );
    expect((await ok("heartbeat 0")).stdout).toBe("Dead man's switch disarmed.");
    const short = await trade("heartbeat 3");
    expect([short.code, short.stderr]).toEqual([1, expect.stringMatching(/^Error 400 VALIDATION_ERROR: .*\[timeoutSeconds: numberMin\]/)]);
    expect((await trade("heartbeat soon")).code).toBe(2);

    // Deposits: the faucet's USDT credited, its TON recorded and not credited.
    await waitFor("the TON deposit", async () => (await json<unknown[]>("transfers --type deposit")).length === 2);
    const deposits = await ok("transfers --type deposit");
    expect(deposits.stdout).toMatch(/\sdeposit\s+250\.00 USDT\s+credited\s/);
    expect(deposits.stdout).toMatch(/\sdeposit\s+0\.5 TON\s+not_credited \(native_coin\)\s/);
    expect(deposits.stdout).toMatch(/\npage 1, 2 of 2$/);
  });

  test("quotes: a set placed, replaced whole, refused whole, withdrawn", async () => {
    const first = await ok(`quotes ${market} buy:YES:0.05:1 buy:YES:0.04:1`);
    expect(first.stdout).toMatch(
      /^No previous quotes here\.\nOrder (ord_\w+) open: BUY 1 YES at 0\.05; 1 resting\nOrder (ord_\w+) open: BUY 1 YES at 0\.04; 1 resting$/,
    );
    const firstIds = [...first.stdout.matchAll(/Order (ord_\w+)/g)].map((m) => m[1]);
    const second = await ok(`quotes ${market} buy:yes:0.06:2 --post-only --idempotency-key cli-q`);
    expect(second.stdout).toMatch(
      new RegExp(
        `^Replaced 2 quotes \\(${firstIds.join(", ")}\\)\\.\\nOrder ord_\\w+ open: BUY 2 YES at 0\\.06; 2 resting \\[post-only\\]$`,
      ),
    );
    const again = await ok(`quotes ${market} buy:yes:0.06:2 --post-only --idempotency-key cli-q`);
    expect(again.stdout.split("\n")[0]).toMatch(/^Replaced 2 quotes .* \(replayed: the first answer to this idempotency key\)$/);
    const crossed = await trade(`quotes ${market} buy:YES:0.05:1 sell:YES:0.03:1`);
    expect([crossed.code, crossed.stderr]).toEqual([1, expect.stringMatching(/^Error 400 VALIDATION_ERROR: .*\[quotes: crossed\]/)]);
    for (const [line, err] of [
      [`quotes ${market}`, "Usage error: missing quotes (side:outcome:price:shares, e.g. buy:YES:0.45:10)"],
      [`quotes ${market} buy:YES:0.05`, 'Usage error: a quote is side:outcome:price:shares (e.g. buy:YES:0.45:10), got "buy:YES:0.05"'],
    ])
      expect(await trade(line)).toMatchObject({ code: 2, stderr: err });
    const set = await json<Array<{ orderId: string; quote: boolean }>>("orders");
    expect(set.map((o) => o.quote)).toEqual([true]);
    const withdrawn = await ok(`quotes cancel ${market}`);
    expect(withdrawn.stdout).toBe(`Withdrew 1 quote (${set[0].orderId}): 0.12 USDT released`);
    expect((await ok(`quotes cancel ${market}`)).stdout).toBe("No quotes to withdraw in this market.");
  });

  test("watch: the live book redrawn on every change until the asked number of updates", async () => {
    const c = new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN, session: session() as never });
    const watching = ok(`watch ${market} --updates 1`);
    // Place the order once the watcher has its snapshot (its first render).
    await new Promise((r) => setTimeout(r, 400));
    const o = await c.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.12, quantity: SHARE });
    const r = await watching;
    const frames = r.stdout.split("\n\n").filter(Boolean);
    expect(frames).toHaveLength(2);
    expect(frames[0]).toMatch(/^Order book .*, YES view, seq \d+/);
    expect(frames[1]).toMatch(/\n\s+1\s+1\s+0\.12\s*$/);
    await c.orders.cancel(o.orderId);
    const timed = await ok(`watch ${market} --seconds 1 --outcome NO`);
    expect(timed.stdout).toMatch(/^Order book .*, NO view, seq \d+/);
    const interrupted = await ok(`watch ${market}`, { interruptAfterMs: 500 });
    expect(interrupted.stdout).toMatch(/^Order book/);
    const missing = await trade("watch mkt_nope --seconds 2");
    expect([missing.code, missing.stderr]).toEqual([1, "Error: Market not found"]);
  });

  test("trades, one trade, withdraw with confirmation, notifications", async () => {
    const trades = await json<Array<{ id: string; venue: string; side: string }>>("trades --all");
    // The two market orders and the FAK's fill.
    expect(trades.map((t) => `${t.side} ${t.venue}`)).toEqual(["BUY CLOB", "SELL AMM", "BUY AMM"]);
    expect((await ok(`trades ${trades[1].id}`)).stdout).toMatch(
      /^Trade trd_\w+: SELL 4 YES at .* via AMM \(taker\)\ncost .*\nsettlement (pending|confirmed)/,
    );
    const cancelled = await trade("withdraw 5", { answers: ["no"] });
    expect([cancelled.code, cancelled.prompts[0]]).toEqual([
      1,
      expect.stringMatching(/^Withdraw 5\.00 USDT to your wallet 0:[0-9a-f]{64}\? \[y\/N\] $/),
    ]);
    const w = await ok("withdraw 5", { answers: ["yes"] });
    expect(w.stdout).toMatch(/^accepted: Withdrawal of 5\.00 USDT to 0:[0-9a-f]{64} sent \(tx [0-9a-f]{64}\)$/);
    expect((await ok("withdraw 5 --yes")).stdout).toMatch(/^duplicate: /);
    const withdrawals = await json<Array<{ type: string; amount: string; status: string }>>("transfers --type withdrawal");
    expect(withdrawals).toEqual([expect.objectContaining({ type: "withdrawal", amount: String(5 * SHARE) })]);
    expect((await ok("transfers --all")).stdout).toMatch(/\swithdrawal\s+5\.00 USDT\s+(pending|confirmed)\s/);
    const tooSmall = await trade("withdraw 0.5 --yes");
    expect([tooSmall.code, tooSmall.stderr]).toEqual([
      1,
      expect.stringMatching(/^Error 400 VALIDATION_ERROR: amount must be at least 1\.00 USDT \(1000000 micro-USDT\) .*\[amount: min\]/),
    ]);
    await srv.broker.call("notifier.catchUp");
    const n = await ok("notifications");
    expect(n.stdout).toMatch(/\*\s+\S+\s+TRADE_FILLED/);
    expect((await ok("notifications read --all")).stdout).toMatch(/^Marked \d+ read; 0 unread left\.$/);
    expect((await ok("notifications --unread")).stdout).toBe("No notifications.");
  });

  test("operator commands and redeem: needs the key; resolve then redeem pays the winning shares once", async () => {
    const noKey = await trade(`admin resolve ${market} YES`);
    expect([noKey.code, noKey.stderr]).toEqual([
      2,
      "Usage error: the operator commands need the operator key in ADMIN_KEY (or PMX_ADMIN_KEY)",
    ]);
    const wrongKey = await trade(`admin close ${market}`, { env: { ADMIN_KEY: "nope" } });
    expect([wrongKey.code, wrongKey.stderr]).toEqual([1, expect.stringMatching(/^Error 403 FORBIDDEN: Invalid operator key/)]);
    const created = await ok(
      [
        "admin",
        "create-event",
        "--title",
        "CLI operator event",
        "--category",
        "Tech",
        "--market",
        "First?",
        "--liquidity",
        "50",
        "--market",
        "Second?",
      ],
      { env: { ADMIN_KEY } },
    );
    expect(created.stdout).toMatch(/^Created event evt_\w+\nmarket\s+title\n-+\s+-+\nmkt_\w+\s+First\?\nmkt_\w+\s+Second\?$/);
    const early = await trade(`redeem ${market}`);
    expect([early.code, early.stderr]).toEqual([1, expect.stringMatching(/^Error 400 MARKET_NOT_RESOLVED: /)]);
    expect((await ok(`admin resolve ${market} YES`, { env: { ADMIN_KEY } })).stdout).toBe(`Market ${market} is now resolved (YES)`);
    const r = await ok(`redeem ${market}`);
    expect(r.stdout).toMatch(/^accepted: Redeemed 6 YES shares for 6\.00 USDT \(payout 6\.00 USDT\)$/);
    expect((await ok(`redeem ${market}`)).stdout).toMatch(/^duplicate: /);
  });

  test("races: event shows the outcomes and their chances; admin add-outcome and resolve-event, a second winner refused", async () => {
    const created = await srv.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: {
        title: "CLI race",
        category: "Sports",
        mutuallyExclusive: true,
        exhaustive: true,
        markets: [
          { title: "CLI race: Ada?", outcomeLabel: "Ada" },
          { title: "CLI race: Other?", outcomeLabel: "Other" },
        ],
      },
    });
    const id: string = created.body.data.id;
    const added = await ok(["admin", "add-outcome", id, "--label", "Bo", "--title", "CLI race: Bo?"], { env: { ADMIN_KEY } });
    expect(added.stdout).toMatch(/^Added outcome Bo as market mkt_\w+ \(open\)$/);
    const shown = await ok(`event ${id}`);
    expect(shown.stdout).toContain("Race: one winner among 3 outcomes (exactly one wins)");
    expect(shown.stdout).toMatch(/mkt_\w+\s+open\s+-\s+-\s+-\s+0\.00\s+Ada\n/);
    const [ada, , bo] = created.body.data.markets.map((m: { id: string }) => m.id).concat(added.stdout.match(/mkt_\w+/)![0]);
    const done = await ok(`admin resolve-event ${id} ${bo}`, { env: { ADMIN_KEY } });
    expect(done.stdout).toMatch(
      new RegExp(`^Resolved event ${id}\\n.*\\n.*\\n${ada}\\s+NO\\s+Ada\\n\\S+\\s+NO\\s+Other\\n${bo}\\s+YES\\s+Bo$`),
    );
    expect((await ok(`event ${id}`)).stdout).toMatch(new RegExp(`${bo}\\s+resolved YES\\s+-\\s+-\\s+100%`));
    const again = await trade(`admin resolve-event ${id} ${ada}`, { env: { ADMIN_KEY } });
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/^Error 409 EVENT_ALREADY_DECIDED: /)]);
  });

  test("convert: a race's NO of two outcomes becomes USDT and YES of the third, shown and confirmed first", async () => {
    const created = await srv.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: {
        title: "CLI convert race",
        category: "Sports",
        mutuallyExclusive: true,
        exhaustive: true,
        ammLiquidity: String(300 * SHARE),
        markets: [
          { title: "CLI convert: Ann?", outcomeLabel: "Ann" },
          { title: "CLI convert: Ben?", outcomeLabel: "Ben" },
          { title: "CLI convert: Cy?", outcomeLabel: "Cy" },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    const [ann, ben, cy] = created.body.data.markets.map((m: { id: string }) => m.id);
    await ok(`buy ${ann} NO 4 --yes`);
    await ok(`buy ${ben} NO 4 --yes`);
    const noOf = async (m: string) =>
      (await json<Array<{ marketId: string; outcome: string; quantity: string }>>("positions")).find(
        (p) => p.marketId === m && p.outcome === "NO",
      )?.quantity ?? "0";
    const [annBefore, benBefore] = [await noOf(ann), await noOf(ben)];
    expect(BigInt(annBefore)).toBeGreaterThanOrEqual(BigInt(4 * SHARE));
    const before = await json<{ available: string }>("balance");

    const no = await trade(`convert ${id} ${ann} ${ben} --quantity 3`, { answers: ["n"] });
    expect([no.code, no.prompts, no.stderr]).toEqual([
      1,
      ["Give up 3 NO of Ann, Ben for 3.00 USDT and 3 YES of Cy? [y/N] "],
      "Cancelled; nothing was sent.",
    ]);
    const done = await ok(`convert ${id} ${ann} ${ben} --quantity 3 --yes`);
    expect(done.stdout).toBe(`Converted 3 NO of Ann, Ben: credited 3.00 USDT\n+ 3 YES ${cy} Cy`);
    const after = await json<{ available: string }>("balance");
    expect(BigInt(after.available) - BigInt(before.available)).toBe(BigInt(3 * SHARE));
    expect([await noOf(ann), await noOf(ben)]).toEqual([
      String(BigInt(annBefore) - BigInt(3 * SHARE)),
      String(BigInt(benBefore) - BigInt(3 * SHARE)),
    ]);
    const yes = (await json<Array<{ marketId: string; outcome: string; quantity: string }>>("positions")).find(
      (p) => p.marketId === cy && p.outcome === "YES",
    );
    expect(yes?.quantity).toBe(String(3 * SHARE));

    // More than is held: the exchange's refusal, nothing changes; missing arguments are usage errors.
    const over = await trade(`convert ${id} ${ann} ${ben} --quantity 5 --yes`);
    expect([over.code, over.stderr]).toEqual([1, expect.stringMatching(/^Error 400 INSUFFICIENT_SHARES: /)]);
    expect((await json<{ available: string }>("balance")).available).toBe(after.available);
    expect((await trade(`convert ${id} --quantity 1`)).stderr).toBe(
      "Usage error: missing market ids: the outcomes whose NO shares you give up",
    );
    expect((await trade(`convert ${id} ${ann} ${ben}`)).stderr).toBe("Usage error: missing --quantity: NO shares of each named market");
  });

  test("logout ends the session on the server; later commands ask for a login", async () => {
    const token = session().accessToken;
    expect((await ok("logout")).stdout).toBe("Logged out.");
    expect((await trade("balance")).stderr).toBe("Not logged in: run `trade login`.");
    const c = new PmxClient({
      baseUrl: srv.url,
      session: { accessToken: token, expiresAt: Math.floor(Date.now() / 1000) + 86_000, userId: "", walletAddress: "" },
    });
    await expect(c.portfolio.balance()).rejects.toMatchObject({ status: 401 });
  });

  test("no output ever contained the key, the words, a token or the operator key", () => {
    const w = walletFile();
    const text = outputs.map((o) => `${o.stdout}\n${o.stderr}\n${o.prompts.join("\n")}`).join("\n");
    expect(text).not.toContain(w.secretKey);
    expect(text).not.toContain(w.secretKey.slice(0, 64));
    const words = w.mnemonic ?? [];
    for (let i = 0; i + 1 < words.length; i++) expect(text).not.toContain(`${words[i]} ${words[i + 1]}`);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/);
    expect(text).not.toContain(ADMIN_KEY);
  });
});

describe("trade --wait", () => {
  let srv: TestServer;
  let home: ReturnType<typeof tempHome>;
  beforeAll(async () => {
    srv = await startChainServer({ RATE_LIMIT_READ: "2", RATE_WINDOW_MS: "6000" });
    home = tempHome();
  });
  afterAll(async () => {
    await srv.stop();
    home.remove();
  });

  test("a 429 fails at once naming --wait; with --wait the command waits what Retry-After says and succeeds", async () => {
    const env = { PMX_URL: srv.url, PMX_HOME: home.dir };
    for (let i = 0; i < 2; i++) expect((await runCli(["events"], { env })).code).toBe(0);
    // The read budget spent from here (same address) with at least 3 s of it left, so a CLI process
    // starting next finds it spent however slowly processes start on a loaded machine.
    const spend = async () => {
      for (;;) {
        const r = await srv.http("GET", "/api/v1/events");
        if (r.status === 429 && Number(r.headers.get("retry-after")) >= 3) return;
        if (r.status === 429) await new Promise((res) => setTimeout(res, Number(r.headers.get("retry-after")) * 1000));
      }
    };
    await spend();
    const refused = await runCli(["events"], { env });
    expect([refused.code, refused.stderr]).toEqual([
      1,
      expect.stringMatching(/^Rate limited: .*; try again in [1-6] s, or pass --wait to wait it out/),
    ]);
    await spend();
    const waited = await runCli(["events", "--wait"], { env });
    expect(waited.code).toBe(0);
    expect(waited.stderr).toMatch(/^Rate limited; waiting [1-6] s as the exchange asks \(--wait\)\.\.\./);
    expect(waited.stdout).toMatch(/^event\s+category/);
  });
});
