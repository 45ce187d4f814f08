/**
 * `trade`: a command-line trader built on the SDK. Keeps a wallet key file and the session under
 * ~/.pmx (PMX_HOME), talks to PMX_URL (default http://localhost:3000). Prints amounts in shares
 * and USDT, asks before market trades and withdrawals (skip with --yes), and never prints a
 * secret: not the key, not the mnemonic, not the token, not the operator key.
 */
import { createInterface } from "node:readline";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { readFileSync } from "node:fs";
import { newIdempotencyKey, PmxClient, type Replayable, type WriteOptions } from "./client";
import { ApiError, NetworkError, NotLoggedInError, RateLimitError } from "./errors";
import { formatUnits, parseUnits, priceToTick, tickToPriceNumber, toMicro, toMicroBigInt } from "./money";
import { keyPairFromMnemonic, keyPairFromSecretKey, newMnemonic, WALLET_VERSIONS, type KeyPair, type WalletVersion } from "./proof";
import {
  CATEGORIES,
  INDEX_SET,
  INTERVALS,
  type CancelledOrder,
  type Category,
  type FaucetAsset,
  type Interval,
  type Order,
  type OrderBook,
  type OrderType,
  type Outcome,
  type PlacedOrder,
  type Side,
  type TradeRequest,
  type Transfer,
} from "./models";
import { parseArgs, UsageError, type ParsedArgs } from "./terminal/args";
import { localTime, money, moneyUnits, orDash, shares, short, table, usdt } from "./terminal/format";
import { loadSession, loadWallet, saveSession, saveWallet, StoreError, walletFileFor } from "./terminal/store";
import type { BookState } from "./socket";

export interface CliIo {
  /** Standard output, one call per line (no trailing newline needed). */
  out(line: string): void;
  err(line: string): void;
  /** Ask one question; null when input ended (no terminal, nothing piped). */
  prompt(question: string): Promise<string | null>;
  /** All of standard input (wallet import). */
  readAll(): Promise<string>;
  env: Record<string, string | undefined>;
  isTTY: boolean;
  /** Resolves on Ctrl-C (watch). */
  interrupted(): { promise: Promise<void>; dispose(): void };
  /** Clear the screen before a redraw (watch on a terminal). */
  clear?(): void;
  fetch?: typeof fetch;
}

export const DEFAULT_URL = "http://localhost:3000";
const EXIT_OK = 0;
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;

const BOOLEAN_FLAGS = new Set([
  "yes",
  "json",
  "help",
  "force",
  "fok",
  "fak",
  "post-only",
  "amm",
  "all",
  "closed",
  "unread",
  "wait",
  "once",
]);

class Abort extends Error {}

interface Ctx {
  args: ParsedArgs;
  io: CliIo;
  url: string;
  domain: string | undefined;
  home: string;
  walletPath: string;
  sessionPath: string;
  json: boolean;
  client(): PmxClient;
}

interface Command {
  usage: string;
  summary: string;
  run(ctx: Ctx): Promise<void>;
}

// ---------- helpers ----------

function opt(ctx: Ctx, name: string): string | undefined {
  return ctx.args.options.get(name);
}

function flag(ctx: Ctx, name: string): boolean {
  const v = ctx.args.options.get(name);
  return v !== undefined && v !== "false";
}

function pos(ctx: Ctx, i: number, what: string): string {
  const v = ctx.args.positionals[i];
  if (v === undefined) throw new UsageError(`missing ${what}`);
  return v;
}

function outcomeOf(raw: string): Outcome {
  const o = raw.toUpperCase();
  if (o !== "YES" && o !== "NO") throw new UsageError(`outcome must be YES or NO, got "${raw}"`);
  return o;
}

