/**
 * The embedded server as `npm start` runs it (`node dist/server.js`, real process, real data dir):
 * a healthy start, restart and stop say nothing at WARN or above, and each service stops once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SERVICES } from "../../lib/config";
import { freePort } from "../support/redis";
import { ServerProcess } from "../support/server-process";

jest.setTimeout(120_000);

const stoppedLines = (out: string, name: string) => out.split("\n").filter((l) => l.includes(`Service '${name}' stopped.`)).length;

describe("embedded server process: start and stop", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-life-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function runOnce(): Promise<ServerProcess> {
    const port = await freePort();
    const srv = ServerProcess.start({ PORT: String(port), HOST: "127.0.0.1", DATA_DIR: join(dir, "data") });
    try {
      await srv.waitFor(`http://127.0.0.1:${port}/health`);
      // Work that touches the services the notifier and the chain poll (ledger, catalog).
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/events`)).status).toBe(200);
      const end = Date.now() + 20_000;
      while (!srv.output.includes("sandbox chain") && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    } finally {
      expect(await srv.stop()).toBe(0);
    }
    return srv;
  }

  test("first start on an empty data dir, then a restart on it: no warning, every service stopped once", async () => {
    for (const run of ["first start", "restart"]) {
      const srv = await runOnce();
      expect({ run, warnings: srv.warnings() }).toEqual({ run, warnings: [] });
      for (const name of ["$node", ...ALL_SERVICES]) expect({ run, name, stopped: stoppedLines(srv.output, name) }).toEqual({ run, name, stopped: 1 });
      expect(srv.output).toContain("ServiceBroker is stopped. Good bye.");
    }
  });
});
