/** SIDE_NODE and the split of an embedded process's services between its main node and its side node (lib/config.ts). */
import { loadConfig, sideNodeSplit } from "../../lib/config";

const cfg = (env: Record<string, string>) => loadConfig({ DATA_DIR: ":memory:", ...env });

describe("SIDE_NODE", () => {
  test("thread unless set to off; anything else stops the start naming it", () => {
    expect(cfg({}).sideNode).toBe("thread");
    expect(cfg({ SIDE_NODE: "off" }).sideNode).toBe("off");
    expect(cfg({ SIDE_NODE: "thread" }).sideNode).toBe("thread");
    expect(() => cfg({ SIDE_NODE: "process" })).toThrow('SIDE_NODE must be thread or off, got "process"');
  });

  test("thread: the order path stays on the main node, the catalog, notifier and chain go to the side node", () => {
    const split = sideNodeSplit(cfg({ SIDE_NODE: "thread" }));
    expect(split?.main.services).toEqual(["api", "auth", "book", "amm", "router", "ledger"]);
    expect(split?.side.services).toEqual(["catalog", "chain", "notifier"]);
    // Everything else is the process's configuration as it was given.
    expect(split?.side.dataDir).toBe(":memory:");
  });

  test("no split when off, scaled out, or when a node would be left empty", () => {
    expect(sideNodeSplit(cfg({ SIDE_NODE: "off" }))).toBeNull();
    expect(sideNodeSplit(cfg({ SIDE_NODE: "thread", TRANSPORTER: "nats://127.0.0.1:4222", JWT_SECRET: "x".repeat(64) }))).toBeNull();
    expect(sideNodeSplit(cfg({ SIDE_NODE: "thread", SERVICES: "api,auth,ledger,engine" }))).toBeNull();
    expect(sideNodeSplit(cfg({ SIDE_NODE: "thread", SERVICES: "catalog,notifier" }))).toBeNull();
    expect(sideNodeSplit(cfg({ SIDE_NODE: "thread", SERVICES: "api,catalog" }))).toMatchObject({
      main: { services: ["api"] },
      side: { services: ["catalog"] },
    });
  });
});
