import type { ServiceBroker } from "moleculer";

/** The exchange's own Prometheus metrics, beside Moleculer's built-in ones. */
export const METRIC = {
  orders: "pmx_orders_total",
  fills: "pmx_fills_total",
  commandLatency: "pmx_market_command_duration_ms",
  queueDepth: "pmx_market_queue_depth",
  deposits: "pmx_deposits_credited_total",
  settlementLag: "pmx_settlement_lag_seconds",
  socketWrites: "pmx_socket_fanout_writes_total",
  socketRefused: "pmx_socket_refused_total",
} as const;

/** Registered on every node; on a node that never touches one of them it simply stays at zero. */
export function registerExchangeMetrics(broker: ServiceBroker): void {
  const m = broker.metrics;
  if (!m.isEnabled()) return;
  m.register({
    type: "counter",
    name: METRIC.orders,
    labelNames: ["kind", "result"],
    description: "Orders and market trades by kind (limit, amm, route) and result",
  });
  m.register({ type: "counter", name: METRIC.fills, labelNames: ["kind"], description: "Fills by kind (transfer, mint, merge, amm)" });
  m.register({
    type: "histogram",
    name: METRIC.commandLatency,
    labelNames: ["command"],
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250],
    description: "Time of a market command inside its actor, ms",
  });
  m.register({ type: "gauge", name: METRIC.queueDepth, labelNames: ["marketId"], description: "Commands waiting for a market's actor" });
  m.register({ type: "counter", name: METRIC.deposits, description: "On-chain deposits credited" });
  m.register({
    type: "counter",
    name: METRIC.socketWrites,
    labelNames: ["path"],
    description:
      "Socket pushes written straight to the websocket through ws's send (websocket) or through engine.io's write (engine-io: polling, engine.io busy, or SOCKET_DIRECT_WRITES=false)",
  });
  m.register({
    type: "counter",
    name: METRIC.socketRefused,
    labelNames: ["reason"],
    description:
      "Socket connections cut for not reading (slow_reader: SOCKET_MAX_BUFFER_BYTES unsent) or refused at the handshake (per_address: SOCKET_MAX_PER_ADDRESS)",
  });
  m.register({
    type: "histogram",
    name: METRIC.settlementLag,
    buckets: [1, 2, 5, 10, 30, 60, 300, 900],
    description: "Seconds from a trade to its on-chain settlement",
  });
}
