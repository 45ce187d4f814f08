/**
 * Operator console: `npm run repl`.
 * - TRANSPORTER set: a broker with no services of its own joins the cluster and calls its catalog;
 * - otherwise: a full embedded node (gateway included) runs in this process and the REPL drives it.
 * Besides moleculer-repl's own commands (`call`, `services`, ...), the catalog commands below call
 * the same actions as the operator HTTP API. (`events` is taken by moleculer-repl, which lists event
 * listeners, hence `list-events`.)
 */
import { hostname } from "node:os";
import { ServiceBroker } from "moleculer";
import { bindConfig, loadConfig } from "../lib/config";
import { createBrokerOptions } from "../moleculer.config";
import { createNode, stopOnSignals } from "../server";
import type { Page } from "../gateway/envelope";
import type { EventView, MarketView } from "../models/catalog";
import type { CreateEventParams, ListEventsParams } from "../services/catalog.service";

/** What moleculer-repl hands a custom command: named arguments plus `options` from flags. */
export interface ReplArgs {
  options: Record<string, unknown>;
  [arg: string]: unknown;
}

/** Only what the commands need from a broker, so tests pass a real one and nothing else. */
export interface ReplBroker {
  call<T, P>(action: string, params: P): Promise<T>;
}

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

function transitionCommand(command: string, action: string, description: string): ReplCommand {
  return {
    command: `${command} <marketId>`,
    description,
    async action(broker, args) {
      const market = await broker.call<MarketView, { id: string }>(action, { id: arg(args, "marketId") });
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
      const params: Partial<ListEventsParams> = { pageSize: 100 };
      if (typeof args.category === "string") params.category = args.category as ListEventsParams["category"];
      if (args.options.page !== undefined) params.page = Number(args.options.page);
      if (typeof args.options.search === "string") params.search = args.options.search;
      const res = await broker.call<Page<EventView>, Partial<ListEventsParams>>("catalog.listEvents", params);
      for (const e of res.items) console.log(`${e.id}  ${e.category.padEnd(9)}  ${e.beginAt}  ${e.title}`);
      console.log(`-- ${res.items.length} of ${res.pagination.total}`);
      return res;
    },
  },
  {
    command: "create-event <json>",
    description: `Create an event with markets, e.g. create-event '{"title":"...","category":"Sports","markets":[{"title":"...","ammLiquidity":"1000000000"}]}'`,
    async action(broker, args) {
      let params: CreateEventParams;
      try {
        params = JSON.parse(arg(args, "json")) as CreateEventParams;
      } catch (err) {
        throw new Error(`<json> is not valid JSON (quote it with single quotes): ${(err as Error).message}`);
      }
      const event = await broker.call<EventView, CreateEventParams>("catalog.createEvent", params);
      show(event);
      return event;
    },
  },
  transitionCommand("close", "catalog.closeMarket", "Close a market to trading (open -> closed)"),
  transitionCommand("cancel", "catalog.cancelMarket", "Cancel a market (open|closed -> cancelled)"),
  {
    command: "resolve <marketId> <result>",
    description: "Resolve a market YES or NO (also retries after resolution_failed)",
    async action(broker, args) {
      const result = arg(args, "result").toUpperCase();
      const market = await broker.call<MarketView, { id: string; result: string }>("catalog.resolveMarket", { id: arg(args, "marketId"), result });
      show(market);
      return market;
    },
  },
];

async function main(): Promise<void> {
  const cfg = loadConfig();
  let broker: ServiceBroker;
  if (cfg.transporter) {
    broker = new ServiceBroker({ ...createBrokerOptions(cfg), nodeID: `repl-${hostname()}-${process.pid}` });
    bindConfig(broker, cfg);
  } else {
    broker = createNode(cfg);
    stopOnSignals(broker);
  }
  broker.options.replCommands = CATALOG_REPL_COMMANDS;
  await broker.start();
  if (cfg.transporter) await broker.waitForServices(["catalog"], 10_000).catch(() => broker.logger.warn("No catalog service in the cluster yet"));
  broker.repl();
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
