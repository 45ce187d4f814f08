/**
 * Operator console: `npm run repl`.
 * - TRANSPORTER set: a broker with no services of its own joins the cluster over it;
 * - an embedded exchange already running on DATA_DIR: the REPL joins it as a node over the
 *   owner-only socket in the data dir (lib/local-transporter.ts), so it never starts a second
 *   exchange on the same data;
 * - nothing running there: a full embedded node (gateway included) runs in this process.
 * Besides moleculer-repl's own commands (`call`, `services`, ...), REPL_COMMANDS below: the catalog
 * commands call the same actions as the operator HTTP API (`events` is taken by moleculer-repl,
 * which lists event listeners, hence `list-events`); `conservation` and `reconcile` check the
 * books. Each prints readable text, and a refusal as one line instead of a stack trace.
 */
import { hostname } from "node:os";
import { ServiceBroker } from "moleculer";
import { bindConfig, loadConfig } from "../lib/config";
import { DataDirLock, readHolder } from "../lib/data-dir";
import { LocalSocketTransporter } from "../lib/local-transporter";
import { createBrokerOptions } from "../moleculer.config";
import { createNode, stopOnSignals } from "../server";
import { call, type ActionName, type ActionParams, type ActionResult, type Caller } from "../contract";
import type { ChainReconciliation } from "../models/chain";
import { usdtText } from "../lib/units";
import type { MoneyCheck, VerifyReport } from "../models/trading";

/** What moleculer-repl hands a custom command: named arguments plus `options` from flags. */
export interface ReplArgs {
  options: Record<string, unknown>;
  [arg: string]: unknown;
}

/** Only what the commands need from a broker (typed calls: contract/call.ts), so tests pass a real one and nothing else. */
export type ReplBroker = Caller;

export interface ReplCommand {
  command: string;
  description: string;
  options?: Array<{ option: string; description: string }>;
  action(broker: ReplBroker, args: ReplArgs): Promise<unknown>;
}

function arg(args: ReplArgs, name: string): string {
  const v = args[name];
  if (typeof v !== "string" || !v) throw new Error(`missing <${name}>`);
  return v;
}

