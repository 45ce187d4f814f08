/**
 * The demo's house maker on the broker (what it does: catalog/demo-maker.ts): once per data store,
 * on the start that seeded the demo catalog, on the sandbox chain only, its cash from the faucet
 * and its trades through the same actions as a trader's requests. Broker glue only; a failure is
 * logged and leaves the markets at 0.50, never stops the start.
 */
import type { LoggerInstance, ServiceBroker } from "moleculer";
import { DEMO_EVENTS } from "../catalog/demo";
import { DEMO_MAKER, DEMO_MAKER_MARKER_ID, demoMakerPlan, type MakerStep } from "../catalog/demo-maker";
import { call } from "../contract";
import { configOf } from "../lib/config";
import type { Stores } from "../lib/store";
import type { CatalogCollections } from "../models/catalog";
import { stopRequested } from "./before-stop.middleware";

/** A market's book is loaded on its `market.opened`, the chain a moment after the start: each step is tried again meanwhile. */
const ATTEMPTS = 100;
const RETRY_MS = 200;
/** Headroom over the plan's cash (fees on the bids' lock). */
const CASH_MARGIN = 1.05;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runDemoMaker(broker: ServiceBroker, stores: () => Stores<CatalogCollections>, logger: LoggerInstance): Promise<void> {
  const registry = broker.registry as unknown as { hasService(fullName: string): boolean };
  const cfg = configOf(broker);
  if (cfg.chain !== "sandbox" || !["chain", "book", "amm", "ledger"].every((s) => registry.hasService(s))) return;
  const claimed = await stores().catalogMeta.insertOnce({
    _id: DEMO_MAKER_MARKER_ID,
    done: false,
    claimedBy: broker.nodeID,
    at: new Date().toISOString(),
  });
  if (!claimed) return;
  const { steps, cash } = demoMakerPlan(DEMO_EVENTS, cfg.ammFeeBps);
  const as = { meta: { user: { id: DEMO_MAKER } } };
  const retried = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    for (let i = 1; ; i++) {
      try {
        return await fn();
      } catch (err) {
        if (i >= ATTEMPTS || stopRequested(broker)) throw new Error(`${what}: ${(err as Error).message}`);
        await sleep(RETRY_MS);
      }
    }
  };
  try {
    let need = Math.ceil(cash * CASH_MARGIN);
    while (need > 0) {
      const amount = Math.min(need, cfg.ton.faucetMaxUsdt);
      await retried("faucet", () => call(broker, "chain.faucet", { amount: String(amount), asset: "USDT" }, as));
      need -= amount;
      if (stopRequested(broker)) return logger.info("Demo maker: stopped with the node before it finished");
    }
    for (const s of steps) {
      if (stopRequested(broker)) return logger.info("Demo maker: stopped with the node before it finished");
      await retried(`${s.kind} on ${s.marketId}`, () => step(broker, s, as));
    }
    await stores().catalogMeta.update({ _id: DEMO_MAKER_MARKER_ID }, { $set: { done: true, at: new Date().toISOString() } });
    logger.info(`Demo maker: ${steps.length} markets opened at their demo prices`);
  } catch (err) {
    logger.warn(`Demo maker stopped; the markets it did not reach stay at 0.50: ${(err as Error).message}`);
  }
}

function step(broker: ServiceBroker, s: MakerStep, as: { meta: object }): Promise<unknown> {
  // One key per step: a step tried again after an answer was lost does not trade twice.
  const opts = { meta: { ...as.meta, idempotencyKey: `demo-maker:${s.kind}:${s.marketId}:${s.outcome}` } };
  if (s.kind === "amm")
    return call(broker, "amm.trade", { marketId: s.marketId, side: "BUY", outcome: s.outcome, quantity: String(s.quantity) }, opts);
  return call(
    broker,
    "book.place",
    { marketId: s.marketId, side: "BUY", outcome: s.outcome, orderType: "GTC", price: s.price / 100, quantity: s.quantity },
    opts,
  );
}
