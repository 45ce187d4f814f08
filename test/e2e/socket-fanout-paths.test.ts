/**
 * The fan-out's two write paths (gateway/socket-direct.ts): with the installed socket.io / engine.io
 * / ws, websocket clients (opened on a websocket or upgraded from polling) get their pushes straight
 * through ws's send (counted by the metric, so an upgrade that loses the way fails here instead of
 * silently costing CPU), and SOCKET_DIRECT_WRITES=false, engine.io's write only, gives every client
 * exactly the same message stream.
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
/** Every order of the scenario changes both books and the prices: one message per room. */
const messagesPerOrder = (c: (typeof FANOUT_CLIENTS)[number]) => c.books.length + (c.market ? 1 : 0);

describe("socket fan-out write paths: straight to the websocket vs engine.io's write", () => {
  const runs: Partial<Record<"direct" | "engineIo", FanoutRun>> = {};
  const servers: TestServer[] = [];

  beforeAll(async () => {
    // The same scenario against a server of each setting, one after the other.
    for (const [key, env] of [
      ["direct", {}],
      ["engineIo", { SOCKET_DIRECT_WRITES: "false" }],
    ] as const) {
      const { srv, metricsUrl } = await startFanoutServer(env);
      servers.push(srv);
      runs[key] = await runFanoutScenario(srv, metricsUrl);
    }
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  // Per order every client gets one write (the messages of all its rooms) and one pong.
  const writes = FANOUT_ORDERS.length * 2 * FANOUT_CLIENTS.length;

  test("with the installed libraries, websocket clients (opened or upgraded) get their pushes through ws's send (default setting)", () => {
    const m = runs.direct!.metrics;
    const direct = metricValue(m, WRITES, { path: "websocket" });
    const engineIo = metricValue(m, WRITES, { path: "engine-io" });
    const onWebsocket = FANOUT_ORDERS.length * 2 * FANOUT_CLIENTS.filter((c) => c.transport !== "polling").length;
    expect(direct + engineIo).toBe(writes);
    // Polling clients always go through engine.io; a websocket write that meets engine.io busy
    // does too (kept in order behind it), so nearly all, not all, of theirs are direct.
    expect(engineIo).toBeGreaterThanOrEqual(writes - onWebsocket);
    expect(direct).toBeGreaterThanOrEqual(onWebsocket / 2);
  });

  test("SOCKET_DIRECT_WRITES=false: nothing goes straight to a websocket, every push goes through engine.io", () => {
    const m = runs.engineIo!.metrics;
    expect(metricValue(m, WRITES, { path: "websocket" })).toBe(0);
    expect(metricValue(m, WRITES, { path: "engine-io" })).toBe(writes);
  });

  test("both paths give every client exactly the same message stream (events, payloads, order)", () => {
    const on = runs.direct!.streams;
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