function show(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** "0.575" -> "57.5" */
function percent(decimal: string): string {
  return String(Math.round(Number(decimal) * 1000) / 10);
}

/** A winner argument: a market id, or "none" (null: none of them won). */
function winnerOf(args: ReplArgs): string | null {
  const w = arg(args, "winner");
  return w.toLowerCase() === "none" ? null : w;
}

function transitionCommand(command: string, action: "catalog.closeMarket", description: string): ReplCommand {
  return {
    command: `${command} <marketId>`,
    description,
    async action(broker, args) {
      const market = await call(broker, action, { id: arg(args, "marketId") });
      show(market);
      return market;
    },
  };
}

export const CATALOG_REPL_COMMANDS: ReplCommand[] = [
  {
    command: "list-events [category]",
    description: "List published events (category: Sports, Crypto, ... or all)",
    options: [
      { option: "-p, --page <page>", description: "page number (default 1)" },
      { option: "-s, --search <text>", description: "free-text filter" },
    ],
    async action(broker, args) {
      const params: ActionParams<"catalog.listEvents"> = { pageSize: 100 };
      if (typeof args.category === "string") params.category = args.category as ActionParams<"catalog.listEvents">["category"];
      if (args.options.page !== undefined) params.page = Number(args.options.page);
      if (typeof args.options.search === "string") params.search = args.options.search;
      const res = await call(broker, "catalog.listEvents", params);
      for (const e of res.items) console.log(`${e.id}  ${e.category.padEnd(9)}  ${e.beginAt}  ${e.title}`);
      console.log(`-- ${res.items.length} of ${res.pagination.total}`);
      return res;
    },
  },
  {
    command: "show-event <eventId>",
    description: "An event with its markets, and each outcome's chance (a race: one winner among them)",
    async action(broker, args) {
      const e = await call(broker, "catalog.getEvent", { id: arg(args, "eventId") });
      const kind = e.mutuallyExclusive ? (e.exhaustive ? "race, exhaustive" : "race") : "event";
      console.log(`${e.id}  ${e.title}  (${kind})`);
      for (const o of e.outcomes)
        console.log(`  ${o.marketId}  ${o.label.padEnd(24)}  ${o.status.padEnd(8)}  ${o.chance === null ? "-" : `${percent(o.chance)}%`}`);
      return e;
    },
  },
  {
    command: "create-event <json>",
    description: `Create an event with markets, e.g. create-event '{"title":"...","category":"Sports","markets":[{"title":"...","ammLiquidity":"1000000000"}]}'`,
    async action(broker, args) {
      let params: ActionParams<"catalog.createEvent">;
      try {
        // Checked by the action's params, like the operator API's body.
        params = JSON.parse(arg(args, "json")) as ActionParams<"catalog.createEvent">;
      } catch (err) {
        throw new Error(`<json> is not valid JSON (quote it with single quotes): ${(err as Error).message}`);
      }
      const event = await call(broker, "catalog.createEvent", params);
      show(event);
      return event;
    },
  },
  transitionCommand("close", "catalog.closeMarket", "Close a market to trading (open -> closed)"),
  {
    command: "cancel <marketId> [price]",
    description: "Cancel a market (open|closed -> cancelled): YES pays price (default 0.50), NO 1 - price, from its own collateral",
    async action(broker, args) {
      const params: ActionParams<"catalog.cancelMarket"> = { id: arg(args, "marketId") };
      // Any other value is refused by the action's params, like the operator API's body.
      if (typeof args.price === "string") params.price = args.price;
      const market = await call(broker, "catalog.cancelMarket", params);
      show(market);
      return market;
    },
  },
  {
    command: "resolve <marketId> <result>",
    description: "Resolve a market YES, NO or SPLIT now, without a dispute window (also retries after resolution_failed)",
    async action(broker, args) {
      const result = arg(args, "result").toUpperCase();
      // Any other word is refused by the action's params, in the REPL's one-line error.
      const market = await call(broker, "catalog.resolveMarket", { id: arg(args, "marketId"), result: result as "YES" | "NO" | "SPLIT" });
      show(market);
      return market;
    },
  },
  {
    command: "propose <marketId> <result> [note...]",
    description: "Propose a result (YES, NO or SPLIT); holders may dispute it until its window ends, then it finalizes by itself",
    async action(broker, args) {
      const result = arg(args, "result").toUpperCase() as "YES" | "NO" | "SPLIT";
      const note = Array.isArray(args.note) ? args.note.join(" ") : undefined;
      const market = await call(broker, "catalog.proposeResolution", { id: arg(args, "marketId"), result, ...(note ? { note } : {}) });
      show(market);
      return market;
    },
  },
  {
    command: "finalize <marketId> <result>",
    description: "End a pending proposal (disputed or not) with this result, which may differ from the proposed one",
    async action(broker, args) {
      const result = arg(args, "result").toUpperCase() as "YES" | "NO" | "SPLIT";
      const market = await call(broker, "catalog.finalizeResolution", { id: arg(args, "marketId"), result });
      show(market);
      return market;
    },
  },
  {
    command: "add-outcome <eventId> <outcomeLabel> <title...>",
    description: "Add an outcome market to an open race (a mutually exclusive event), e.g. add-outcome evt_1 Dana Will Dana win?",
    async action(broker, args) {
      const title = Array.isArray(args.title) ? args.title.join(" ") : arg(args, "title");
      const market = await call(broker, "catalog.addOutcome", { id: arg(args, "eventId"), outcomeLabel: arg(args, "outcomeLabel"), title });
      show(market);
      return market;
    },
  },
  {
    command: "resolve-event <eventId> <winner>",
    description: "Resolve a race as one step: the winner (a market id) YES, every other undecided market NO; none: nobody won",
    async action(broker, args) {
      const e = await call(broker, "catalog.resolveEvent", { id: arg(args, "eventId"), winnerMarketId: winnerOf(args) });
      show(e);
      return e;
    },
  },
  {
    command: "propose-event <eventId> <winner> [note...]",
    description: "Propose a race's winner (a market id, or none); undisputed, the race finalizes as one step when the window ends",
    async action(broker, args) {
      const note = Array.isArray(args.note) ? args.note.join(" ") : undefined;
      const e = await call(broker, "catalog.proposeEvent", {
        id: arg(args, "eventId"),
        winnerMarketId: winnerOf(args),
        ...(note ? { note } : {}),
      });
      show(e);
      return e;
    },
  },
];

/** An operator action taken at the console: journaled in the audit log like one through the operator API. */
function audited(c: ReplCommand): ReplCommand {
  const name = c.command.split(" ")[0];
  return {
    ...c,
    options: [...(c.options ?? []), { option: "-n, --note <text>", description: "the operator's note, kept in the audit log" }],
    async action(broker, args) {
      const out = await c.action(broker, args);
      const params: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(args)) if (k !== "options" && typeof v === "string") params[k] = v;
      const note = typeof args.options.note === "string" && args.options.note.trim() ? args.options.note.trim() : null;
      await call(broker, "ledger.recordAudit", { action: `repl:${name}`, method: "REPL", path: name, params, note });
      return out;
    },
  };
}

