/**
 * A ServiceBroker as the services' tests build it: the contract's validator, a configuration from
 * test defaults (storage in memory, no demo seed, no logs) under the test's own settings, and the
 * services given; plus a listener service that keeps what the broker announces, in order.
 */
import { ServiceBroker, type BrokerOptions, type Context, type Middleware, type ServiceSchema } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";

export interface Heard {
  name: string;
  params: Record<string, unknown>;
}

const TEST_ENV: Record<string, string> = { DATA_DIR: ":memory:", JWT_SECRET: "x", LOG_LEVEL: "false", SEED_DEMO: "false" };

/** Created with its services, not started. */
export function serviceBroker(env: Record<string, string>, services: ServiceSchema[], options: BrokerOptions = {}): ServiceBroker {
  const broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS }, ...options });
  bindConfig(broker, loadConfig({ ...TEST_ENV, ...env }));
  for (const s of services) broker.createService(s);
  return broker;
}

/** A service that pushes each of `events` it hears onto `heard`. */
export function listenerOf(events: readonly string[], heard: Heard[]): ServiceSchema {
  return {
    name: "listener",
    events: Object.fromEntries(
      events.map((name) => [name, (ctx: Context<Record<string, unknown>>) => void heard.push({ name, params: ctx.params })]),
    ),
  };
}

/** The ledger and the book on one broker with market routing, beside a catalog that knows every market open. */
export function bookBroker(env: Record<string, string>, ledger: ServiceSchema, book: ServiceSchema, routing: Middleware): ServiceBroker {
  const catalog: ServiceSchema = { name: "catalog", actions: { getMarketInternal: () => ({ status: "open" }), marketTitles: () => ({}) } };
  return serviceBroker(env, [ledger, book, catalog], { middlewares: [routing] });
}

/** Each user funded with `amount` micro-units through a journaled deposit entry. */
export async function fund(broker: ServiceBroker, users: readonly string[], amount: number): Promise<void> {
  for (const u of users)
    await broker.call("ledger.post", {
      key: `dep:${u}`,
      postings: [
        { kind: "cash", account: u, available: amount },
        { kind: "external", flow: "deposit", amount },
      ],
    });
}
