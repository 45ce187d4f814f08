/**
 * An engine.io / ws upgrade that takes away what the shared-frame write needs: the gateway says so
 * once (naming the versions), reports the public path in its metrics and still gives every client
 * the same stream. The upgrade is simulated where the gateway looks for it (gateway/socket-frames.ts):
 * the library shapes seen at start, or the first websocket connection's fields; the real libraries
 * stay as they are (removing ws's sendFrame for real would break ws itself).
 */
import type * as Frames from "../../gateway/socket-frames";
import type { TestServer } from "../support/server";
import { metricValue, runFanoutScenario, startFanoutServer, type FanoutRun } from "../support/fanout-scenario";

let mockUpgrade: "none" | "start" | "connection" = "none";

jest.mock("../../gateway/socket-frames", () => {
  const real = jest.requireActual<typeof Frames>("../../gateway/socket-frames");
  return {
    ...real,
    // A ws whose Sender lost sendFrame, with the real versions (what the warning must name).
    installedFrameLibs: (): Frames.FrameLibs => {
      const libs = real.installedFrameLibs();
      return mockUpgrade === "start" ? { ...libs, ws: { Sender: { prototype: {} } } } : libs;
    },
    // A ws socket whose `_sender` was renamed: the connection check sees no `_sender.sendFrame`.
    missingOnConnection: (conn: Frames.EngineConn) => {
      const t = conn.transport;
      return mockUpgrade === "connection" && t.name === "websocket"
        ? real.missingOnConnection({
            ...conn,
            transport: { name: t.name, writable: t.writable, socket: t.socket && { readyState: t.socket.readyState } },
          })
        : real.missingOnConnection(conn);
    },
  };
});

const WRITES = "pmx_socket_fanout_writes_total";
const PATH = "pmx_socket_fanout_path";

describe("socket fan-out after an engine.io/ws upgrade without the shared-frame write", () => {
  const runs: Partial<Record<typeof mockUpgrade, FanoutRun>> = {};
  const warnings: Partial<Record<typeof mockUpgrade, string[]>> = {};
  const servers: TestServer[] = [];

  beforeAll(async () => {
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      for (const upgrade of ["none", "start", "connection"] as const) {
        mockUpgrade = upgrade;
        warn.mockClear();
        const { srv, metricsUrl } = await startFanoutServer({ LOG_LEVEL: "warn" });
        servers.push(srv);
        runs[upgrade] = await runFanoutScenario(srv, metricsUrl);
        warnings[upgrade] = warn.mock.calls.map((args) => args.map(String).join(" ")).filter((line) => line.includes("Socket fan-out"));
      }
    } finally {
      mockUpgrade = "none";
      warn.mockRestore();
    }
  }, 180_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  test("with the installed libraries as they are: no warning, the shared-frame write", () => {
    expect(warnings.none).toEqual([]);
    expect(metricValue(runs.none!.metrics, PATH, { path: "shared-frame", reason: "available" })).toBe(1);
    expect(metricValue(runs.none!.metrics, WRITES, { path: "shared-frame" })).toBeGreaterThan(0);
  });

  for (const upgrade of ["start", "connection"] as const) {
    const where = upgrade === "start" ? "at start (ws Sender.prototype.sendFrame)" : "on the first websocket (_sender.sendFrame)";
    test(`missing ${where}: one warning naming the versions and the public path, metrics say engine-io, same streams`, () => {
      expect(warnings[upgrade]).toHaveLength(1);
      expect(warnings[upgrade]![0]).toMatch(/engine\.io \d+\.\d+\.\d+, ws \d+\.\d+\.\d+/);
      expect(warnings[upgrade]![0]).toMatch(upgrade === "start" ? /Sender\.prototype\.sendFrame/ : /_sender\.sendFrame/);
      expect(warnings[upgrade]![0]).toMatch(/engine\.io's public conn\.write/);
      const m = runs[upgrade]!.metrics;
      expect(metricValue(m, PATH, { path: "engine-io", reason: "unsupported" })).toBe(1);
      expect(metricValue(m, PATH, { path: "shared-frame" })).toBe(0);
      expect(metricValue(m, WRITES, { path: "shared-frame" })).toBe(0);
      expect(metricValue(m, WRITES, { path: "engine-io" })).toBeGreaterThan(0);
      expect(runs[upgrade]!.streams).toEqual(runs.none!.streams);
    });
  }
});