function intOpt(ctx: Ctx, name: string): number | undefined {
  const v = opt(ctx, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

function print(ctx: Ctx, human: () => string | string[], data: unknown): void {
  if (ctx.json) return ctx.io.out(JSON.stringify(data, null, 2));
  const h = human();
  for (const line of (Array.isArray(h) ? h.join("\n") : h).split("\n")) ctx.io.out(line);
}

/** Quantities typed as shares ("10", "2.5") to micro-shares, in whole lots as the server wants. */
function sharesToMicro(raw: string): bigint {
  const q = toMicroBigInt(raw, "quantity");
  if (q <= 0n) throw new UsageError("quantity must be positive");
  if (q % 100n !== 0n) throw new UsageError("quantity must be a multiple of 0.0001 share");
  return q;
}

/** `--expires`: an ISO 8601 time, or a delay from now such as 30s, 10m, 2h, 7d. */
function expiresAt(raw: string, nowMs = Date.now()): string {
  const rel = /^(\d+)([smhd])$/.exec(raw);
  if (rel)
    return new Date(
      nowMs + Number(rel[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[rel[2] as "s" | "m" | "h" | "d"],
    ).toISOString();
  if (!Number.isFinite(Date.parse(raw)))
    throw new UsageError(`--expires must be an ISO 8601 time or a delay such as 30s, 10m, 2h, 7d; got "${raw}"`);
  return raw;
}

/**
 * The Idempotency-Key of a trade write: `--idempotency-key`, else a fresh one when `--wait` may
 * send the request again (so a retry after a lost answer never executes twice), else none.
 */
function writeOptions(ctx: Ctx): WriteOptions {
  const key = opt(ctx, "idempotency-key");
  if (key !== undefined) return { idempotencyKey: key };
  return flag(ctx, "wait") ? { idempotencyKey: newIdempotencyKey() } : {};
}

const replayedNote = (r: { replayed?: boolean }) => (r.replayed ? " (replayed: the first answer to this idempotency key)" : "");

/** One line for an order answer (placement or amend). */
function orderLine(o: Replayable<PlacedOrder>, verb = ""): string {
  const filled =
    BigInt(o.filledQuantity) > 0n
      ? `, filled ${shares(o.filledQuantity)} at ${o.avgPrice} (cost ${usdt(o.totalCost)}, fee ${usdt(o.fee)})`
      : "";
  const cancelled = BigInt(o.cancelledQuantity) > 0n ? `, ${shares(o.cancelledQuantity)} cancelled` : "";
  const extras = [
    o.orderType !== "GTC" && o.orderType !== "FOK" ? o.orderType : "",
    o.postOnly ? "post-only" : "",
    o.expiresAt ? `expires ${o.expiresAt}` : "",
    o.clientOrderId ? `client id ${o.clientOrderId}` : "",
  ].filter(Boolean);
  return `Order ${o.orderId}${verb} ${o.status}: ${o.side} ${shares(o.quantity)} ${o.outcome} at ${o.price}${filled}; ${shares(o.remainingQuantity)} resting${cancelled}${extras.length ? ` [${extras.join(", ")}]` : ""}${replayedNote(o)}`;
}

function orderStatusText(o: Order): string {
  return o.cancelReason ? `${o.status} (${o.cancelReason})` : o.status;
}

/** A transfer's amount in its own unit. */
function transferAmount(t: Transfer): string {
  if (t.asset === "USDT") return usdt(t.amount);
  if (t.asset === "TON") return `${formatUnits(BigInt(t.amount), 9)} TON`;
  return `${t.amount} units${t.asset ? ` of ${t.asset}` : ""}`;
}

async function confirm(ctx: Ctx, question: string): Promise<void> {
  if (flag(ctx, "yes")) return;
  const answer = await ctx.io.prompt(`${question} [y/N] `);
  if (answer === null) throw new Abort("Not confirmed (no input); pass --yes to skip the question.");
  if (!/^y(es)?$/i.test(answer.trim())) throw new Abort("Cancelled; nothing was sent.");
}

function needLogin(ctx: Ctx): PmxClient {
  const c = ctx.client();
  if (!c.session) throw new NotLoggedInError("Not logged in: run `trade login`.");
  return c;
}

function bookTable(book: OrderBook): string {
  const n = Math.max(book.bids.length, book.asks.length);
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) {
    const b = book.bids[i];
    const a = book.asks[i];
    rows.push([
      b ? String(b.numOrders) : "",
      b ? shares(b.quantity) : "",
      b ? b.price : "",
      a ? a.price : "",
      a ? shares(a.quantity) : "",
      a ? String(a.numOrders) : "",
    ]);
  }
  if (!rows.length) return "(the book is empty)";
  return table(["orders", "bid shares", "bid", "ask", "ask shares", "orders"], rows, new Set([0, 1, 2, 4, 5]));
}

// ---------- commands ----------

const COMMANDS: Record<string, Command> = {
  help: {
    usage: "help [command]",
    summary: "this help",
    async run(ctx) {
      const name = ctx.args.positionals[0];
      if (name && COMMANDS[name]) {
        ctx.io.out(`Usage: trade ${COMMANDS[name].usage}`);
        ctx.io.out(COMMANDS[name].summary);
        return;
      }
      ctx.io.out("Usage: trade <command> [options]");
      ctx.io.out("");
      for (const c of Object.values(COMMANDS)) {
        ctx.io.out(`  trade ${c.usage}`);
        ctx.io.out(`      ${c.summary}`);
      }
      ctx.io.out("");
      ctx.io.out("Global options: --url URL (PMX_URL, default http://localhost:3000), --domain D (PMX_DOMAIN, the");
      ctx.io.out("login domain; default: the one the exchange names), --home DIR (PMX_HOME, default ~/.pmx),");
      ctx.io.out("--wallet FILE (PMX_WALLET), --json (machine-readable output), --yes (answer yes to questions),");
      ctx.io.out("--wait (when rate limited, wait the time the exchange asks and try again instead of failing; trade writes");
      ctx.io.out("then carry an idempotency key, so one that lost its answer or met a 503 is sent again and still executes once),");
      ctx.io.out("--idempotency-key K on buy, sell, withdraw and redeem (the same K again answers the first answer, executing nothing).");
      ctx.io.out('Amounts are in shares and USDT ("12.5"), prices are decimals ("0.55"); USDT is shown with 2 to 6');
      ctx.io.out("decimals, exact. Your wallet is shown in raw form (0:<hex>), as the exchange names it.");
    },
  },

  wallet: {
    usage: "wallet create|import|show [--version v4r2|v5r1] [--force] [--file PATH]",
    summary: "create a new key (24-word TON mnemonic), import one (mnemonic or 64-hex secret from stdin or --file), or show the address",
    async run(ctx) {
      const sub = ctx.args.positionals[0] ?? "show";
      const version = (opt(ctx, "version") ?? "v4r2") as WalletVersion;
      if (!WALLET_VERSIONS.includes(version)) throw new UsageError(`--version must be one of ${WALLET_VERSIONS.join(", ")}`);
      if (sub === "create") {
        const { words, keyPair } = await newMnemonic();
        const w = walletFileFor(keyPair, { walletVersion: version, mnemonic: words });
        saveWallet(ctx.walletPath, w, flag(ctx, "force"));
        print(
          ctx,
          () => [
            `Created a ${version} wallet ${w.address}`,
            `Key file: ${ctx.walletPath} (owner-only; its 24 words restore the wallet in any TON wallet app)`,
          ],
          { address: w.address, publicKey: w.publicKey, walletVersion: version, file: ctx.walletPath },
        );
        return;
      }
      if (sub === "import") {
        const file = opt(ctx, "file");
        let text: string;
        if (file) text = readFileSync(resolve(file), "utf8");
        else if (ctx.io.isTTY) text = (await ctx.io.prompt("Paste the 24 words or the 64-byte secret key (hex): ")) ?? "";
        else text = await ctx.io.readAll();
        const input = text.trim();
        let keyPair: KeyPair;
        let mnemonic: string[] | undefined;
        if (/^(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{128})$/.test(input)) keyPair = keyPairFromSecretKey(Buffer.from(input, "hex"));
        else {
          mnemonic = input.split(/\s+/).filter(Boolean);
          if (mnemonic.length !== 24) throw new UsageError("expected 24 mnemonic words, or a 32/64-byte secret key in hex");
          keyPair = await keyPairFromMnemonic(mnemonic);
        }
        const w = walletFileFor(keyPair, { walletVersion: version, mnemonic });
        saveWallet(ctx.walletPath, w, flag(ctx, "force"));
        print(ctx, () => [`Imported a ${version} wallet ${w.address}`, `Key file: ${ctx.walletPath}`], {
          address: w.address,
          publicKey: w.publicKey,
          walletVersion: version,
          file: ctx.walletPath,
        });
        return;
      }
      if (sub === "show") {
        const { file: w } = loadWallet(ctx.walletPath);
        print(ctx, () => [`Wallet ${w.address} (${w.walletVersion})`, `Public key ${w.publicKey}`, `Key file ${ctx.walletPath}`], {
          address: w.address,
          publicKey: w.publicKey,
          walletVersion: w.walletVersion,
          file: ctx.walletPath,
        });
        return;
      }
      throw new UsageError(`unknown wallet command "${sub}"`);
    },
  },

  login: {
    usage: "login [--domain D]",
    summary: "sign in with the wallet key file (a ton_proof signed locally; no transaction, no fee)",
    async run(ctx) {
      const { file: w, keyPair } = loadWallet(ctx.walletPath);
      const c = ctx.client();
      const s = await c.auth.loginWithKeyPair(keyPair, {
        wallet: { version: w.walletVersion, workchain: w.workchain, testnet: w.testnet },
      });
      print(ctx, () => `Logged in as ${s.walletAddress} (user ${s.userId}); session valid until ${localTime(s.expiresAt)}`, {
        userId: s.userId,
        walletAddress: s.walletAddress,
        expiresAt: s.expiresAt,
      });
    },
  },

  logout: {
    usage: "logout",
    summary: "end the session on the server and forget it",
    async run(ctx) {
      const c = ctx.client();
      if (c.session) await c.auth.logout();
      else saveSession(ctx.sessionPath, c.origin, null);
      print(ctx, () => "Logged out.", { loggedOut: true });
    },
  },

  status: {
    usage: "status",
    summary: "exchange URL, wallet and session (never the token)",
    async run(ctx) {
      const c = ctx.client();
      const health = await c.health().then(
        (h) => h.status,
        (e: unknown) => `unreachable (${(e as Error).message})`,
      );
      let wallet = "none";
      try {
        wallet = loadWallet(ctx.walletPath).file.address;
      } catch {
        /* no key file yet */
      }
      const s = c.session;
      print(
        ctx,
        () => [
          `Exchange ${c.origin} (${health})`,
          `Wallet   ${wallet}`,
          `Session  ${s ? `${s.walletAddress}, valid until ${localTime(s.expiresAt)}` : "not logged in"}`,
        ],
        { url: c.origin, health, wallet, session: s ? { userId: s.userId, walletAddress: s.walletAddress, expiresAt: s.expiresAt } : null },
      );
    },
  },

  balance: {
    usage: "balance",
    summary: "available, locked and total USDT",
    async run(ctx) {
      const b = await needLogin(ctx).portfolio.balance();
      print(
        ctx,
        () =>
          table(
            ["", "USDT"],
            [
              ["available", money(b.available)],
              ["locked", money(b.locked)],
              ["total", money(b.total)],
            ],
            new Set([1]),
          ),
        b,
      );
    },
  },

  positions: {
    usage: "positions",
    summary: "open positions with mark price and unrealized PnL",
    async run(ctx) {
      const ps = await needLogin(ctx).portfolio.positions();
      print(
        ctx,
        () =>
          ps.length
            ? table(
                ["market", "outcome", "shares", "avg entry", "mark", "unrealized", "title"],
                ps.map((p) => [
                  p.marketId,
                  p.outcome,
                  shares(p.quantity),
                  p.avgEntryPrice,
                  orDash(p.markPrice),
                  p.unrealizedPnl === null ? "-" : money(p.unrealizedPnl),
                  orDash(p.market.title),
                ]),
                new Set([2, 3, 4, 5]),
              )
            : "No open positions.",
        ps,
      );
    },
  },

  events: {
    usage: "events [--category C] [--search TEXT] [--page N] [--page-size N]",
    summary: "list events (soonest first)",
    async run(ctx) {
      const category = opt(ctx, "category");
      if (category && category !== "all" && !CATEGORIES.includes(category as Category))
        throw new UsageError(`--category must be one of ${CATEGORIES.join(", ")} or all`);
      const page = await ctx.client().events.list({
        category: category as Category | undefined,
        search: opt(ctx, "search"),
        page: intOpt(ctx, "page"),
        pageSize: intOpt(ctx, "page-size"),
      });
      print(
        ctx,
        () => [
          table(
            ["event", "category", "begins", "live", "volume USDT", "title"],
            page.items.map((e) => [e.id, e.category, e.beginAt.slice(0, 10), e.isLive ? "live" : "", moneyUnits(e.volumeUsd), e.title]),
            new Set([4]),
          ),
          `page ${page.pagination.page}, ${page.items.length} of ${page.pagination.total}${page.pagination.hasNext ? " (more with --page)" : ""}`,
        ],
        page,
      );
    },
  },

  search: {
    usage: "search <words...>",
    summary: "search events, best match first",
    async run(ctx) {
      const q = ctx.args.positionals.join(" ").trim();
      if (!q) throw new UsageError("missing search words");
      const page = await ctx.client().events.search({ q, page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") });
      print(
        ctx,
        () =>
          page.items.length
            ? table(
                ["event", "category", "begins", "title"],
                page.items.map((e) => [e.id, e.category, e.beginAt.slice(0, 10), e.title]),
              )
            : `No event matches "${q}".`,
        page,
      );
    },
  },

  event: {
    usage: "event <eventId>",
    summary: "one event and its markets with live prices",
    async run(ctx) {
      const e = await ctx.client().events.get(pos(ctx, 0, "event id"));
      print(
        ctx,
        () => [
          `${e.title} — ${e.subtitle}`,
          `${e.category}/${e.subcategory}, begins ${e.beginAt}${e.isLive ? ", live" : ""}, volume ${moneyUnits(e.volumeUsd)} USDT`,
          "",
          table(
            ["market", "status", "buy YES", "buy NO", "volume USDT", "title"],
            e.markets.map((m) => [
              m.id,
              m.result ? `${m.status} ${m.result}` : m.status,
              orDash(m.buyYesPrice),
              orDash(m.buyNoPrice),
              moneyUnits(m.volume),
              m.title,
            ]),
            new Set([2, 3, 4]),
          ),
        ],
        e,
      );
    },
  },

  market: {
    usage: "market <marketId>",
    summary: "one market: status, live prices, condition id",
    async run(ctx) {
      const m = await ctx.client().markets.get(pos(ctx, 0, "market id"));
      print(
        ctx,
        () => [
          `${m.title} (${m.id})`,
          `status ${m.status}${m.result ? `, result ${m.result}` : ""}, volume ${moneyUnits(m.volume)} USDT`,
          `YES buy ${orDash(m.buyYesPrice)} / sell ${orDash(m.sellYesPrice)}    NO buy ${orDash(m.buyNoPrice)} / sell ${orDash(m.sellNoPrice)}`,
          `condition ${m.conditionId}`,
        ],
        m,
      );
    },
  },

  book: {
    usage: "book <marketId> [--outcome YES|NO]",
    summary: "the order book (top 10 levels) as a table",
    async run(ctx) {
      const id = pos(ctx, 0, "market id");
      const outcome = outcomeOf(opt(ctx, "outcome") ?? "YES");
      const b = await ctx.client().markets.orderbook(id, outcome);
      print(ctx, () => [`Order book ${id}, ${outcome} view`, bookTable(b)], b);
    },
  },

  history: {
    usage: "history <marketId> [--outcome YES|NO] [--interval 1H|1D|1W|1M|MAX]",
    summary: "price history candles",
    async run(ctx) {
      const id = pos(ctx, 0, "market id");
      const interval = (opt(ctx, "interval") ?? "1D").toUpperCase() as Interval;
      if (!INTERVALS.includes(interval)) throw new UsageError(`--interval must be one of ${INTERVALS.join(", ")}`);
      const h = await ctx.client().markets.priceHistory(id, { outcome: outcomeOf(opt(ctx, "outcome") ?? "YES"), interval });
      print(
        ctx,
        () => [
          `${h.outcome} ${h.currentPrice} (${h.priceChange >= 0 ? "+" : ""}${h.priceChange}, ${h.priceChangePercent}%), 24h volume ${moneyUnits(h.volume24h)} USDT`,
          h.candles.length
            ? table(
                ["time", "open", "high", "low", "close", "volume USDT"],
                h.candles.map((c) => [c.timestamp, String(c.open), String(c.high), String(c.low), String(c.close), moneyUnits(c.volume)]),
                new Set([1, 2, 3, 4, 5]),
              )
            : "(no trades in this interval)",
        ],
        h,
      );
    },
  },

  quote: {
    usage: "quote <marketId> <buy|sell> <YES|NO> <shares>",
    summary: "what a market order would cost now",
    async run(ctx) {
      const [id, side, outcome, q] = [
        pos(ctx, 0, "market id"),
        sideOf(pos(ctx, 1, "side")),
        outcomeOf(pos(ctx, 2, "outcome")),
        sharesToMicro(pos(ctx, 3, "shares")),
      ];
      const quote = await needLogin(ctx).markets.quote(id, { side, outcome, quantity: q.toString() });
      print(ctx, () => quoteLine(side, outcome, q, quote), quote);
    },
  },

  buy: tradeCommand("BUY"),
  sell: tradeCommand("SELL"),

  orders: {
    usage: "orders [--market M] [--closed | --status open|closed|all] [--client-id ID] [--page N] [--page-size N]",
    summary: "your open orders (all of them); --closed: one page of filled, cancelled and expired ones, newest first",
    async run(ctx) {
      const c = needLogin(ctx);
      const status = flag(ctx, "closed") ? "closed" : (opt(ctx, "status") ?? "open");
      if (status !== "open" && status !== "closed" && status !== "all") throw new UsageError("--status must be open, closed or all");
      const filter = { marketId: opt(ctx, "market"), clientOrderId: opt(ctx, "client-id") };
      const paged = status !== "open" || intOpt(ctx, "page") !== undefined;
      const page = paged ? await c.orders.list({ ...filter, status, page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") }) : null;
      const os = page ? page.items : await c.orders.open(filter);
      const withIds = os.some((o) => o.clientOrderId);
      print(
        ctx,
        () =>
          os.length
            ? [
                table(
                  ["order", "market", "side", "outcome", "type", "price", "shares", "filled", "status", ...(withIds ? ["client id"] : [])],
                  os.map((o) => [
                    o.orderId,
                    o.marketId,
                    o.side,
                    o.outcome,
                    o.orderType,
                    o.price,
                    shares(o.quantity),
                    shares(o.filledQuantity),
                    orderStatusText(o),
                    ...(withIds ? [orDash(o.clientOrderId)] : []),
                  ]),
                  new Set([5, 6, 7]),
                ),
                ...(page
                  ? [
                      `page ${page.pagination.page}, ${os.length} of ${page.pagination.total}${page.pagination.hasNext ? " (more with --page)" : ""}`,
                    ]
                  : []),
              ]
            : status === "open"
              ? "No open orders."
              : status === "closed"
                ? "No closed orders."
                : "No orders.",
        os,
      );
    },
  },

  cancel: {
    usage: "cancel <orderId...> | cancel --all [--market M]",
    summary: "cancel open orders (--all: every one, or one market's, in one request); locked USDT or shares come back",
    async run(ctx) {
      const c = needLogin(ctx);
      if (flag(ctx, "all")) {
        const r = await c.orders.cancelAll({ marketId: opt(ctx, "market") });
        print(
          ctx,
          () =>
            r.cancelled.length
              ? `Cancelled ${r.cancelled.length} order${r.cancelled.length === 1 ? "" : "s"} (${r.cancelled.join(", ")}): ${usdt(r.releasedAmount)} released`
              : "No open orders to cancel.",
          r,
        );
        return;
      }
      const ids = ctx.args.positionals;
      if (!ids.length) throw new UsageError("missing order id (or --all)");
      const done: CancelledOrder[] = [];
      for (const id of ids) done.push(await c.orders.cancel(id));
      print(
        ctx,
        () =>
          done.map(
            (d) =>
              `Cancelled ${d.orderId}: ${shares(BigInt(d.cancelledQuantity))} shares unfilled, ${usdt(BigInt(d.releasedAmount))} released`,
          ),
        done,
      );
    },
  },

  amend: {
    usage: "amend <orderId> [--price P] [--quantity SHARES]",
    summary:
      "change an open order in place: a lower quantity keeps its time priority, a new price or a higher quantity loses it (--quantity is the new open rest)",
    async run(ctx) {
      const c = needLogin(ctx);
      const id = pos(ctx, 0, "order id");
      const price = opt(ctx, "price");
      const quantity = opt(ctx, "quantity");
      if (price === undefined && quantity === undefined) throw new UsageError("give --price, --quantity or both");
      const q = quantity === undefined ? undefined : sharesToMicro(quantity);
      if (q !== undefined && q > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError("quantity too large");
      const o = await c.orders.amend(id, {
        ...(price !== undefined ? { price: tickToPriceNumber(priceToTick(price)) } : {}),
        ...(q !== undefined ? { quantity: Number(q) } : {}),
      });
      print(ctx, () => orderLine(o, " amended,"), o);
    },
  },

  heartbeat: {
    usage: "heartbeat <seconds>",
    summary: "dead man's switch: unless another heartbeat comes within 5 to 300 seconds, every open order of yours is cancelled; 0 disarms",
    async run(ctx) {
      const raw = pos(ctx, 0, "seconds");
      if (!/^\d+$/.test(raw)) throw new UsageError("seconds must be a whole number (0 disarms, else 5 to 300)");
      const h = await needLogin(ctx).heartbeats.send(Number(raw));
      print(
        ctx,
        () =>
          h.armed
            ? `Dead man's switch armed: unless another heartbeat comes by ${h.expiresAt}, every open order is cancelled.`
            : "Dead man's switch disarmed.",
        h,
      );
    },
  },

  trades: {
    usage: "trades [tradeId] [--page N] [--page-size N] [--all]",
    summary: "your trades (newest first), or one trade with its settlement",
    async run(ctx) {
      const c = needLogin(ctx);
      const id = ctx.args.positionals[0];
      if (id) {
        const t = await c.portfolio.trade(id);
        print(
          ctx,
          () => [
            `Trade ${t.id}: ${t.side} ${shares(t.filledQuantity)} ${t.outcome} at ${t.avgPrice} via ${t.venue} (${t.role})`,
            `cost ${usdt(t.totalCost)}, fee ${usdt(t.fee)}, market ${t.marketId}`,
            `settlement ${t.settlementStatus}${t.settlementTxHash ? ` tx ${t.settlementTxHash}` : ""}`,
          ],
          t,
        );
        return;
      }
      const items = flag(ctx, "all")
        ? await collectAll(c.portfolio.iterateTrades({ pageSize: 100 }))
        : (await c.portfolio.trades({ page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") })).items;
      print(
        ctx,
        () =>
          items.length
            ? table(
                ["trade", "market", "side", "outcome", "shares", "avg", "cost USDT", "fee USDT", "venue", "settlement"],
                items.map((t) => [
                  t.id,
                  t.marketId,
                  t.side,
                  t.outcome,
                  shares(t.filledQuantity),
                  t.avgPrice,
                  money(t.totalCost),
                  money(t.fee),
                  t.venue,
                  t.settlementStatus,
                ]),
                new Set([4, 5, 6, 7]),
              )
            : "No trades yet.",
        items,
      );
    },
  },

  transfers: {
    usage: "transfers [--type deposit|withdrawal] [--page N] [--page-size N] [--all]",
    summary: "your deposits (credited, and not credited with the reason) and withdrawals, newest first",
    async run(ctx) {
      const c = needLogin(ctx);
      const type = opt(ctx, "type");
      if (type !== undefined && type !== "deposit" && type !== "withdrawal") throw new UsageError("--type must be deposit or withdrawal");
      const params = { type: type as "deposit" | "withdrawal" | undefined };
      const page = flag(ctx, "all")
        ? null
        : await c.portfolio.transfers({ ...params, page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") });
      const items = page ? page.items : await collectAll(c.portfolio.iterateTransfers({ ...params, pageSize: 100 }));
      print(
        ctx,
        () =>
          items.length
            ? [
                table(
                  ["time", "type", "amount", "status", "tx", "address"],
                  items.map((t) => [
                    t.createdAt.slice(0, 19),
                    t.type,
                    transferAmount(t),
                    t.reason ? `${t.status} (${t.reason})` : t.status,
                    t.txHash ? short(t.txHash) : "-",
                    short(t.address),
                  ]),
                  new Set([2]),
                ),
                ...(page
                  ? [
                      `page ${page.pagination.page}, ${items.length} of ${page.pagination.total}${page.pagination.hasNext ? " (more with --page)" : ""}`,
                    ]
                  : []),
              ]
            : "No transfers yet.",
        items,
      );
    },
  },

  deposit: {
    usage: "deposit",
    summary: "your deposit address (send USDT on TON there)",
    async run(ctx) {
      const d = await needLogin(ctx).wallet.depositAddress();
      print(
        ctx,
        () => [
          `Deposit address ${d.address}`,
          `USDT jetton wallet ${d.jettonWalletAddress ?? "(created by the first deposit)"}`,
          "Only the canonical USDT jetton is credited; TON and other tokens are not.",
        ],
        d,
      );
    },
  },

  faucet: {
    usage: "faucet <amount> [--asset USDT|TON|FOREIGN_USDT] [--no-wait]",
    summary: "sandbox chain only: mint test tokens to your deposit address and wait for the credit",
    async run(ctx) {
      const c = needLogin(ctx);
      const asset = (opt(ctx, "asset") ?? "USDT").toUpperCase() as FaucetAsset;
      if (!["USDT", "TON", "FOREIGN_USDT"].includes(asset)) throw new UsageError("--asset must be USDT, TON or FOREIGN_USDT");
      const amount = parseUnits(pos(ctx, 0, "amount"), asset === "TON" ? 9 : 6, "amount");
      if (amount <= 0n) throw new UsageError("amount must be positive");
      const before = asset === "USDT" ? BigInt((await c.portfolio.balance()).available) : 0n;
      const r = await c.wallet.faucet({ amount: amount.toString(), asset });
      const unit = asset === "TON" ? "TON" : asset;
      const lines = [`Sent ${asset === "TON" ? formatUnits(amount, 9) : money(amount)} ${unit} to ${r.address} (tx ${r.txHash})`];
      let available: string | null = null;
      if (asset === "USDT" && opt(ctx, "wait") !== "false") {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const b = await c.portfolio.balance();
          if (BigInt(b.available) >= before + amount) {
            available = b.available;
            break;
          }
          if (Date.now() > deadline) break;
          await new Promise((res) => setTimeout(res, 250));
        }
        lines.push(available !== null ? `Credited: available ${usdt(available)}` : "Not credited yet; check `trade balance` in a moment.");
      } else if (asset !== "USDT") lines.push(`${unit} is not credited to your balance (only the canonical USDT is).`);
      print(ctx, () => lines, { ...r, credited: available !== null, available });
    },
  },

  withdraw: {
    usage: "withdraw <amount> [--yes] [--idempotency-key K]",
    summary: "send USDT from your available balance to your own wallet",
    async run(ctx) {
      const c = needLogin(ctx);
      const raw = pos(ctx, 0, "amount");
      const amount = toMicro(raw, "amount");
      if (BigInt(amount) <= 0n) throw new UsageError("amount must be positive");
      await confirm(ctx, `Withdraw ${usdt(amount)} to your wallet ${c.session?.walletAddress}?`);
      const r = await c.wallet.withdraw({ amount }, writeOptions(ctx));
      print(ctx, () => `${r.status}: ${r.message}${r.txHash ? ` (tx ${r.txHash})` : ""}${replayedNote(r)}`, r);
      if (r.status === "failed") throw new Abort("");
    },
  },

  redeem: {
    usage: "redeem <marketId> [--outcome YES|NO|BOTH] [--idempotency-key K]",
    summary: "redeem winning shares of a resolved market (or the refund of a cancelled one)",
    async run(ctx) {
      const c = needLogin(ctx);
      const id = pos(ctx, 0, "market id");
      const m = await c.markets.get(id);
      const o = opt(ctx, "outcome")?.toUpperCase();
      const indexSets =
        o === "BOTH" || (!o && !m.result) ? [INDEX_SET.YES, INDEX_SET.NO] : [INDEX_SET[o ? outcomeOf(o) : (m.result as Outcome)]];
      const r = await c.wallet.redeem(id, { conditionId: m.conditionId, indexSets }, writeOptions(ctx));
      print(ctx, () => `${r.status}: ${r.message}${r.payout ? ` (payout ${usdt(r.payout)})` : ""}${replayedNote(r)}`, r);
    },
  },

  notifications: {
    usage: "notifications [read <id...>|--all] [--unread] [--page N]",
    summary: "your notifications, or mark them read",
    async run(ctx) {
      const c = needLogin(ctx);
      if (ctx.args.positionals[0] === "read") {
        const ids = ctx.args.positionals.slice(1);
        if (!ids.length && !flag(ctx, "all")) throw new UsageError("give notification ids or --all");
        const r = await c.notifications.markRead(flag(ctx, "all") ? { all: true } : { ids });
        print(ctx, () => `Marked ${r.updated} read; ${r.unread} unread left.`, r);
        return;
      }
      const items = flag(ctx, "unread")
        ? await c.notifications.unread()
        : (await c.notifications.list({ page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") })).items;
      print(
        ctx,
        () =>
          items.length
            ? table(
                ["", "time", "type", "title", "text"],
                items.map((n) => [n.read ? "" : "*", n.createdAt.slice(0, 19), n.type, n.title, n.body]),
              )
            : "No notifications.",
        items,
      );
    },
  },

  watch: {
    usage: "watch <marketId> [--outcome YES|NO] [--updates N] [--seconds S]",
    summary: "live order book in the terminal (Ctrl-C to stop)",
    async run(ctx) {
      const id = pos(ctx, 0, "market id");
      const outcome = outcomeOf(opt(ctx, "outcome") ?? "YES");
      const maxUpdates = intOpt(ctx, "updates");
      const seconds = intOpt(ctx, "seconds");
      const ws = ctx.client().socket({});
      const stop = ctx.io.interrupted();
      let timer: NodeJS.Timeout | undefined;
      try {
        await ws.connect();
        const sub = ws.subscribeBook(id, { outcome });
        const render = (b: BookState) => {
          if (ctx.json) return ctx.io.out(JSON.stringify(b));
          if (ctx.io.isTTY) ctx.io.clear?.();
          ctx.io.out(
            `Order book ${id}, ${outcome} view, seq ${b.seq} — ${new Date().toISOString().slice(11, 19)}${ctx.io.isTTY ? " (Ctrl-C to stop)" : ""}`,
          );
          for (const line of bookTable(b).split("\n")) ctx.io.out(line);
          if (!ctx.io.isTTY) ctx.io.out("");
        };
        const ended = new Promise<void>((res) => {
          if (seconds !== undefined) timer = setTimeout(res, seconds * 1000);
        });
        const loop = (async () => {
          let n = 0;
          for await (const b of sub) {
            render(b);
            // The first state is the snapshot; --updates counts what came after it.
            if (maxUpdates !== undefined && n++ >= maxUpdates) break;
          }
        })();
        ws.on("reconnect", () => {
          if (!ctx.json) ctx.io.err("(reconnected; book rebuilt from a fresh snapshot)");
        });
        await Promise.race([loop, ended, stop.promise, sub.ready.then(() => new Promise<never>(() => undefined))]);
      } finally {
        if (timer) clearTimeout(timer);
        stop.dispose();
        ws.close();
      }
    },
  },

  admin: {
    usage: "admin create-event|close|cancel|resolve ... (needs ADMIN_KEY)",
    summary:
      "operator API: `admin create-event --title T --category C --market TITLE [--liquidity USDT]...`, `admin close|cancel <marketId>`, `admin resolve <marketId> YES|NO`",
    async run(ctx) {
      const c = ctx.client();
      if (!c.adminKey) throw new UsageError("the operator commands need the operator key in ADMIN_KEY (or PMX_ADMIN_KEY)");
      const sub = pos(ctx, 0, "admin command");
      if (sub === "create-event") {
        const title = opt(ctx, "title");
        const category = opt(ctx, "category") as Category | undefined;
        const markets = ctx.args.all.get("market") ?? [];
        if (!title || !category || !markets.length)
          throw new UsageError("create-event needs --title, --category and at least one --market");
        const liquidity = ctx.args.all.get("liquidity") ?? [];
        const e = await c.admin.createEvent({
          title,
          category,
          markets: markets.map((t, i) => (liquidity[i] ? { title: t, ammLiquidity: toMicro(liquidity[i], "liquidity") } : { title: t })),
        });
        print(
          ctx,
          () => [
            `Created event ${e.id}`,
            table(
              ["market", "title"],
              e.markets.map((m) => [m.id, m.title]),
            ),
          ],
          e,
        );
        return;
      }
      const id = pos(ctx, 1, "market id");
      const m =
        sub === "close"
          ? await c.admin.closeMarket(id)
          : sub === "cancel"
            ? await c.admin.cancelMarket(id)
            : sub === "resolve"
              ? await c.admin.resolveMarket(id, { result: outcomeOf(pos(ctx, 2, "result")) })
              : null;
      if (!m) throw new UsageError(`unknown admin command "${sub}"`);
      print(ctx, () => `Market ${m.id} is now ${m.status}${m.result ? ` (${m.result})` : ""}`, m);
    },
  },
};

function sideOf(raw: string): Side {
  const s = raw.toUpperCase();
  if (s !== "BUY" && s !== "SELL") throw new UsageError(`side must be buy or sell, got "${raw}"`);
  return s;
}

async function collectAll<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function quoteLine(
  side: Side,
  outcome: Outcome,
  q: bigint,
  quote: { estimatedPrice: string; estimatedCost: string; source: string; fee: string },
): string {
  const money =
    side === "BUY"
      ? `cost ${usdt(quote.estimatedCost)} + fee ${usdt(quote.fee)}`
      : `proceeds ${usdt(quote.estimatedCost)} - fee ${usdt(quote.fee)}`;
  return `Quote: ${side} ${shares(q)} ${outcome} at about ${quote.estimatedPrice} each via ${quote.source}: ${money}`;
}

function tradeCommand(side: Side): Command {
  const verb = side.toLowerCase();
  return {
    usage: `${verb} <marketId> <YES|NO> <shares> [--limit PRICE [--fok | --fak | --expires WHEN] [--post-only] [--client-id ID]] [--amm] [--yes] [--idempotency-key K]`,
    summary: `${verb} shares: a market order (quote first, then confirm), an AMM-only trade (--amm), or a limit order (--limit): GTC, or FOK (--fok, all at once or nothing), FAK (--fak, what fills at once; the rest is cancelled), GTD (--expires 10m or an ISO time); --post-only refuses it if any part would execute at once`,
    async run(ctx) {
      const c = needLogin(ctx);
      const marketId = pos(ctx, 0, "market id");
      const outcome = outcomeOf(pos(ctx, 1, "outcome"));
      const q = sharesToMicro(pos(ctx, 2, "shares"));
      const limit = opt(ctx, "limit");
      const expires = opt(ctx, "expires");
      const types = [flag(ctx, "fok") && "--fok", flag(ctx, "fak") && "--fak", expires !== undefined && "--expires"].filter(Boolean);
      if (types.length > 1) throw new UsageError(`choose one order type: ${types.join(" or ")}`);
      if (limit !== undefined) {
        const tick = priceToTick(limit);
        if (q > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError("quantity too large");
        const orderType: OrderType = expires !== undefined ? "GTD" : flag(ctx, "fak") ? "FAK" : flag(ctx, "fok") ? "FOK" : "GTC";
        const clientOrderId = opt(ctx, "client-id");
        const o = await c.orders.place(
          {
            marketId,
            side,
            outcome,
            orderType,
            price: tickToPriceNumber(tick),
            quantity: Number(q),
            ...(expires !== undefined ? { expiresAt: expiresAt(expires) } : {}),
            ...(flag(ctx, "post-only") ? { postOnly: true } : {}),
            ...(clientOrderId !== undefined ? { clientOrderId } : {}),
          },
          writeOptions(ctx),
        );
        print(ctx, () => orderLine(o), o);
        return;
      }
      const limitOnly = [types[0], flag(ctx, "post-only") && "--post-only", opt(ctx, "client-id") !== undefined && "--client-id"].filter(
        Boolean,
      );
      if (limitOnly.length) throw new UsageError(`${limitOnly.join(", ")} need${limitOnly.length === 1 ? "s" : ""} --limit PRICE`);
      const quote = await c.markets.quote(marketId, { side, outcome, quantity: q.toString() });
      const amm = flag(ctx, "amm");
      if (!ctx.json) {
        ctx.io.out(quoteLine(side, outcome, q, quote));
        if (amm && quote.source !== "AMM") ctx.io.out("(the quote is the best route; the AMM alone may price it differently)");
      }
      await confirm(ctx, `${side === "BUY" ? "Buy" : "Sell"} ${shares(q)} ${outcome} ${amm ? "from the AMM" : "at market"}?`);
      const body: TradeRequest = { marketId, side, outcome, quantity: q.toString() };
      const t = amm ? await c.trade.amm(body, writeOptions(ctx)) : await c.trade.market(body, writeOptions(ctx));
      print(
        ctx,
        () =>
          `Filled ${shares(t.filledQuantity)} ${outcome} at ${t.avgPrice} via ${t.venue}: ${side === "BUY" ? "cost" : "proceeds"} ${usdt(t.totalCost)}, fee ${usdt(t.fee)} (trade ${t.tradeId})${replayedNote(t)}`,
        { quote, trade: t },
      );
    },
  };
}

// ---------- entry ----------

function describeError(err: unknown, url: string): string {
  if (err instanceof RateLimitError)
    return `Rate limited: ${err.message}; try again in ${err.retryAfter} s, or pass --wait to wait it out${err.requestId ? ` (request ${err.requestId})` : ""}`;
  if (err instanceof ApiError) return `Error ${err.status} ${err.describe()}`;
  if (err instanceof NetworkError) return `Cannot reach the exchange at ${url}: ${(err.cause as Error)?.message ?? err.message}`;
  if (err instanceof NotLoggedInError || err instanceof StoreError) return err.message;
  if (err instanceof RangeError || err instanceof TypeError) return `Invalid input: ${err.message}`;
  return `Error: ${(err as Error)?.message ?? String(err)}`;
}

/** Runs one command; resolves with the exit code (0 ok, 1 failed, 2 usage). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let url = DEFAULT_URL;
  try {
    const args = parseArgs(argv, BOOLEAN_FLAGS);
    const name = args.positionals.shift() ?? "help";
    const cmd = COMMANDS[name];
    if (!cmd) throw new UsageError(`unknown command "${name}"; see \`trade help\``);
    if (args.options.get("help") === "true") {
      io.out(`Usage: trade ${cmd.usage}`);
      io.out(cmd.summary);
      return EXIT_OK;
    }
    const env = io.env;
    url = args.options.get("url") ?? env.PMX_URL ?? DEFAULT_URL;
    const home = resolve(args.options.get("home") ?? env.PMX_HOME ?? join(env.HOME ?? homedir(), ".pmx"));
    const walletPath = resolve(args.options.get("wallet") ?? env.PMX_WALLET ?? join(home, "wallet.json"));
    const sessionPath = join(home, "sessions.json");
    let client: PmxClient | undefined;
    const ctx: Ctx = {
      args,
      io,
      url,
      domain: args.options.get("domain") ?? env.PMX_DOMAIN,
      home,
      walletPath,
      sessionPath,
      json: args.options.get("json") === "true",
      client() {
        if (client) return client;
        const probe = new PmxClient({ baseUrl: url });
        client = new PmxClient({
          baseUrl: url,
          domain: ctx.domain,
          session: loadSession(sessionPath, probe.origin),
          adminKey: env.ADMIN_KEY ?? env.PMX_ADMIN_KEY,
          // Only when asked: a script may rather fail fast than sleep.
          retry:
            args.options.get("wait") === "true"
              ? {
                  maxRetries: 5,
                  maxWaitSeconds: 120,
                  onWait: (s, e) =>
                    io.err(
                      e instanceof RateLimitError
                        ? `Rate limited; waiting ${s} s as the exchange asks (--wait)...`
                        : `${e instanceof ApiError ? e.code : "No answer"}; sending again with the same idempotency key in ${s} s (--wait)...`,
                    ),
                }
              : false,
          fetch: io.fetch,
          onSessionChange: (s) => saveSession(sessionPath, probe.origin, s),
        });
        return client;
      },
    };
    await cmd.run(ctx);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`Usage error: ${err.message}`);
      return EXIT_USAGE;
    }
    if (err instanceof Abort) {
      if (err.message) io.err(err.message);
      return EXIT_ERROR;
    }
    io.err(describeError(err, url));
    return EXIT_ERROR;
  }
}

/** The real terminal. */
export function processIo(): CliIo {
  // `trade events | head` closes the pipe early: that is the reader's choice, not a failure.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
  return {
    out: (line) => process.stdout.write(line + "\n"),
    err: (line) => process.stderr.write(line + "\n"),
    prompt(question) {
      process.stderr.write(question);
      // One interface per question, closed after it, so nothing keeps stdin open afterwards.
      const rl = createInterface({ input: process.stdin, terminal: false });
      return new Promise<string | null>((res) => {
        let answered = false;
        rl.once("line", (line) => {
          answered = true;
          if (!process.stdin.isTTY) process.stderr.write("\n");
          rl.close();
          res(line);
        });
        rl.once("close", () => {
          if (!answered) res(null);
        });
      });
    },
    async readAll() {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(Buffer.from(c as Buffer));
      return Buffer.concat(chunks).toString("utf8");
    },
    env: process.env,
    isTTY: !!process.stdout.isTTY,
    interrupted() {
      let handler: () => void = () => undefined;
      const promise = new Promise<void>((res) => {
        handler = () => res();
        process.once("SIGINT", handler);
      });
      return { promise, dispose: () => process.off("SIGINT", handler) };
    },
    clear: () => process.stdout.write("\x1b[2J\x1b[H"),
  };
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
