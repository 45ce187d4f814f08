/**
 * One fixed socket fan-out scenario against a started server, for comparing the fan-out's write
 * paths (SOCKET_DIRECT_WRITES, gateway/socket-direct.ts): websocket, polling and upgraded clients in several
 * combinations of one market's rooms, a fixed list of orders that each change both books and the
 * prices, every change delivered to every client before the next order, and a ping after each so
 * the pongs (written by the same code) sit at fixed places. Returns each client's whole message
 * stream (the market id replaced by a placeholder) and the server's /metrics text.
 */
import { isDeepStrictEqual } from "node:util";
import { freePort } from "./redis";
import { startServer, type TestServer } from "./server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "./trading";
import { connectSocket, type Msg, type TestSocket } from "./socket";

type Outcome = "YES" | "NO";
type Levels = { bids: Array<{ price: string }>; asks: Array<{ price: string }> };

interface ClientSpec {
  name: string;
  /** upgraded: starts on long-polling, subscribes once engine.io has upgraded it to a websocket. */
  transport: "websocket" | "polling" | "upgraded";
  market: boolean;
  books: Outcome[];
}

/** Three websocket clients of each room combination, and polling clients beside them. */
export const FANOUT_CLIENTS: ClientSpec[] = [
  ...[0, 1, 2].flatMap((i): ClientSpec[] => [
    { name: `ws-all-${i}`, transport: "websocket", market: true, books: ["YES", "NO"] },
    { name: `ws-yes-${i}`, transport: "websocket", market: false, books: ["YES"] },
    { name: `ws-market-${i}`, transport: "websocket", market: true, books: [] },
    { name: `ws-no-market-${i}`, transport: "websocket", market: true, books: ["NO"] },
  ]),
  { name: "polling-all", transport: "polling", market: true, books: ["YES", "NO"] },
  { name: "polling-yes", transport: "polling", market: false, books: ["YES"] },
  { name: "upgraded-all", transport: "upgraded", market: true, books: ["YES", "NO"] },
  { name: "upgraded-yes", transport: "upgraded", market: false, books: ["YES"] },
];

/** Each order is a new best bid (YES) or best ask (NO at q = YES ask 1-q) of the market. */
export const FANOUT_ORDERS: Array<[Outcome, number]> = [
  ["YES", 0.2],
  ["NO", 0.3],
  ["YES", 0.21],
  ["NO", 0.31],
  ["YES", 0.22],
  ["YES", 0.23],
];

export interface FanoutRun {
  /** Client name -> its messages in arrival order, as JSON with the market id replaced. */
  streams: Record<string, string[]>;
  metrics: string;
}

const TIMEOUT = 15_000;

/** A server with Prometheus metrics on a port of its own (and `env`), for `runFanoutScenario`. */
export async function startFanoutServer(env: Record<string, string> = {}): Promise<{ srv: TestServer; metricsUrl: string }> {
  const port = await freePort();
  const srv = await startServer({
    ADMIN_KEY,
    RATE_LIMIT_TRADE: "10000",
    RATE_LIMIT_READ: "10000",
    SOCKET_IDLE_TIMEOUT_MS: "120000",
    METRICS: "true",
    METRICS_PORT: String(port),
    ...env,
  });
  return { srv, metricsUrl: `http://127.0.0.1:${port}/metrics` };
}

export async function runFanoutScenario(srv: TestServer, metricsUrl: string): Promise<FanoutRun> {
  const marketId = await createMarket(srv, "Fan-out path market");
  const makers = [await srv.login(), await srv.login()];
  for (const m of makers) await fund(srv.broker, m.userId, 1000 * SHARE);

  const clients: Array<ClientSpec & { s: TestSocket }> = [];
  try {
    // One subscription at a time, each answered before the next: the streams start the same.
    for (const spec of FANOUT_CLIENTS) {
      const s = await connectSocket(srv.url, { transports: spec.transport === "upgraded" ? ["polling", "websocket"] : [spec.transport] });
      if (spec.transport === "upgraded") {
        const engine = s.socket.io.engine;
        if (engine.transport.name !== "websocket") await new Promise<void>((resolve) => engine.once("upgrade", () => resolve()));
      }
      clients.push({ ...spec, s });
      if (spec.market) {
        s.subscribe({ channel: "market", marketIds: [marketId] });
        await s.waitFor((m) => m.type === "subscribed" && m.channel === "market", { timeoutMs: TIMEOUT });
      }
      for (const outcome of spec.books) {
        s.subscribe({ channel: "book", marketId, outcome });
        await s.waitFor((m) => m.type === "subscribed" && m.channel === "book" && m.outcome === outcome, { timeoutMs: TIMEOUT });
      }
    }

    const levels = (d: Levels) => ({ bids: d.bids, asks: d.asks });
    for (const [i, [outcome, price]] of FANOUT_ORDERS.entries()) {
      const marks = clients.map((c) => c.s.messages.length);
      const res = await srv.http("POST", "/api/v1/orders", {
        token: makers[i % 2].token,
        body: { marketId, side: "BUY", outcome, orderType: "GTC", price, quantity: SHARE },
      });
      if (res.status !== 200) throw new Error(`order failed: ${res.status} ${JSON.stringify(res.body)}`);
      const book: Record<Outcome, Levels> = {
        YES: levels((await srv.http("GET", `/api/v1/markets/${marketId}/orderbook?outcome=YES`)).body.data),
        NO: levels((await srv.http("GET", `/api/v1/markets/${marketId}/orderbook?outcome=NO`)).body.data),
      };
      const sellYes = book.YES.bids[0]?.price ?? null;
      const buyYes = book.YES.asks[0]?.price ?? null;
      // Every client has this change on each of its channels before anything else happens.
      await Promise.all(
        clients.map(async (c, k) => {
          for (const o of c.books)
            await c.s.waitFor(
              (m) => m.type === "update" && m.channel === "book" && m.outcome === o && isDeepStrictEqual(levels(m.data), book[o]),
              { from: marks[k], timeoutMs: TIMEOUT },
            );
          if (c.market)
            await c.s.waitFor(
              (m) => m.type === "update" && m.channel === "market" && m.data.sellYesPrice === sellYes && m.data.buyYesPrice === buyYes,
              { from: marks[k], timeoutMs: TIMEOUT },
            );
          await c.s.sync();
        }),
      );
    }
    const streams: Record<string, string[]> = {};
    for (const c of clients) streams[c.name] = c.s.messages.map((m: Msg) => JSON.stringify(m).split(marketId).join("<market>"));
    const metrics = await (await fetch(metricsUrl)).text();
    return { streams, metrics };
  } finally {
    for (const c of clients) c.s.close();
  }
}

/** A Prometheus sample of `name` whose labels include every one of `labels` (0 when absent). */
export function metricValue(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split("\n")) {
    const m = line.match(/^([a-z_]+)\{([^}]*)\} ([0-9.e+-]+)$/);
    if (!m || m[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => m[2].split(",").includes(`${k}="${v}"`))) return Number(m[3]);
  }
  return 0;
}