/** A market's or the exchange's trading mode. */
const TRADING_MODE_COMMAND: ReplCommand = {
  command: "trading-mode <target> <mode> [reason]",
  description:
    "Set a market's trading mode (target: a market id) or the exchange-wide one (target: all): normal, post_only, cancel_only or halted",
  async action(broker, args) {
    const target = arg(args, "target");
    const mode = arg(args, "mode") as ActionParams<"catalog.setTradingMode">["mode"];
    const reason = typeof args.reason === "string" ? args.reason : undefined;
    const r =
      target === "all"
        ? await call(broker, "catalog.setExchangeTradingMode", { mode, ...(reason ? { reason } : {}) })
        : await call(broker, "catalog.setTradingMode", { id: target, mode, ...(reason ? { reason } : {}) });
    show(r);
    return r;
  },
};

/** Catalog commands that change nothing (not journaled). */
const READ_ONLY = ["list-events", "show-event"];

/** Operator actions at the console, each journaled in the audit log. */
export const OPERATOR_REPL_COMMANDS: ReplCommand[] = [
  ...CATALOG_REPL_COMMANDS.filter((c) => !READ_ONLY.some((r) => c.command.startsWith(r))),
  TRADING_MODE_COMMAND,
].map(audited);

/** The audit log, newest first. */
export const AUDIT_REPL_COMMANDS: ReplCommand[] = [
  {
    command: "audit [page]",
    description: "The audit log: every operator action (API and console), newest first, with its parameters and note",
    async action(broker, args) {
      const pageNo = typeof args.page === "string" ? Number(args.page) : 1;
      const res = await call(broker, "ledger.auditLog", { page: pageNo, pageSize: 20 });
      for (const a of res.items)
        console.log(`${a.at}  #${a.seq}  ${a.action}  ${JSON.stringify(a.params)}${a.note ? `  note: ${a.note}` : ""}`);
      console.log(`-- page ${res.pagination.page}, ${res.items.length} of ${res.pagination.total}`);
      return res;
    },
  },
];

/** Label/value rows, values aligned. */
function rows(pairs: Array<[string, string]>): string[] {
  const width = Math.max(...pairs.map(([l]) => l.length));
  return pairs.map(([l, v]) => `  ${l.padEnd(width)}  ${v}`);
}

export function conservationText(r: MoneyCheck): string[] {
  const held = BigInt(r.cash) + BigInt(r.collateral) + BigInt(r.fees);
  const owed = BigInt(r.deposits) - BigInt(r.withdrawals) + BigInt(r.house);
  return [
    `Ledger conservation: ${r.ok ? "OK" : "BROKEN"}`,
    ...rows([
      ["cash (users and system accounts)", usdtText(r.cash)],
      ["market collateral", usdtText(r.collateral)],
      ["fees", usdtText(r.fees)],
      ["held in all", usdtText(held)],
      ["deposits credited", usdtText(r.deposits)],
      ["withdrawals sent", usdtText(r.withdrawals)],
      ["house funding", usdtText(r.house)],
      ["deposits - withdrawals + house", usdtText(owed)],
      ["markets whose YES, NO and collateral disagree", r.unbalancedMarkets.length ? r.unbalancedMarkets.join(", ") : "none"],
      [
        "orders whose filled + open + cancelled is not their quantity",
        (r.badOrders ?? []).length
          ? r.badOrders.map((o) => `${o.orderId} (${o.filled} + ${o.remaining} + ${o.cancelled} of ${o.quantity})`).join(", ")
          : "none",
      ],
      [
        "locks that differ from what open orders hold",
        (r.badLocks ?? []).length
          ? r.badLocks
              .map((l) => `${l.account}${l.marketId ? ` ${l.marketId} ${l.outcome}` : ""} (${l.locked} locked, ${l.heldByOrders} held)`)
              .join(", ")
          : "none",
      ],
      [
        "journal positions out of order or written under an older lease",
        (r.badPositions ?? []).length ? r.badPositions.map((p) => `${p.marketId}#${p.position} ${p.problem}`).join(", ") : "none",
      ],
    ]),
  ];
}

