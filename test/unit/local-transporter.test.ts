/**
 * The embedded hub (lib/local-transporter.ts): a node in another thread joined through a
 * MessagePort and a tool joined through the socket reach the hub's services and each other's, and
 * what one node sends another arrives in the order it was sent (an event before the request that
 * reads what it recorded). The packets one turn of the event loop sends over the MessagePort go as
 * one message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageChannel } from "node:worker_threads";
import { ServiceBroker, type Context } from "moleculer";
import { LocalSocketTransporter } from "../../lib/local-transporter";
import { until } from "../support/until";

jest.setTimeout(60_000);

function node(nodeID: string, transporter: LocalSocketTransporter): ServiceBroker {
  return new ServiceBroker({ namespace: "lt", nodeID, transporter, logger: false, heartbeatInterval: 1, heartbeatTimeout: 3 });
}

describe("local transporter: hub, side node over a MessagePort, tool over the socket", () => {
  let dir: string;
  let hub: LocalSocketTransporter;
  let main: ServiceBroker;
  let side: ServiceBroker;
  let tool: ServiceBroker;
  const heardOnSide: string[] = [];
  const heardOnMain: string[] = [];
  /** Messages the hub posted to the side node's port. */
  let posts = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-lt-"));
    const path = join(dir, "hub.sock");
    hub = new LocalSocketTransporter({ path, mode: "hub" });
    const { port1, port2 } = new MessageChannel();
    const post = port1.postMessage.bind(port1);
    port1.postMessage = (...args: Parameters<typeof port1.postMessage>) => {
      posts++;
      post(...args);
    };
    hub.attachPort(port1);
    main = node("main", hub);
    main.createService({
      name: "ledger",
      actions: { hello: (ctx) => `hello ${(ctx.params as { who: string }).who}` },
      events: { "side.said": (ctx: Context<{ text: string }>) => void heardOnMain.push((ctx.params as { text: string }).text) },
    });
    side = node("side", new LocalSocketTransporter({ mode: "join", port: port2 }));
    side.createService({
      name: "catalog",
      actions: {
        heard: () => [...heardOnSide],
        askMain: (ctx) => ctx.call("ledger.hello", { who: "side" }),
        say: (ctx) => ctx.broadcast("side.said", { text: (ctx.params as { text: string }).text }),
      },
      events: { "main.said": (ctx: Context<{ text: string }>) => void heardOnSide.push((ctx.params as { text: string }).text) },
    });
    await main.start();
    await side.start();
    tool = node("tool", new LocalSocketTransporter({ path, mode: "join" }));
    await tool.start();
    await main.waitForServices(["catalog"], 20_000);
    await tool.waitForServices(["catalog", "ledger"], 20_000);
  });

  afterAll(async () => {
    if (tool?.started) await tool.stop();
    await side?.stop();
    await main?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("calls cross both ways, and a tool on the socket reaches the side node through the hub", async () => {
    expect(await side.call("catalog.askMain")).toBe("hello side");
    expect(await main.call("ledger.hello", { who: "main" })).toBe("hello main");
    expect(await tool.call("catalog.askMain")).toBe("hello side");
    expect(await tool.call("ledger.hello", { who: "tool" })).toBe("hello tool");
  });

  test("a broadcast sent before a request is handled before it (one ordered link)", async () => {
    for (let i = 0; i < 50; i++) {
      main.broadcast("main.said", { text: `m${i}` });
      const heard = await main.call<string[], object>("catalog.heard", {});
      expect(heard[heard.length - 1]).toBe(`m${i}`);
    }
    await side.call("catalog.say", { text: "from the side" });
    await until("the side's broadcast on the main node", () => heardOnMain.includes("from the side"));
  });

  test("the packets of one turn cross the port as one message, in the order sent", async () => {
    await main.call("catalog.heard", {});
    const before = posts;
    const from = heardOnSide.length;
    for (let i = 0; i < 40; i++) main.broadcast("main.said", { text: `burst ${i}` });
    const heard = await main.call<string[], object>("catalog.heard", {});
    expect(heard.slice(from)).toEqual(Array.from({ length: 40 }, (_, i) => `burst ${i}`));
    // The 40 events and the request: one message (two at most if the turn's end split them).
    expect(posts - before).toBeLessThanOrEqual(2);
  });

  test("the hub counts the side node as attached; a node that leaves is gone from the others' registry", async () => {
    expect(hub.attached).toBe(true);
    await tool.stop();
    await until("the tool's node gone from the main node", () => !main.registry.nodes.get("tool")?.available);
    expect(await main.call("catalog.askMain")).toBe("hello side");
  });
});
