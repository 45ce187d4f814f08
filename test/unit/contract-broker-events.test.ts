/**
 * Typed broker events (contract/broker-events.ts) over a real ServiceBroker: every event a service
 * handles is an event of the map, `emit` / `broadcast` deliver the payload as Moleculer does, and a
 * wrong name, a wrong payload, the wrong delivery or a handler expecting another payload do not
 * compile (`tsc` over tests).
 */
import { ServiceBroker, type Service, type ServiceSchema } from "moleculer";
import { BROKER_EVENTS, broadcast, emit, type EventPayload } from "../../contract";
import { defineService } from "../../mixins/service";
import type { AppContext } from "../../mixins/context";
import { SERVICE_SCHEMAS } from "../../services";
import type { ChainEvents } from "../../chain/ports";
import type { LedgerEvents } from "../../ledger/changes";
import type { PublicationSink } from "../../trading/publication";

/** Every event handler name of a schema, its mixins' included. */
function handled(schema: ServiceSchema): string[] {
  const own = Object.keys(schema.events ?? {});
  const mixed = ((schema.mixins ?? []) as ServiceSchema[]).flatMap(handled);
  return [...own, ...mixed];
}

describe("typed broker events", () => {
  test("every event a service handles is an event of the contract's map (Moleculer's $ events aside)", () => {
    const names = Object.values(SERVICE_SCHEMAS).flatMap((s) => handled(s as ServiceSchema));
    const unknown = names.filter((n) => !n.startsWith("$") && !(n in BROKER_EVENTS));
    expect(unknown).toEqual([]);
    // The map is not empty talk: the gateway, the engines and the notifier listen to it.
    for (const n of ["book.changed", "ledger.durable", "auth.sessionRevoked", "notifier.created", "order.updated"])
      expect(names).toContain(n);
  });

  test("the cores' sinks are slices of the map", () => {
    expect(Object.keys(BROKER_EVENTS).filter((n) => n.startsWith("chain."))).toHaveLength(6);
    const chain: Array<keyof ChainEvents> = ["chain.depositCredited", "chain.incident", "chain.withdrawalSent", "chain.withdrawalFailed"];
    const ledger: Array<keyof LedgerEvents> = ["ledger.durable", "ledger.balanceChanged", "ledger.positionChanged", "ledger.tradeCreated"];
    for (const n of [...chain, ...ledger]) expect(BROKER_EVENTS[n]).toBeDefined();
    expect(ledger.every((n) => BROKER_EVENTS[n] === "broadcast")).toBe(true);
  });

  test("emit and broadcast hand the payload to the services listening, as Moleculer's emit and broadcast do", async () => {
    const broker = new ServiceBroker({ logger: false });
    const seen: Array<[string, unknown]> = [];
    type T = Service;
    const listener = (name: string) =>
      defineService<T>({
        name,
        events: {
          "market.opened"(this: T, ctx) {
            seen.push([`${name}:opened`, ctx.params]);
          },
          "ledger.durable"(this: T, ctx) {
            seen.push([`${name}:durable`, ctx.params.seq]);
          },
        },
      });
    broker.createService({ ...listener("book") });
    broker.createService({ ...listener("amm") });
    await broker.start();
    try {
      emit(broker, "market.opened", { marketId: "mkt_1", eventId: "evt_1", ammLiquidity: "0" });
      broadcast(broker, "ledger.durable", { instance: "i1", seq: 7 });
      await new Promise((r) => setImmediate(r));
      const opened = seen.filter(([k]) => k.endsWith(":opened"));
      expect(opened.map(([k]) => k).sort()).toEqual(["amm:opened", "book:opened"]);
      expect(opened[0][1]).toEqual({ marketId: "mkt_1", eventId: "evt_1", ammLiquidity: "0" });
      expect(seen.filter(([k]) => k.endsWith(":durable"))).toEqual([
        ["book:durable", 7],
        ["amm:durable", 7],
      ]);
    } finally {
      await broker.stop();
    }
  });

  test("the compiler holds senders, sinks and handlers to the map", () => {
    const broker = new ServiceBroker({ logger: false });
    const unused = () => {
      // @ts-expect-error: no such event
      emit(broker, "market.opend", { marketId: "m" });
      // @ts-expect-error: a payload field missing (eventId, ammLiquidity)
      emit(broker, "market.opened", { marketId: "m" });
      // @ts-expect-error: a field of the wrong kind
      broadcast(broker, "ledger.durable", { instance: "i", seq: "7" });
      // @ts-expect-error: a broadcast event is not emitted (every gateway must hear it)
      emit(broker, "auth.sessionRevoked", { sid: "s", userId: "u" });
      // @ts-expect-error: an emitted event is not broadcast
      broadcast(broker, "market.trade", { marketId: "m", tradeId: "t", outcome: "YES", yesPrice: 1, quantity: 1, notional: 1, at: "" });
      const sink: Pick<PublicationSink, "broadcast"> = { broadcast: () => undefined };
      // @ts-expect-error: the actor's sink takes the map's payload
      sink.broadcast("book.changed", { marketId: "m", seq: 1, yes: { bids: [] } });
      type T = Service;
      defineService<T>({
        name: "x",
        events: {
          // @ts-expect-error: the handler expects another payload than the event carries
          "book.changed"(this: T, ctx: AppContext<{ marketId: number }>) {
            return ctx.params.marketId;
          },
        },
      });
      defineService<T>({
        name: "y",
        events: {
          // @ts-expect-error: not an event of the map
          "book.chaged"(this: T) {},
        },
      });
      defineService<T>({
        name: "z",
        events: {
          "ledger.durable"(this: T, ctx) {
            // @ts-expect-error: ctx.params is the event's payload (seq is a number)
            const seq: string = ctx.params.seq;
            return seq;
          },
        },
      });
      const p: EventPayload<"notifier.created"> = {
        userId: "u",
        // @ts-expect-error: a notification is the REST model's shape
        notification: { id: "n" },
      };
      return p;
    };
    expect(typeof unused).toBe("function");
  });
});
