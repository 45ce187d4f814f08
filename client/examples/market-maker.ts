/**
 * A small market maker on the SDK: it quotes both sides of one market around the middle of the
 * book (the price the exchange shows, AMM included, while a side is empty), re-quotes when a book
 * update from the socket moves it (one mass quote,
 * POST /quotes: the previous pair is replaced by the new one atomically, or stays), keeps a dead
 * man's switch armed (if this process dies, the exchange cancels its orders within 30 s), puts its
 * quotes in an order group (a burst of fills past 3 quotes' size in 15 s cancels them all; it
 * waits a minute, resets the group and quotes again), paces itself to the trade budget of its
 * rate tier, and on SIGINT withdraws its quotes, deletes the group and disarms.
 *
 *   PMX_URL=http://localhost:3000 PMX_MARKET=mkt_... PMX_SEED=<64 hex> npx tsx client/examples/market-maker.ts
 *
 * MM_HALF_SPREAD (ticks each side of the fair price, default 2) and MM_SIZE (shares per quote,
 * default 10) tune it. On the sandbox chain, `trade faucet` funds the wallet first.
 */
import {
  ApiError,
  keyPairFromSeed,
  PmxClient,
  priceToTick,
  randomKeyPair,
  tickToPriceNumber,
  toMicro,
  type BookState,
  type MassQuoteRequest,
} from "../src";

const url = process.env.PMX_URL ?? "http://localhost:3000";
const marketId = process.env.PMX_MARKET ?? "";
const halfSpread = Number(process.env.MM_HALF_SPREAD ?? 2);
const size = Number(toMicro(process.env.MM_SIZE ?? "10"));

/**
 * The fair YES tick: the middle of the book's best YES prices as the socket last showed them, else
 * of the best prices the exchange shows for the market (book and AMM; cached up to 5 s), else 50.
 */
async function fairTick(client: PmxClient, book: BookState | null): Promise<number> {
  if (book?.synced && book.bids.length && book.asks.length)
    return Math.round((priceToTick(book.bids[0].price) + priceToTick(book.asks[0].price)) / 2);
  const m = await client.markets.get(marketId);
  const buy = m.buyYesPrice ? priceToTick(m.buyYesPrice) : null;
  const sell = m.sellYesPrice ? priceToTick(m.sellYesPrice) : null;
  if (buy !== null && sell !== null) return Math.round((buy + sell) / 2);
  return buy ?? sell ?? 50;
}

/**
 * The quote set: a YES bid below the fair price and a YES ask above it (as a NO bid: no shares
 * needed), post-only so they never take, in the order group.
 */
function quoteSet(fair: number, orderGroupId: string): MassQuoteRequest {
  const bid = Math.min(98, Math.max(1, fair - halfSpread));
  const ask = Math.min(99, Math.max(bid + 1, fair + halfSpread));
  return {
    marketId,
    postOnly: true,
    orderGroupId,
    quotes: [
      { side: "BUY", outcome: "YES", price: tickToPriceNumber(bid), quantity: size },
      { side: "BUY", outcome: "NO", price: tickToPriceNumber(100 - ask), quantity: size },
    ],
  };
}

async function main(): Promise<void> {
  if (!marketId) throw new Error("PMX_MARKET is required");
  const client = new PmxClient({ baseUrl: url, retry: true });
  const seed = process.env.PMX_SEED;
  await client.auth.loginWithKeyPair(seed ? keyPairFromSeed(Buffer.from(seed, "hex")) : randomKeyPair());

  // The tier decides how often it may re-quote: one re-quote is one trade request.
  const limits = await client.portfolio.limits();
  const minGapMs = Math.ceil((limits.trade.windowSeconds * 1000) / limits.trade.limit);
  console.log(
    `tier ${limits.tier}: ${limits.trade.limit} trade requests per ${limits.trade.windowSeconds} s, re-quoting at most every ${minGapMs} ms`,
  );

  const keeper = client.heartbeats.keepAlive(30, { onError: (err) => console.error("heartbeat", err) });
  await keeper.ready;
  const { orderGroupId } = await client.orders.createGroup({ fillLimit: String(3 * size), windowSeconds: 15 });
  let pausedUntil = 0;

  let busy = false;
  let again = false;
  let lastMs = 0;
  let lastFair = -1;
  let latest: BookState | null = null;
  const requote = async (): Promise<void> => {
    if (busy) return void (again = true);
    busy = true;
    try {
      do {
        again = false;
        const wait = Math.max(lastMs + minGapMs, pausedUntil) - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const fair = await fairTick(client, latest);
        if (fair === lastFair) continue;
        lastMs = Date.now();
        lastFair = fair;
        try {
          // The previous pair is cancelled and the new one placed in one step: never both, never none.
          const set = await client.orders.quote(quoteSet(fair, orderGroupId));
          for (const o of set.orders) {
            const { scoring, reason } = await client.orders.scoring(o.orderId);
            console.log(`quoted ${o.orderId} (${scoring ? "earning rewards" : `not scoring: ${reason}`})`);
          }
        } catch (err) {
          lastFair = -1;
          if (err instanceof ApiError && err.code === "POST_ONLY_WOULD_CROSS") continue; // the book moved: the next update re-quotes
          if (!(err instanceof ApiError) || err.code !== "ORDER_GROUP_TRIGGERED") throw err;
          // Filled too fast: the exchange cancelled the group's quotes; step back, then quote again.
          console.log("order group triggered: pausing for a minute");
          pausedUntil = Date.now() + 60_000;
          await client.orders.resetGroup(orderGroupId);
          again = true;
        }
      } while (again);
    } catch (err) {
      console.error("re-quote failed", err);
    } finally {
      busy = false;
    }
  };

  const ws = client.socket();
  await ws.connect();
  const book = ws.subscribeBook(marketId, {
    onUpdate: (b: BookState) => {
      latest = b;
      if (b.synced) void requote();
    },
  });
  await requote();

  const stop = async (): Promise<void> => {
    console.log("stopping: withdrawing quotes");
    book.unsubscribe();
    ws.close();
    await client.orders.deleteGroup(orderGroupId).catch((err: unknown) => console.error("group delete failed", err));
    await client.orders.cancelQuotes(marketId).catch((err: unknown) => console.error("withdrawing the quotes failed", err));
    await keeper.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