export function verifyText(r: VerifyReport): string[] {
  return [
    `Journal verification: ${r.ok ? "OK" : "FAILED"}: ${r.entries} entries, head ${r.head.seq} ${r.head.hash.slice(0, 16)}..., ${r.ms} ms`,
    ...(r.ok
      ? ["  every hash links to the one before; a replay of every entry equals the balances, positions, orders and trades"]
      : r.problems.map((p) => `  ${p}`)),
  ];
}

export function reconciliationText(r: ChainReconciliation): string[] {
  const onChain = BigInt(r.depositWallets) + BigInt(r.hotWallet) - BigInt(r.pendingWithdrawals);
  return [
    `Chain reconciliation: ${r.ok ? "OK" : "MISMATCH"} (ledger deposits - withdrawals against the USDT the wallets hold)`,
    ...rows([
      ["ledger deposits", usdtText(r.ledgerDeposits)],
      ["ledger withdrawals", usdtText(r.ledgerWithdrawals)],
      ["ledger net", usdtText(r.ledgerNet)],
      ["deposit wallets hold", usdtText(r.depositWallets)],
      ["hot wallet holds", usdtText(r.hotWallet)],
      ["withdrawals not yet sent", usdtText(r.pendingWithdrawals)],
      ["on chain, net of those", usdtText(onChain)],
      ["ledger conservation", r.ledgerConservation ? "OK" : "BROKEN (run conservation)"],
    ]),
  ];
}

/** A command that calls one action and prints its report as text. */
function reportCommand<A extends "ledger.conservation" | "chain.reconcile" | "ledger.verify">(
  command: string,
  action: A,
  description: string,
  text: (r: ActionResult<A>) => string[],
): ReplCommand {
  return {
    command,
    description,
    async action(broker) {
      const report = (await call<ActionName>(broker, action)) as ActionResult<A>; // no params: Args<A> is not resolved for a generic A
      for (const line of text(report)) console.log(line);
      return report;
    },
  };
}

/** Checks of the books. */
export const CHECK_REPL_COMMANDS: ReplCommand[] = [
  reportCommand(
    "conservation",
    "ledger.conservation",
    "Check the ledger: cash + collateral + fees = deposits - withdrawals + house funding, and every market balanced",
    conservationText,
  ),
  reportCommand(
    "reconcile",
    "chain.reconcile",
    "Check the ledger against the chain: deposits - withdrawals = USDT in the deposit and hot wallets - pending withdrawals",
    reconciliationText,
  ),
  reportCommand(
    "verify",
    "ledger.verify",
    "Verify the whole journal: its hash chain, and a replay of every entry against the balances, positions, orders and trades",
    verifyText,
  ),
];

/** A user, as the REPL acts for one (the operator's console is trusted like an internal call). */
const asUser = (userId: string) => ({ meta: { user: { id: userId, wallet: "", sid: "repl", exp: Number.MAX_SAFE_INTEGER } } });

