/**
 * Typed calls (contract/call.ts) over a real ServiceBroker: the action map's names are real
 * actions of the services, `call` passes params and options through and answers the result;
 * a wrong name, wrong params or a wrong use of the result do not compile (`tsc` over tests).
 */
import { ServiceBroker } from "moleculer";
import { call, INTERNAL_ACTIONS, ROUTED_ACTIONS, type ActionResult } from "../../contract";
import { SERVICE_SCHEMAS } from "../../services";

describe("typed calls", () => {
  test("every action of the map is an action of its service", () => {
    const missing = [...INTERNAL_ACTIONS, ...ROUTED_ACTIONS].filter((a) => {
      const [svc, name] = a.split(".");
      return !(SERVICE_SCHEMAS as Record<string, { actions?: Record<string, unknown> }>)[svc]?.actions?.[name];
    });
    expect(missing).toEqual([]);
  });

  test("call() forwards name, params and options, and answers the action's result", async () => {
    const broker = new ServiceBroker({ logger: false });
    const seen: unknown[] = [];
    broker.createService({
      name: "ledger",
      actions: {
        holders: {
          params: { marketId: "string" },
          handler(ctx) {
            seen.push([ctx.params, ctx.meta]);
            return [{ account: "u1", marketId: ctx.params.marketId, outcome: "YES", quantity: 5 }];
          },
        },
        conservation: { handler: () => ({ ok: true }) },
      },
    });
    await broker.start();
    try {
      const holders: ActionResult<"ledger.holders"> = await call(
        broker,
        "ledger.holders",
        { marketId: "mkt_1" },
        { meta: { trace: "t1" } },
      );
      expect(holders[0].marketId).toBe("mkt_1");
      expect(seen).toEqual([[{ marketId: "mkt_1" }, { trace: "t1" }]]);
      // An action without params is called without them.
      expect(await call(broker, "ledger.conservation")).toEqual({ ok: true });
      // The broker's own validation still refuses bad params at run time.
      await expect(call(broker, "ledger.holders", { marketId: 5 } as unknown as { marketId: string })).rejects.toMatchObject({
        type: "VALIDATION_ERROR",
        data: [{ field: "marketId", type: "string" }],
      });
    } finally {
      await broker.stop();
    }
  });

  test("the compiler holds calls to the contract", () => {
    const broker = new ServiceBroker({ logger: false });
    const unused = () => {
      // @ts-expect-error: no such action
      void call(broker, "ledger.nope", {});
      // @ts-expect-error: a misspelt param
      void call(broker, "ledger.holders", { marketI: "x" });
      // @ts-expect-error: the result is PositionState[], not a string
      void call(broker, "ledger.holders", { marketId: "x" }).then((h): string => h);
      // @ts-expect-error: a routed action takes its wire request
      void call(broker, "chain.withdraw", { amount: 5 });
    };
    expect(typeof unused).toBe("function");
  });
});
