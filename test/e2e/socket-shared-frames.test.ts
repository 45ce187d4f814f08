/**
 * The fan-out's two write paths (gateway/socket-frames.ts): with the installed engine.io/ws the
 * shared-frame write is what websocket clients get (counted by the metric, so an upgrade that
 * loses it fails here instead of silently costing CPU), and SOCKET_SHARED_FRAMES=false, engine.io's
 * public write only, gives every client exactly the same message stream.
 */
import type { TestServer } from "../support/server";
import {
  FANOUT_CLIENTS,
  FANOUT_ORDERS,
  metricValue,
  runFanoutScenario,
  startFanoutServer,
  type FanoutRun,
} from "../support/fanout-scenario";

const WRITES = "pmx_socket_fanout_writes_total";
const PATH = "pmx_socket_fanout_path";
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** Every order of the scenario changes both books and the prices: one message per room. */
const messagesPerOrder = (c: (typeof FANOUT_CLIENTS)[number]) => c.books.length + (c.market ? 1 : 0);

describe("socket fan-out write paths: shared frame vs engine.io's public write", () => {
  const runs: Partial<Record<"shared" | "engineIo", FanoutRun>> = {};
  const servers: TestServer[] = [];

  beforeAll(async () => {
    // The same scenario against a server of each setting, one after the other.
    for (const [key, env] of [
      ["shared", {}],
      ["engineIo", { SOCKET_SHARED_FRAMES: "false" }],
    ] as const) {
      const { srv, metricsUrl } = await startFanoutServer(env);
      servers.push(srv);
      runs[key] = await runFanoutScenario(srv, metricsUrl);
    }
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  test("with the installed engine.io and ws, websocket clients get the shared-frame write (default setting)", () => {
    const m = runs.shared!.metrics;
    expect(metricValue(m, PATH, { path: "shared-frame", reason: "available" })).toBe(1);
    expect(metricValue(m, PATH, { path: "engine-io", reason: "unsupported" })).toBe(0);
    // Per order a websocket client gets its messages as one merged write, then a pong; a polling
    // client gets each message and the pong through engine.io. A merged write that meets engine.io
    // busy goes through it too, counted once: the total is exact either way.
    const shared = metricValue(m, WRITES, { path: "shared-frame" });
    const engineIo = metricValue(m, WRITES, { path: "engine-io" });
    const wsWrites = FANOUT_ORDERS.length * 2 * FANOUT_CLIENTS.filter((c) => c.transport === "websocket").length;
    const pollingWrites =
      FANOUT_ORDERS.length * sum(FANOUT_CLIENTS.filter((c) => c.transport === "polling").map((c) => messagesPerOrder(c) + 1));
    expect(shared + engineIo).toBe(wsWrites + pollingWrites);
    // Nearly all of the websocket writes bypass engine.io (all of them on a quiet machine).
    expect(shared).toBeGreaterThanOrEqual(wsWrites / 2);
  });

  test("SOCKET_SHARED_FRAMES=false: nothing is written as a shared frame, every push goes through engine.io", () => {
    const m = runs.engineIo!.metrics;
    expect(metricValue(m, PATH, { path: "engine-io", reason: "setting" })).toBe(1);
    expect(metricValue(m, PATH, { path: "shared-frame" })).toBe(0);
    expect(metricValue(m, WRITES, { path: "shared-frame" })).toBe(0);
    // One engine.io write per message and per pong, whatever the transport.
    expect(metricValue(m, WRITES, { path: "engine-io" })).toBe(
      FANOUT_ORDERS.length * sum(FANOUT_CLIENTS.map((c) => messagesPerOrder(c) + 1)),
    );
  });

  test("both paths give every client exactly the same message stream (events, payloads, order)", () => {
    const on = runs.shared!.streams;
    const off = runs.engineIo!.streams;
    expect(Object.keys(off).sort()).toEqual(FANOUT_CLIENTS.map((c) => c.name).sort());
    for (const c of FANOUT_CLIENTS) {
      // Not vacuous: every change reached the client on each of its channels, and its pongs.
      const updates = on[c.name].filter((j) => j.includes('"type":"update"')).length;
      expect({ client: c.name, updates }).toEqual({ client: c.name, updates: FANOUT_ORDERS.length * messagesPerOrder(c) });
      expect(on[c.name].filter((j) => j === '{"type":"pong"}').length).toBe(FANOUT_ORDERS.length);
      expect({ client: c.name, stream: off[c.name] }).toEqual({ client: c.name, stream: on[c.name] });
    }
  });
});