/** Trading on behalf of a user: support and operators fix what a user cannot. */
export const TRADING_REPL_COMMANDS: ReplCommand[] = [
  {
    command: "place <userId> <marketId> <side> <outcome> <price> <quantity>",
    description: "Place a GTC limit order for a user (price 0.01..0.99, quantity in micro-shares)",
    async action(broker, args) {
      // Side and outcome words other than the contract's are refused by the action's params.
      const body = {
        marketId: arg(args, "marketId"),
        side: arg(args, "side").toUpperCase() as ActionParams<"book.place">["side"],
        outcome: arg(args, "outcome").toUpperCase() as ActionParams<"book.place">["outcome"],
        orderType: "GTC" as const,
        price: Number(arg(args, "price")),
        quantity: Number(arg(args, "quantity")),
      };
      const r = await call(broker, "book.place", body, asUser(arg(args, "userId")));
      console.log(`Order ${r.orderId}: ${r.status}, filled ${r.filledQuantity}`);
      return r;
    },
  },
  {
    command: "cancel-order <userId> <orderId>",
    description: "Cancel one of a user's open orders",
    async action(broker, args) {
      const r = await call(broker, "book.cancelOrder", { orderId: arg(args, "orderId") }, asUser(arg(args, "userId")));
      console.log(`Order ${r.orderId} cancelled: ${r.cancelledQuantity} micro-shares, ${usdtText(r.releasedAmount)} released`);
      return r;
    },
  },
];

/** Every command of the console, in one list (add new ones here). */
export const REPL_COMMANDS: ReplCommand[] = [
  ...CATALOG_REPL_COMMANDS.filter((c) => READ_ONLY.some((r) => c.command.startsWith(r))),
  ...OPERATOR_REPL_COMMANDS,
  ...AUDIT_REPL_COMMANDS,
  ...CHECK_REPL_COMMANDS,
  ...TRADING_REPL_COMMANDS,
];

/** A refusal or failure as one readable line: code, message, the fields at fault. */
export function errorLine(err: unknown): string {
  const e = (err ?? {}) as { type?: unknown; message?: unknown; data?: unknown };
  const data = e.data as { fields?: Array<{ field?: string; rule?: string }> } | Array<{ field?: string; type?: string }> | undefined;
  const list = Array.isArray(data)
    ? data.map((f) => `${f.field}: ${f.type}`)
    : Array.isArray(data?.fields)
      ? data.fields.map((f) => `${f.field}: ${f.rule}`)
      : [];
  const code = typeof e.type === "string" && e.type ? `${e.type}: ` : "";
  const message = typeof e.message === "string" && e.message ? e.message : String(err);
  return `Error ${code}${message}${list.length ? ` [${list.join(", ")}]` : ""}`;
}

/** The commands as moleculer-repl runs them: a thrown error is printed as one line, not a stack. */
export function forRepl(commands: ReplCommand[], printError: (line: string) => void = (l) => console.error(l)): ReplCommand[] {
  return commands.map((c) => ({
    ...c,
    async action(broker, args) {
      try {
        return await c.action(broker, args);
      } catch (err) {
        printError(errorLine(err));
        return undefined;
      }
    },
  }));
}

/** A node with no services that joins the exchange running on `dataDir` through its operator socket. */
export function attachedBroker(dataDir: string, logLevel: string | false = "warn"): ServiceBroker | null {
  if (!DataDirLock.isHeld(dataDir)) return null;
  const holder = readHolder(dataDir);
  if (!holder) return null;
  return new ServiceBroker({
    namespace: "pmx",
    nodeID: `repl-${hostname()}-${process.pid}`,
    transporter: new LocalSocketTransporter({ path: holder.socket, mode: "join" }),
    logger: logLevel === false ? false : { type: "Console", options: { level: logLevel, formatter: "short" } },
    heartbeatInterval: 1,
    heartbeatTimeout: 3,
    requestTimeout: 60_000,
  });
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  let broker: ServiceBroker;
  const attached = cfg.transporter ? null : attachedBroker(cfg.dataDir);
  if (cfg.transporter) {
    broker = new ServiceBroker({ ...createBrokerOptions(cfg), nodeID: `repl-${hostname()}-${process.pid}` });
    bindConfig(broker, cfg);
  } else if (attached) {
    broker = attached;
    console.log(`Joined the exchange running on ${cfg.dataDir} (process ${readHolder(cfg.dataDir)?.pid}).`);
  } else {
    broker = createNode(cfg);
    stopOnSignals(broker);
  }
  broker.options.replCommands = forRepl(REPL_COMMANDS);
  await broker.start();
  if (cfg.transporter || attached)
    await broker
      .waitForServices(["catalog", "ledger"], 10_000)
      .catch(() => broker.logger.warn("The exchange's catalog and ledger are not reachable yet"));
  broker.repl();
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
